/**
 * Issue 41, item 2, at the inbox: a delivery that could not reach Redis or Postgres runs again
 * with backoff, in its thread's order (the thread's later entries wait behind it), is told on its
 * last try that no retry is left, and the outage is logged once (warn) and its end once (info).
 * Both inboxes: in process, and BullMQ on a redis-server of the test's own.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { RetryLaterError, type Inbox, type InboxEntry } from '../../src/inbox/index.js';
import { createMemoryInbox } from '../../src/inbox/memory-inbox.js';
import { createRedisInbox } from '../../src/inbox/redis-inbox.js';
import { createOutageLog, retryBudgetMs, retryDelayMs } from '../../src/inbox/retry.js';
import { captureLogs, type LogCapture } from '../helpers/harness.js';
import { inboxIdle } from '../helpers/inbox-idle.js';
import { canRunRedisServer, startOwnRedis, type OwnRedis } from '../helpers/redis-server.js';

const redisRunnable = canRunRedisServer();
if (!redisRunnable) console.warn('[inbox retry] redis-server is not on the PATH: the Redis inbox cases are SKIPPED');

const opened: Inbox[] = [];
let ownRedis: OwnRedis | undefined;
afterAll(async () => {
  await Promise.allSettled(opened.map((i) => i.stop(0)));
  await ownRedis?.stop();
});

type Make = (o: { retryAttempts: number }) => Promise<{ inbox: Inbox; logs: LogCapture }>;
const memory: Make = async ({ retryAttempts }) => {
  const { log, logs } = captureLogs('debug');
  const inbox = createMemoryInbox(log, { retryAttempts, retryMaxMs: 20, orderSettleMs: 0 });
  opened.push(inbox);
  return { inbox, logs };
};
const redis: Make = async ({ retryAttempts }) => {
  // With AOF, as production must run (a Redis without it is an error line of its own).
  ownRedis ??= await startOwnRedis(['--appendonly', 'yes', '--dir', mkdtempSync(join(tmpdir(), 'sb-retry-'))]);
  const { log, logs } = captureLogs('debug');
  const inbox = await createRedisInbox(ownRedis.url, log, {
    prefix: 'sbretry',
    queue: `q${randomUUID().slice(0, 8)}`,
    leaseMs: 2_000,
    retryAttempts,
    retryMaxMs: 20,
    orderSettleMs: 0,
  });
  opened.push(inbox);
  return { inbox, logs };
};

const entry = (id: string, thread: string): InboxEntry => ({
  id,
  platform: 'test',
  thread,
  payload: {},
  receivedAt: Date.now(),
});

async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

const kinds: [string, Make][] = [['memory', memory]];
if (redisRunnable) kinds.push(['redis', redis]);

describe.each(kinds)('the %s inbox, when a turn cannot reach its storage', { timeout: 60_000 }, (_kind, make) => {
  it('runs the entry again until it gets through, keeps the thread’s order, and tells the outage once', async () => {
    const { inbox, logs } = await make({ retryAttempts: 5 });
    const runs: string[] = [];
    let storageDown = 3; // the first entry's first three runs fail
    inbox.deliver('test', async (d) => {
      runs.push(`${d.entry.id}#${d.attempt}${d.canRetry ? '' : '!'}`);
      if (d.entry.id === 'a' && storageDown-- > 0) throw new RetryLaterError('unavailable');
    });
    await inbox.start();
    for (const id of ['a', 'b', 'c']) expect(await inbox.add(entry(id, 'one-thread'))).toBe('added');
    expect(await inbox.add(entry('x', 'other-thread'))).toBe('added');
    await until(() => runs.filter((r) => !r.startsWith('x')).length === 6, 'every run');
    await inboxIdle(inbox);
    const thread = runs.filter((r) => !r.startsWith('x')).map((r) => r.split('#')[0]);
    // a, a, a, a (three failed runs, then through), then b and c behind it, never before.
    expect(thread).toEqual(['a', 'a', 'a', 'a', 'b', 'c']);
    expect(runs.filter((r) => r.startsWith('x'))).toHaveLength(1);
    expect(runs.every((r) => !r.endsWith('!'))).toBe(true);
    const warns = logs.lines.filter((l) => l.level === 40 && String(l.msg).includes('cannot reach Redis or Postgres'));
    expect(warns).toHaveLength(1);
    const back = logs.lines.filter((l) => l.level === 30 && String(l.msg).includes('reach Redis and Postgres again'));
    expect(back).toHaveLength(1);
    expect(back[0]).toMatchObject({ turns: 1 });
    expect(logs.lines.filter((l) => Number(l.level) >= 50)).toEqual([]);
  });

  it('says on the last try that no retry is left, and then does not run it again', async () => {
    const { inbox, logs } = await make({ retryAttempts: 1 });
    const runs: { attempt: number; canRetry: boolean | undefined }[] = [];
    inbox.deliver('test', async (d) => {
      runs.push({ attempt: d.attempt, canRetry: d.canRetry });
      // As a delivery does: retry while it may, tell the user (here: return) on the last try.
      if (d.canRetry) throw new RetryLaterError('unavailable');
    });
    await inbox.start();
    await inbox.add(entry('z', 'spent'));
    await until(() => runs.length === 2, 'two runs');
    await inboxIdle(inbox);
    expect(runs.map((r) => r.canRetry)).toEqual([true, false]);
    expect(runs[1]!.attempt).toBeGreaterThan(runs[0]!.attempt);
    expect(logs.lines.filter((l) => Number(l.level) >= 50)).toEqual([]);
  });
});

describe('the retry schedule', () => {
  it('doubles from half a second up to the cap; the defaults ride out a minute', () => {
    const waits = Array.from({ length: 6 }, (_, i) => retryDelayMs(i + 1, 15_000));
    expect(waits[0]).toBeGreaterThanOrEqual(450);
    expect(waits[0]).toBeLessThanOrEqual(550);
    expect(waits[4]).toBeGreaterThanOrEqual(7_200);
    expect(waits[5]).toBeLessThanOrEqual(15_000);
    expect(retryBudgetMs(10, 15_000)).toBeGreaterThan(60_000);
    expect(retryDelayMs(3, 20)).toBeLessThanOrEqual(20);
  });
});

describe('the outage line', () => {
  it('forgets an entry that waited here but ran elsewhere, so the next outage is told too', () => {
    const { log, logs } = captureLogs('info');
    const outage = createOutageLog(log, { retryAttempts: 10, retryMaxMs: 15_000 });
    const said = () => logs.lines.map((l) => `${String(l.level)} ${String(l.msg).slice(0, 24)}`);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      outage.waiting('a', 1);
      outage.waiting('b', 1);
      outage.waiting('a', 2);
      expect(said()).toEqual(['40 turns cannot reach Redis']);
      // 'a' and 'b' ran on another replica; a minute later another outage begins.
      vi.advanceTimersByTime(61_000);
      outage.waiting('c', 1);
      outage.ended('c', true);
      expect(said()).toEqual([
        '40 turns cannot reach Redis',
        '40 turns cannot reach Redis',
        '30 turns reach Redis and Po',
      ]);
      expect(logs.lines.at(-1)).toMatchObject({ turns: 1 });
    } finally {
      vi.useRealTimers();
    }
  });
});
