import { webApi } from '@slack/bolt';
import { LRUCache } from 'lru-cache';
import {
  ThreadContextError,
  type ThreadContextMessage,
  type ThreadContextSource,
} from '../../contract/thread-context.js';
import { slackErrorCode } from './slack-errors.js';
import { tsAfter, type SlackState } from './slack-state.js';
import { slackToPlain } from './text.js';
import type { SlackNames } from './user-roles.js';

/**
 * The thread before a Slack message (issue 42): `conversations.replies` (paged; the root channel
 * message comes first), leaving out the bot's own posts and the turn's message, with each
 * author's display name from `users.info`, resolved once and cached. A later turn of the same
 * thread asks only for what is newer than its cursor, and makes no call at all when no message
 * it did not answer was posted there since (the listeners note those: `SlackState.noteActivity`).
 */

/** A page as large as Slack serves; a thread longer than PAGES pages is read from its start up to there. */
const PAGE_SIZE = 200;
const PAGES = 5;
/** Authors looked up per turn; the rest are shown by their user id. */
const MAX_LOOKUPS = 20;

/**
 * The client the thread's reads go through: the workspace's token, but a rate limit fails the
 * read at once (`ratelimited`) instead of pausing the client, as the WebClient does on a 429 for
 * every call it makes (the answer's posts included) until Retry-After has passed, and a failed
 * read is not retried: the turn goes on without the thread, and the next turn asks again.
 */
export function createContextClients(options: webApi.WebClientOptions): (client: webApi.WebClient) => webApi.WebClient {
  const readers = new LRUCache<string, webApi.WebClient>({ max: 1_000 });
  return (client) => {
    const token = client.token;
    if (!token) return client;
    let reader = readers.get(token);
    if (!reader) {
      reader = new webApi.WebClient(token, { ...options, rejectRateLimitedCalls: true, retryConfig: { retries: 0 } });
      readers.set(token, reader);
    }
    return reader;
  };
}

export interface SlackThreadContextInput {
  client: webApi.WebClient;
  names: SlackNames;
  state: Pick<SlackState, 'activitySince'>;
  workspaceId: string;
  channel: string;
  threadTs: string;
  /** The turn's own message. */
  ts: string;
  botUserId?: string;
  botId?: string;
}

/** The thread before `ts`, or undefined when `ts` starts its thread (nothing came before it). */
export function slackThreadContext(input: SlackThreadContextInput): ThreadContextSource | undefined {
  const { client, channel, threadTs, ts } = input;
  if (ts === threadTs) return undefined;
  return {
    upTo: ts,
    async fetch(since) {
      if (
        since !== undefined &&
        !(await input.state.activitySince(input.workspaceId, channel, threadTs, since).catch(() => true))
      )
        return { messages: [], calls: 0 };
      const raw: SlackMessage[] = [];
      let cursor: string | undefined;
      let calls = 0;
      try {
        for (let page = 0; page < PAGES; page++) {
          calls++;
          const res = (await client.conversations.replies({
            channel,
            ts: threadTs,
            latest: ts,
            inclusive: false,
            limit: PAGE_SIZE,
            ...(since ? { oldest: since } : {}),
            ...(cursor ? { cursor } : {}),
          })) as { messages?: SlackMessage[]; has_more?: boolean; response_metadata?: { next_cursor?: string } };
          raw.push(...(res.messages ?? []));
          cursor = res.response_metadata?.next_cursor || undefined;
          if (!res.has_more || !cursor) break;
        }
      } catch (err) {
        throw new ThreadContextError(slackErrorCode(err), { cause: err });
      }
      const kept = raw.filter((m) => keep(m, input, since));
      return { messages: await describe(kept, input), calls };
    },
  };
}

/** The fields of a message of `conversations.replies` read here. */
interface SlackMessage {
  ts?: string;
  user?: string;
  bot_id?: string;
  subtype?: string;
  text?: string;
  edited?: unknown;
  username?: string;
  bot_profile?: { name?: string };
  files?: { name?: string; title?: string; filetype?: string; mimetype?: string }[];
}

/** Not the bot's own (its history has them), not the turn's message, not newer than it, not already seen, not deleted. */
function keep(m: SlackMessage, input: SlackThreadContextInput, since: string | undefined): boolean {
  if (!m.ts || m.ts === input.ts || tsAfter(m.ts, input.ts)) return false;
  if (since !== undefined && !tsAfter(m.ts, since)) return false;
  if (m.subtype === 'tombstone' || m.subtype === 'message_deleted') return false;
  if (input.botUserId && m.user === input.botUserId) return false;
  if (input.botId && m.bot_id === input.botId) return false;
  return true;
}

async function describe(messages: SlackMessage[], input: SlackThreadContextInput): Promise<ThreadContextMessage[]> {
  const people = [...new Set(messages.filter((m) => m.user && !m.bot_id).map((m) => m.user!))];
  const names = new Map<string, string>();
  await Promise.all(
    people
      .slice(0, MAX_LOOKUPS)
      .map(async (id) => names.set(id, await input.names.of(input.client, input.workspaceId, id))),
  );
  return messages.map((m) => {
    const bot = Boolean(m.bot_id) || !m.user;
    const author = bot ? (m.bot_profile?.name ?? m.username ?? 'an app') : (names.get(m.user!) ?? m.user!);
    const files = (m.files ?? []).map((f) => ({
      name: f.name ?? f.title ?? 'file',
      type: f.filetype ?? f.mimetype ?? '',
    }));
    return {
      id: m.ts!,
      author,
      at: new Date(Number(m.ts) * 1000).toISOString(),
      // Cut before any pattern reads it: the core cuts each message shorter still.
      text: slackToPlain((m.text ?? '').slice(0, 8_000), input.botUserId),
      ...(files.length ? { files } : {}),
      ...(m.edited ? { edited: true } : {}),
      ...(bot ? { bot: true } : {}),
    };
  });
}
