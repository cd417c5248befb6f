/**
 * Trace continuity across replicas (Redis inbox): an entry's run on another replica continues the
 * trace the entry was recorded in, and a replay (its first run's replica stopped mid-turn) starts a
 * new turn span linked to the dead run's turn span.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncomingMessage } from '../../src/contract/turn.js';
import { instrumentInbox } from '../../src/wiring/instrument.js';
import { startTracing, type Tracing } from '../../src/telemetry/start.js';
import type { Delivery, Inbox } from '../../src/inbox/index.js';
import { createRedisInbox } from '../../src/inbox/redis-inbox.js';
import { startOtlpCollector, type OtlpCollector } from '../fakes/otlp-collector.js';
import { startHarness, type Harness } from '../helpers/harness.js';

const REDIS_URL = process.env.TEST_REDIS_URL;
if (!REDIS_URL) console.warn('[replay-trace.test] TEST_REDIS_URL is not set: the replay trace tests are SKIPPED');

let h: Harness;
let collector: OtlpCollector;
let tracing: Tracing | undefined;
const queue = `q${randomUUID().slice(0, 8)}`;
const opened: Inbox[] = [];

beforeAll(async () => {
  if (!REDIS_URL) return;
  collector = await startOtlpCollector();
  h = await startHarness();
  tracing = await startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url }, h.sb.log);
});
afterAll(async () => {
  if (!REDIS_URL) return;
  await Promise.allSettled(opened.map((i) => i.stop(0)));
  await tracing?.shutdown();
  await h.close();
  await collector.close();
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`sbtest:*${queue}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

async function replica(): Promise<Inbox> {
  const inbox = instrumentInbox(
    await createRedisInbox(REDIS_URL!, h.sb.log, { prefix: 'sbtest', queue, leaseMs: 1_500 }),
  );
  opened.push(inbox);
  return inbox;
}

const message = (text: string): IncomingMessage => ({
  platform: 'http',
  workspaceId: 'default',
  channelId: 'replay-channel',
  threadId: 'replay-thread',
  messageId: 'replay-1',
  userId: 'U-replay',
  role: 'member',
  isDirect: true,
  text,
});

/** What an adapter's delivery does with a turn: run it through the agent to the end. */
async function runTurn(d: Delivery<IncomingMessage>): Promise<void> {
  for await (const event of h.sb.agent.handle(d.entry.payload, d.signal)) void event;
}

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** Flushes until `count` turn spans have reached the collector (a turn ends a moment after its delivery). */
async function turnSpans(count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (collector.spans.filter((s) => s.name === 'invoke_agent switchboard').length < count) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} turn spans`);
    await tracing!.flush();
    await sleep(20);
  }
}

describe.skipIf(!REDIS_URL)('traces across replicas and replays', () => {
  it('a replay continues the entry’s trace and links its turn span to the dead run’s', async () => {
    h.llm.script({ text: 'First run answer.' }, { text: 'Replayed answer.' });
    const first = await replica();
    const attempts: number[] = [];
    first.deliver<IncomingMessage>('http', async (d) => {
      attempts.push(d.attempt);
      await runTurn(d);
      // The replica dies here, after answering and before the entry is marked done.
      await new Promise<void>((resolve) => d.signal.addEventListener('abort', () => resolve()));
    });
    await first.start();
    expect(
      await first.add({
        id: `replayed-${queue}`,
        platform: 'http',
        thread: 'replay-thread',
        payload: message('replay me'),
        receivedAt: Date.now(),
      }),
    ).toBe('added');
    await until(() => attempts.length === 1, 'the first run');
    await turnSpans(1);
    await first.stop(100);

    const second = await replica();
    second.deliver<IncomingMessage>('http', async (d) => {
      attempts.push(d.attempt);
      await runTurn(d);
    });
    await second.start();
    await until(() => attempts.length === 2, 'the replay on the second replica');
    await turnSpans(2);

    expect(attempts).toEqual([1, 2]);
    const add = collector.spans.find((s) => s.name === 'inbox add')!;
    const [dead, replay] = collector.spans.filter((s) => s.name === 'invoke_agent switchboard');
    // Both runs continue the trace the entry was recorded in (its context travelled in Redis).
    expect(dead!.traceId).toBe(add.traceId);
    expect(replay!.traceId).toBe(add.traceId);
    expect(replay!.parentSpanId).toBe(add.spanId);
    expect(dead!.attributes['switchboard.inbox.attempt']).toBe(1);
    expect(replay!.attributes['switchboard.inbox.attempt']).toBe(2);
    expect(dead!.links).toEqual([]);
    expect(replay!.links).toEqual([
      { traceId: dead!.traceId, spanId: dead!.spanId, attributes: { 'switchboard.link': 'previous_run' } },
    ]);
    const waits = collector.spans.filter((s) => s.name === 'inbox wait');
    expect(waits.map((w) => w.attributes['switchboard.inbox.attempt'])).toEqual([1, 2]);
  });
});
