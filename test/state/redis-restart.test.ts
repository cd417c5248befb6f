/**
 * A Redis restart as the app meets it: the state, the thread lock, the rate limits and the inbox's
 * writes share one connection (src/wiring/app.ts), so once the inbox accepts events again a turn
 * (lock, state load and save, the message limit) runs too. Before, the inbox's client came back
 * first and the next turns failed with "The client is offline" until the state's client followed.
 * The Redis is the test's own (it is stopped), never the machine's.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { collect, errorOf, message, replyOf, startHarness, type Harness } from '../helpers/harness.js';
import { canRunRedisServer, startOwnRedis, type OwnRedis } from '../helpers/redis-server.js';

const runnable = canRunRedisServer();
if (!runnable) console.warn('[redis-restart.test] redis-server is not on the PATH: the restart tests are SKIPPED');

describe.skipIf(!runnable)('a Redis restart', () => {
  let redis: OwnRedis;
  let llm: FakeOpenAI;
  let h: Harness;

  beforeAll(async () => {
    redis = await startOwnRedis();
    llm = await startFakeOpenAI();
    // The message limit on: its counter lives on Redis too.
    h = await startHarness({ llm, env: { REDIS_URL: redis.url, USER_MESSAGES_PER_MINUTE: '100' } });
  });
  afterAll(async () => {
    await h?.close();
    await llm?.close();
    await redis?.stop();
  });

  it('runs the next turn (thread lock, state, limits) as soon as the inbox accepts events again', async () => {
    const threadId = `t-${randomUUID()}`;
    llm.script({ text: 'before the restart' });
    expect(replyOf(await collect(h.sb.agent.handle(message('first', { threadId }))))?.text).toBe('before the restart');

    await redis.stop();
    // Down for 2 s: long enough for a backoff that doubles (node-redis's, to 5 s) to wait past a second
    // for its next try, while a fast one is back within a fraction of one (a setup pause, not an assertion).
    await sleep(2_000);
    await redis.start();

    // The signal: the inbox answers again (an adapter could record an event now).
    await expect
      .poll(
        () =>
          h.sb.inbox.stats().then(
            () => 'up',
            () => 'down',
          ),
        { timeout: 20_000, interval: 20 },
      )
      .toBe('up');

    llm.script({ text: 'after the restart' });
    const events = await collect(h.sb.agent.handle(message('second', { threadId })));
    expect(errorOf(events)).toBeUndefined();
    expect(replyOf(events)?.text).toBe('after the restart');
    // One error line and one restored line for the outage, not one per retry or per client.
    const text = h.logs.text();
    expect(text.match(/Redis connection failed/g)).toHaveLength(1);
    expect(text.match(/Redis connection restored/g)).toHaveLength(1);
  });
});
