import {
  ComponentType,
  InteractionWebhook,
  type APIActionRowComponent,
  type APIComponentInMessageActionRow,
  type Client,
  type Message,
} from 'discord.js';
import { expiryAction, startApprovalSweep } from '../../agent/approval-sweep.js';
import type { IncomingMessage, TurnEvent } from '../../contract/turn.js';
import type { ApprovalStore, DueApproval } from '../../data/approvals.js';
import type { Inbox } from '../../inbox/index.js';
import type { KvStore } from '../../state/kv.js';
import type { Logger } from '../../telemetry/logger.js';
import type { ActionStore } from './custom-id.js';
import type { DiscordWork, InteractionTarget } from './work.js';
import { approvalOutcomeLine } from '../../reply/approval-outcome.js';

/**
 * Discord's side of approvals nobody decides (issue 43): every replica with a gateway sweeps the
 * Discord approvals past their time into the inbox (one entry per step, keyed by the step, so two
 * replicas record it once); the entry's turn expires the row, edits the approval message (found
 * in its channel by its buttons) to say so without buttons, and posts the model's answer.
 */

/** How many recent messages of the channel are searched for the approval message. */
const SEARCH_LIMIT = 100;
/** An interaction's token edits its messages for 15 minutes (a minute's margin kept). */
const TOKEN_LIFETIME_MS = 14 * 60_000;
const hookKey = (messageId: string) => `discord:hook:${messageId}`;
type Hook = Pick<InteractionTarget, 'applicationId' | 'token'>;

/**
 * Remembers the interaction that posted a message with buttons, while its token lives: a message
 * sent through an interaction is a webhook's, which only that webhook can edit.
 */
export function rememberHook(kv: KvStore, target: InteractionTarget): (ref: { messageId: string }) => Promise<void> {
  return async (ref) => {
    const ttl = target.receivedAt + TOKEN_LIFETIME_MS - Date.now();
    if (ref.messageId === '@original' || ttl <= 0) return;
    const hook: Hook = { applicationId: target.applicationId, token: target.token };
    await kv.set(hookKey(ref.messageId), hook, ttl);
  };
}

export function startDiscordApprovalSweep(
  deps: { inbox: Inbox; log: Logger },
  store: ApprovalStore,
  intervalMs: number,
): () => Promise<void> {
  return startApprovalSweep({
    store,
    platforms: ['discord'],
    intervalMs,
    log: deps.log,
    enqueue: (due) => {
      const work: DiscordWork = {
        kind: 'message',
        message: expiryMessage(due),
        // Where the answer goes: the conversation's thread if it is a channel (see `expiryChannel`).
        channelId: due.channel_id,
        originId: `approval-expiry:${due.step_id}`,
      };
      return deps.inbox.add({
        id: `discord:approval-expiry:${due.step_id}`,
        platform: 'discord',
        thread: `discord:${due.workspace_id}:${due.channel_id}:${due.thread_id}`,
        payload: work,
        receivedAt: Date.now(),
      });
    },
  });
}

/** The synthetic click of an expiry: the asker's conversation, no person's action (the agent checks the time). */
function expiryMessage(due: DueApproval): IncomingMessage {
  return {
    platform: 'discord',
    workspaceId: due.workspace_id,
    channelId: due.channel_id,
    threadId: due.thread_id,
    messageId: `approval-expiry:${due.step_id}`,
    userId: due.asker_id,
    role: 'guest', // nobody clicked: the least a person may do (the expiry runs no tool)
    isDirect: due.workspace_id === 'default' && due.channel_id === due.thread_id,
    text: '',
    action: expiryAction(due),
  };
}

/**
 * The channel an expiry is answered in: the conversation's Discord thread when it is one (a
 * mention's thread), else its channel (a slash command's conversation is named by its interaction).
 */
export async function expiryChannel(client: Client, message: IncomingMessage, log: Logger): Promise<string> {
  if (message.threadId === message.channelId) return message.channelId;
  try {
    const thread = await client.channels.fetch(message.threadId);
    if (thread) return thread.id;
  } catch (err) {
    log.debug({ err, threadId: message.threadId }, 'expiry conversation is not a thread; answering in its channel');
  }
  return message.channelId;
}

/**
 * The turn's events, unless it has none (the step was decided meanwhile: nothing to post); an
 * `approval_decided` event edits the approval message on the way.
 */
export async function expiryEvents(
  events: AsyncIterable<TurnEvent>,
  onExpired: (at: string) => Promise<void>,
): Promise<AsyncIterable<TurnEvent> | undefined> {
  const it = events[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) return undefined;
  async function* rest(): AsyncGenerator<TurnEvent> {
    let next: IteratorResult<TurnEvent> = first;
    while (!next.done) {
      const event = next.value;
      if (event.type === 'approval_decided' && event.outcome === 'expired') await onExpired(event.at);
      yield event;
      next = await it.next();
    }
  }
  return rest();
}

type ActionRow = APIActionRowComponent<APIComponentInMessageActionRow>;

/**
 * Edits the approval message of `approvalId` (found among the channel's recent messages by its
 * buttons' action) to say it expired, buttons removed. A failure is logged; the turn goes on.
 */
export function replaceExpiredApproval(
  client: Client,
  where: { channelId: string; approvalId: string },
  actions: ActionStore,
  kv: KvStore,
  log: Logger,
): (at: string) => Promise<void> {
  return async (at) => {
    try {
      const channel = await client.channels.fetch(where.channelId);
      if (!channel?.isTextBased()) throw new Error('not a text channel');
      const recent = await channel.messages.fetch({ limit: SEARCH_LIMIT });
      for (const m of recent.values()) {
        const ids = m.components.flatMap((row) =>
          row.type === ComponentType.ActionRow
            ? (row.toJSON() as ActionRow).components.flatMap((c) => ('custom_id' in c ? [c.custom_id] : []))
            : [],
        );
        for (const id of ids) {
          const action = await actions.decode(id);
          if (action?.id.startsWith('approval.') && action.value === where.approvalId) {
            await editExpired(client, kv, m, at, log);
            return;
          }
        }
      }
      log.warn({ approvalId: where.approvalId }, 'discord approval message not found in its channel; not updated');
    } catch (err) {
      log.warn(
        { err, code: (err as { code?: unknown }).code, approvalId: where.approvalId },
        'discord approval message not updated',
      );
    }
  };
}

/** The edit: the bot's own message directly, an interaction's through its webhook while the token lives. */
async function editExpired(client: Client, kv: KvStore, m: Message, at: string, log: Logger): Promise<void> {
  const body = { content: approvalOutcomeLine('expired', at), embeds: [], components: [] };
  if (!m.webhookId) return void (await m.edit(body));
  const hook = await kv.get<Hook>(hookKey(m.id));
  if (!hook) {
    // Discord lets nobody else edit it: the buttons stay; a click on them says it expired.
    log.info({ messageId: m.id }, 'discord approval message no longer editable (its interaction token expired)');
    return;
  }
  await new InteractionWebhook(client as Client<true>, hook.applicationId, hook.token).editMessage(m.id, body);
}
