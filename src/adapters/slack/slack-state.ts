import type { Logger } from '../../telemetry/logger.js';
import type { KvStore } from '../../state/kv.js';
import { createOutageNotice } from '../../telemetry/outage-notice.js';

/** Long enough to outlast every Slack retry (the last comes about 5 minutes after the first try). */
export const DEDUP_TTL_MS = 10 * 60_000;

/**
 * What the Slack adapter remembers between events, in the shared state store (Redis across
 * replicas): which events and messages were already taken, and which threads the bot follows.
 */
export function createSlackState(kv: KvStore, log: Logger, threadTtlMs: number) {
  // The dedup store away: told once per outage (every event meets it), and its end once.
  const dedup = createOutageNotice(log, 'slack dedup store answers again');
  return {
    /**
     * Claims every key atomically (set-if-absent); false when another event (a retry, the twin
     * `app_mention`/`message` pair, another replica) already took one. If the store is down the
     * event is handled anyway: the turn itself then reports the state failure instead of silence.
     */
    async firstTime(keys: string[]): Promise<boolean> {
      for (const key of keys) {
        try {
          const first = await kv.setIfAbsent(`slack:seen:${key}`, 1, DEDUP_TTL_MS);
          dedup.ok();
          if (!first) return false;
        } catch (err) {
          dedup.failed({ err, key }, 'slack dedup store unavailable; handling the event without dedup');
          return true;
        }
      }
      return true;
    },

    /** The bot answers later messages of a channel thread it was mentioned in, without a new mention. */
    async follow(workspaceId: string, channel: string, threadTs: string): Promise<void> {
      await kv
        .set(threadKey(workspaceId, channel, threadTs), 1, threadTtlMs)
        .catch((err: unknown) => log.warn({ err }, 'could not remember a followed Slack thread'));
    },

    async follows(workspaceId: string, channel: string, threadTs: string): Promise<boolean> {
      try {
        return (await kv.get<number>(threadKey(workspaceId, channel, threadTs))) !== undefined;
      } catch (err) {
        log.warn({ err }, 'could not check a followed Slack thread');
        return false;
      }
    },

    /**
     * People in a thread: each turn's asker and those its message mentioned, added to what
     * earlier turns saw. A mention in our answer stays live only for them (src/adapters/slack/inert.ts).
     * A store failure leaves the people of this turn alone: fewer live mentions, never more.
     */
    async peopleOf(
      workspaceId: string,
      channel: string,
      threadTs: string,
      add: readonly string[],
    ): Promise<Set<string>> {
      const key = `slack:people:${workspaceId}:${channel}:${threadTs}`;
      const people = new Set(add);
      try {
        const known = (await kv.get<string[]>(key)) ?? [];
        const before = known.length;
        for (const id of known) people.add(id);
        if (people.size !== before) await kv.set(key, [...people].slice(-MAX_PEOPLE), threadTtlMs);
      } catch (err) {
        log.warn({ err }, 'could not read or remember the people of a Slack thread');
      }
      return people;
    },

    /**
     * A message the bot did not answer was posted in a thread it follows (another app's post):
     * the next turn there fetches the thread before it (src/adapters/slack/thread-context.ts).
     * Every other message of a followed thread is a turn, so without this note nothing is new.
     */
    async noteActivity(workspaceId: string, channel: string, threadTs: string, ts: string): Promise<void> {
      await kv
        .set(`slack:activity:${workspaceId}:${channel}:${threadTs}`, ts, threadTtlMs)
        .catch((err: unknown) => log.warn({ err }, 'could not note a message in a followed Slack thread'));
    },

    /** Whether a message the bot did not answer was posted in the thread after `since` (a store failure says yes). */
    async activitySince(workspaceId: string, channel: string, threadTs: string, since: string): Promise<boolean> {
      try {
        const last = await kv.get<string>(`slack:activity:${workspaceId}:${channel}:${threadTs}`);
        return last !== undefined && tsAfter(last, since);
      } catch (err) {
        log.warn({ err }, 'could not read a Slack thread’s last message; fetching its context');
        return true;
      }
    },

    /** True once per assistant thread: its first message names it. */
    async firstInThread(channel: string, threadTs: string): Promise<boolean> {
      return kv.setIfAbsent(`slack:titled:${channel}:${threadTs}`, 1, threadTtlMs).catch(() => false);
    },
  };
}

/** Enough for any real thread; the key stays small. */
const MAX_PEOPLE = 200;

export type SlackState = ReturnType<typeof createSlackState>;

function threadKey(workspaceId: string, channel: string, threadTs: string): string {
  return `slack:follow:${workspaceId}:${channel}:${threadTs}`;
}

/** Slack timestamps ("1700000000.000100") compared as numbers of seconds and microseconds. */
export function tsAfter(a: string, b: string): boolean {
  const [as, au = '0'] = a.split('.');
  const [bs, bu = '0'] = b.split('.');
  if (Number(as) !== Number(bs)) return Number(as) > Number(bs);
  return Number(au.padEnd(6, '0')) > Number(bu.padEnd(6, '0'));
}
