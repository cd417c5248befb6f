import {
  ButtonStyle,
  ComponentType,
  type APIActionRowComponent,
  type APIComponentInMessageActionRow,
  type ButtonInteraction,
} from 'discord.js';
import type { IncomingMessage } from '../../contract/turn.js';
import { FEEDBACK_ACTION } from '../../contract/feedback.js';
import type { KvStore } from '../../state/kv.js';
import type { Logger } from '../../telemetry/logger.js';
import type { Conversation } from './normalize.js';
import type { MessageRef } from './sinks.js';

/**
 * A reply's buttons, from posting to click: the conversation their message belongs to
 * (remembered when posted, looked up when clicked, on the gateway and over HTTP alike) and the
 * buttons disabled once one is clicked, so a choice is made once.
 */

type ActionRow = APIActionRowComponent<APIComponentInMessageActionRow>;

const conversationKey = (messageId: string) => `discord:conversation:${messageId}`;

/**
 * Remembers the conversation of every message with buttons: a click on a slash-command reply in
 * a plain channel cannot tell its conversation from the channel alone.
 */
export function rememberButtonConversation(
  kv: KvStore,
  ttlMs: number,
): (ref: MessageRef, message: IncomingMessage) => Promise<void> {
  return async (ref, message) => {
    if (ref.messageId === '@original') return; // a replay does not learn the snowflake; the click falls back to the command's id
    const conversation: Conversation = {
      workspaceId: message.workspaceId,
      channelId: message.channelId,
      threadId: message.threadId,
      isDirect: message.isDirect,
    };
    await kv.set(conversationKey(ref.messageId), conversation, ttlMs);
  };
}

/** The conversation of the clicked message: as remembered, or else as its channel tells (`inChannel`). */
export async function conversationOfClick(
  kv: KvStore,
  messageId: string,
  inChannel: () => Conversation,
): Promise<Conversation> {
  return (await kv.get<Conversation>(conversationKey(messageId))) ?? inChannel();
}

/** A message's action rows with every button disabled; the clicked one (by custom_id) turns green. */
export function disabledRows(rows: readonly ActionRow[], customId: string): ActionRow[] {
  return rows
    .filter((row) => row.type === ComponentType.ActionRow)
    .map((row) => ({
      ...row,
      components: row.components.map((c) => {
        if (c.type !== ComponentType.Button) return c;
        // 👍/👎 stay (issue 47): a vote on the answer is not a choice among its buttons.
        if ('custom_id' in c && c.custom_id.startsWith(`${FEEDBACK_ACTION}|`)) return c;
        const chosen = 'custom_id' in c && c.custom_id === customId;
        return {
          ...c,
          disabled: true,
          ...(chosen ? { style: ButtonStyle.Success } : {}),
        } as APIComponentInMessageActionRow;
      }),
    }));
}

/** Disables a gateway click's message's buttons (over HTTP, the click's response does it). */
export async function markClicked(interaction: ButtonInteraction, log: Logger): Promise<void> {
  const rows = disabledRows(
    interaction.message.components.flatMap((row) =>
      row.type === ComponentType.ActionRow ? [row.toJSON() as ActionRow] : [],
    ),
    interaction.customId,
  );
  if (rows.length === 0) return;
  try {
    await interaction.editReply({ components: rows });
  } catch (err) {
    log.warn({ err, code: (err as { code?: unknown }).code }, 'could not disable the clicked buttons');
  }
}
