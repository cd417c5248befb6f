/**
 * Issue 41, item 1: a turn that has answered stays answered. Redis (the thread state's store) dies
 * while the model writes the answer: the reply is out, then the state's save fails. The user sees
 * the answer and no error after it; the failure is one error line with the thread key, after the
 * save was retried. The Redis is the test's own (it is stopped), never the machine's.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../../src/adapters/http/app.js';
import { startHttpServer, type RunningServer } from '../../src/adapters/http/server.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { collect, message, startHarness, type Harness } from '../helpers/harness.js';
import { canRunRedisServer, startOwnRedis, type OwnRedis } from '../helpers/redis-server.js';

const runnable = canRunRedisServer();
if (!runnable) console.warn('[answered-stays-answered.test] redis-server is not on the PATH: SKIPPED');

const TOKEN = 'answered-stays-answered-token';

describe.skipIf(!runnable)('a turn whose state cannot be saved after its reply', () => {
  let redis: OwnRedis;
  let llm: FakeOpenAI;
  let h: Harness;
  let server: RunningServer;
  let redisDown = false;

  beforeAll(async () => {
    redis = await startOwnRedis();
    llm = await startFakeOpenAI();
    h = await startHarness({ llm, env: { REDIS_URL: redis.url, INBOX_QUEUE: `asa${Date.now()}` } });
    const app = createHttpApp({ agent: h.sb.agent, log: h.sb.log, apiToken: TOKEN, health: () => ({}) });
    server = await startHttpServer(app, 0, '127.0.0.1');
  });
  afterAll(async () => {
    await server?.close();
    if (redisDown) await redis.start();
    await h?.close();
    await llm?.close();
    await redis?.stop();
  });
  beforeEach(async () => {
    // Each test kills Redis mid-turn; the next one starts with it back and the app reconnected.
    if (redisDown) await redis.start();
    redisDown = false;
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
    h.logs.lines.length = 0;
  });

  /** The model's answer, given only once Redis is gone: every write after the reply fails. */
  const answerWithRedisGone = (text: string) =>
    llm.script(async () => {
      await redis.stop();
      redisDown = true;
      return { text };
    });

  const saveFailures = () => h.logs.lines.filter((l) => l.event === 'thread_state_save_failed');

  it('ends with the reply and done, no error, and one error line with the thread key', async () => {
    const threadId = `t-${randomUUID()}`;
    answerWithRedisGone('The answer.');
    const events = await collect(h.sb.agent.handle(message('a question', { threadId })));

    const types = events.map((e) => e.type);
    expect(types).toContain('reply');
    expect(types.at(-1)).toBe('done');
    expect(types).not.toContain('error');
    const failures = saveFailures();
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ level: 50, attempts: 3 });
    expect(String(failures[0]!.thread)).toContain(threadId);
    // No text of the turn in the line.
    expect(JSON.stringify(failures[0])).not.toContain('a question');
    expect(JSON.stringify(failures[0])).not.toContain('The answer.');
  });

  it('streams over SSE: the reply, then done, and no error event after it', async () => {
    answerWithRedisGone('Streamed answer.');
    const res = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, accept: 'text/event-stream' },
      body: JSON.stringify({ message: 'another question', userId: 'u-7' }),
    });
    const names = [...(await res.text()).matchAll(/^event: (.*)$/gm)].map((m) => m[1]);
    expect(names).toContain('reply');
    expect(names.at(-1)).toBe('done');
    expect(names).not.toContain('error');
    expect(saveFailures()).toHaveLength(1);
  });

  it('answers the JSON request with 200 and the reply', async () => {
    answerWithRedisGone('JSON answer.');
    const res = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ message: 'a third question', userId: 'u-8' }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ response: 'JSON answer.' });
    expect(saveFailures()).toHaveLength(1);
  });
});
