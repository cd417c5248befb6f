/**
 * A replica told to stop while its Redis is away stops: BullMQ's own close waits for its blocking
 * client's 'end', which a client parked in "reconnecting" never emits (bullmq#4656). Before the
 * fix, `stop()` never resolved here and the process (a rolling deploy, a CI run) hung.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createRedisInbox } from '../../src/inbox/redis-inbox.js';
import { captureLogs } from '../helpers/harness.js';
import { canRunRedisServer, startOwnRedis, type OwnRedis } from '../helpers/redis-server.js';

const runnable = canRunRedisServer();
if (!runnable) console.warn('[stop-while-away.test] redis-server is not on the PATH: this test is SKIPPED');

describe.skipIf(!runnable)('stopping while Redis is away', () => {
  let redis: OwnRedis | undefined;
  afterEach(async () => {
    await redis?.stop();
  });

  it('stops, says the connections were cut, and leaves the entry to the next lease', async () => {
    redis = await startOwnRedis();
    const { log, logs } = captureLogs('info');
    const inbox = await createRedisInbox(redis.url, log, { prefix: 'sbstop', queue: 'turns', leaseMs: 1_500 });
    const started: string[] = [];
    inbox.deliver('test', async ({ entry }) => {
      started.push(entry.id);
      await new Promise(() => undefined); // a turn that is still running when the stop comes
    });
    await inbox.start();
    await inbox.add({ id: 'e1', platform: 'test', thread: 't1', payload: {}, receivedAt: Date.now() });
    while (started.length === 0) await sleep(20);
    await redis.stop();
    await sleep(300); // the clients are reconnecting now
    await inbox.stop(100);
    const cut = logs.lines.filter((l) => String(l.msg).includes('could not close its Redis connections'));
    expect(cut).toHaveLength(1);
    expect(logs.lines.some((l) => String(l.msg).includes('handed back to the inbox'))).toBe(true);
  });
});
