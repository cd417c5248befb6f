import { z } from 'zod';
import { MAX_MESSAGE_CHARS, type IncomingMessage } from '../../contract/turn.js';
import { attachmentsOf, slackFiles } from './files.js';
import { slackToPlain } from './text.js';

/**
 * Slack payloads → IncomingMessage. Each payload is read through a small zod schema of the
 * fields we use, so an unexpected shape is an ignored event (logged), never a crash.
 */

/** Where a Slack payload came from, as Bolt's authorize step resolved it. */
export interface SlackContext {
  teamId?: string;
  enterpriseId?: string;
  botUserId?: string;
  botId?: string;
}

/** The user id Slack gives Slackbot in every workspace. */
const SLACKBOT_USER = 'USLACKBOT';

/** Message subtypes that are still a person talking to us; every other subtype (edits, deletions, joins, bots) is not. */
const USER_SUBTYPES = new Set(['thread_broadcast', 'file_share']);

const messageEvent = z.object({
  type: z.enum(['message', 'app_mention']),
  subtype: z.string().optional(),
  user: z.string().optional(),
  bot_id: z.string().optional(),
  text: z.string().optional(),
  ts: z.string(),
  thread_ts: z.string().optional(),
  channel: z.string(),
  channel_type: z.string().optional(),
  client_msg_id: z.string().optional(),
  team: z.string().optional(),
  user_team: z.string().optional(),
  /** Files shared with the message (files.ts reads the fields it needs). */
  files: slackFiles,
});
export type SlackMessageEvent = z.infer<typeof messageEvent>;

export type MessageDecision =
  | { kind: 'ignore'; reason: string }
  /**
   * Over MAX_MESSAGE_CHARS: refused with a notice, its text never read (the message carries
   * none). `chars` is the length of Slack's text.
   */
  | { kind: 'too_long'; chars: number; message: IncomingMessage; dedupKeys: string[]; mentionsBot: boolean }
  | {
      kind: 'handle';
      message: IncomingMessage;
      /** Set-if-absent keys: one reply per Slack message, whichever twin event arrives first. */
      dedupKeys: string[];
      mentionsBot: boolean;
      /** The user's own team (recipient of a stream), which differs from ours in shared channels. */
      userTeamId?: string;
      /** People the message mentions (not the bot): our answer may still mention them. */
      mentions: string[];
    };

export function workspaceOf(ctx: SlackContext): string {
  return ctx.teamId ?? ctx.enterpriseId ?? 'unknown';
}

/** The Enterprise Grid org of a workspace, when it is one (its mapping serves the workspace if the workspace has none). */
function orgOf(ctx: SlackContext, workspaceId: string, enterpriseId?: string | null): { orgId?: string } {
  const org = enterpriseId ?? ctx.enterpriseId;
  return org && org !== workspaceId ? { orgId: org } : {};
}

/**
 * An `app_mention` or `message` event, before any thread-following decision: the caller drops
 * channel messages that neither mention the bot nor belong to a thread it follows.
 */
export function normalizeMessageEvent(raw: unknown, ctx: SlackContext, eventId?: string): MessageDecision {
  const parsed = messageEvent.safeParse(raw);
  if (!parsed.success) return { kind: 'ignore', reason: 'unexpected message shape' };
  const e = parsed.data;
  if (e.subtype && !USER_SUBTYPES.has(e.subtype)) return { kind: 'ignore', reason: `subtype ${e.subtype}` };
  if (e.bot_id || !e.user) return { kind: 'ignore', reason: 'bot message' };
  // Slackbot's own notices ("You have been removed from #…") come as a user, without bot_id.
  if (e.user === SLACKBOT_USER) return { kind: 'ignore', reason: 'Slackbot message' };
  if (e.user === ctx.botUserId) return { kind: 'ignore', reason: 'own message' };
  const workspaceId = workspaceOf(ctx);
  const isDirect = e.channel_type === 'im' || (e.channel_type === undefined && e.channel.startsWith('D'));
  const rawText = e.text ?? '';
  const mentionsBot = ctx.botUserId !== undefined && rawText.includes(`<@${ctx.botUserId}`);
  // A Slack message is its channel + ts: the same in the app_mention and message twins, and
  // present on every message (client_msg_id is missing on some, e.g. posts from integrations).
  const dedupKeys = [`msg:${workspaceId}:${e.channel}:${e.ts}`];
  if (eventId) dedupKeys.unshift(`event:${eventId}`);
  // Checked before any pattern runs over the text: the work over one message stays bounded.
  const tooLong = rawText.length > MAX_MESSAGE_CHARS;
  const message: IncomingMessage = {
    platform: 'slack',
    workspaceId,
    ...orgOf(ctx, workspaceId),
    channelId: e.channel,
    threadId: e.thread_ts ?? e.ts,
    messageId: e.client_msg_id ?? e.ts,
    userId: e.user,
    // Slack events do not say who is a guest: the delivery asks users.info (least privilege until then).
    role: 'guest',
    isDirect,
    text: tooLong ? '' : slackToPlain(rawText, ctx.botUserId),
  };
  const attachments = tooLong ? [] : attachmentsOf(e.files);
  if (attachments.length) message.attachments = attachments;
  if (tooLong) return { kind: 'too_long', chars: rawText.length, message, dedupKeys, mentionsBot };
  return {
    kind: 'handle',
    message,
    dedupKeys,
    mentionsBot,
    userTeamId: e.user_team ?? e.team ?? ctx.teamId,
    mentions: mentionedUsers(rawText, ctx.botUserId),
  };
}

/** The users a Slack message mentions (`<@U…>`), the bot aside. */
export function mentionedUsers(text: string, botUserId?: string): string[] {
  // A label stops at the next `<` (Slack escapes a typed one as `&lt;`): with `[^>]*` each of
  // `<@U1|<@U2|…` scanned to the end of the text, quadratic in its length.
  const ids = [...text.matchAll(/<@([UW][A-Z0-9]+)(?:\|[^<>]*)?>/g)].map((m) => m[1]!);
  return [...new Set(ids)].filter((id) => id !== botUserId);
}

const slashCommand = z.object({
  command: z.string(),
  text: z.string().default(''),
  user_id: z.string(),
  channel_id: z.string(),
  team_id: z.string().optional(),
  enterprise_id: z.string().optional(),
  trigger_id: z.string().optional(),
});

export interface CommandRequest {
  command: { name: string; options: Record<string, string> };
  /** What the user typed after the command. */
  text: string;
  userId: string;
  channelId: string;
  workspaceId: string;
  orgId?: string;
  isDirect: boolean;
  dedupKey: string;
  /** People the command's text mentions. */
  mentions?: string[];
}

/** The length of a slash command's text when it is over MAX_MESSAGE_CHARS (refused before it is normalized). */
export function commandTooLong(raw: unknown): number | undefined {
  const text = (raw as { text?: unknown } | null)?.text;
  return typeof text === 'string' && text.length > MAX_MESSAGE_CHARS ? text.length : undefined;
}

/** `/ask <question>` and `/quote <mode> <request>`; other commands pass their text as `text`. */
export function normalizeCommand(raw: unknown, ctx: SlackContext): CommandRequest | undefined {
  const parsed = slashCommand.safeParse(raw);
  if (!parsed.success) return undefined;
  const c = parsed.data;
  const name = c.command.replace(/^\//, '').toLowerCase();
  const text = slackToPlain(c.text, ctx.botUserId);
  let options: Record<string, string> = text ? { text } : {};
  if (name === 'ask') options = text ? { question: text } : {};
  if (name === 'quote') {
    const [, mode, request] = /^(\S+)\s*([\s\S]*)$/.exec(text) ?? [];
    options = { ...(mode ? { mode } : {}), ...(request?.trim() ? { request: request.trim() } : {}) };
  }
  const workspaceId = c.team_id ?? c.enterprise_id ?? workspaceOf(ctx);
  return {
    command: { name, options },
    text,
    userId: c.user_id,
    channelId: c.channel_id,
    workspaceId,
    ...orgOf(ctx, workspaceId, c.enterprise_id),
    isDirect: c.channel_id.startsWith('D'),
    mentions: mentionedUsers(c.text, ctx.botUserId),
    dedupKey: `command:${c.trigger_id ?? `${c.channel_id}:${c.user_id}:${name}:${text}`}`,
  };
}

const blockAction = z.object({
  type: z.literal('block_actions'),
  user: z.object({ id: z.string(), team_id: z.string().optional() }),
  team: z.object({ id: z.string() }).nullish(),
  enterprise: z.object({ id: z.string() }).nullish(),
  trigger_id: z.string().optional(),
  container: z
    .object({
      message_ts: z.string().optional(),
      channel_id: z.string().optional(),
      thread_ts: z.string().optional(),
      is_ephemeral: z.boolean().optional(),
    })
    .optional(),
  channel: z.object({ id: z.string() }).optional(),
  message: z.object({ ts: z.string(), thread_ts: z.string().optional() }).optional(),
  actions: z
    .array(
      z.object({
        action_id: z.string(),
        action_ts: z.string().optional(),
        value: z.string().optional(),
        selected_option: z.object({ value: z.string() }).nullish(),
      }),
    )
    .min(1),
});

/** A click on one of our buttons (or a select), answered in the thread of the message it sits on. */
export function normalizeAction(
  raw: unknown,
  ctx: SlackContext,
): { message: IncomingMessage; dedupKey: string; userTeamId?: string; ephemeral: boolean } | undefined {
  const parsed = blockAction.safeParse(raw);
  if (!parsed.success) return undefined;
  const b = parsed.data;
  const action = b.actions[0]!;
  const channelId = b.channel?.id ?? b.container?.channel_id;
  const messageTs = b.message?.ts ?? b.container?.message_ts;
  if (!channelId || !messageTs) return undefined;
  const threadId = b.message?.thread_ts ?? b.container?.thread_ts ?? messageTs;
  const value = action.value ?? action.selected_option?.value;
  const actionTs = action.action_ts ?? messageTs;
  return {
    message: {
      platform: 'slack',
      workspaceId: b.team?.id ?? b.enterprise?.id ?? workspaceOf(ctx),
      ...orgOf(ctx, b.team?.id ?? b.enterprise?.id ?? workspaceOf(ctx), b.enterprise?.id),
      channelId,
      threadId,
      messageId: `${messageTs}:${actionTs}`,
      userId: b.user.id,
      role: 'guest', // decided at delivery (users.info)
      isDirect: channelId.startsWith('D'),
      text: '',
      // `#n` made a repeated id unique within its message (see render.ts).
      action: { id: action.action_id.replace(/#\d+$/, ''), ...(value !== undefined ? { value } : {}) },
    },
    dedupKey: `action:${b.trigger_id ?? `${channelId}:${messageTs}:${actionTs}:${b.user.id}`}`,
    userTeamId: b.user.team_id,
    // A button on a message only its user sees: there is no thread to answer in, only its response_url.
    ephemeral: b.container?.is_ephemeral === true,
  };
}
