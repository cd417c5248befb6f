/**
 * What an operator scrapes and probes: `/metrics` moving after turns of each kind, and
 * `/readyz` following the database and Redis as they go away and come back. The app runs as
 * `npm start` runs it (`serve()`), against the fake LLM, and Postgres and Redis through
 * loopback proxies the test can cut.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../src/telemetry/logger.js';
import { serve, type Serving } from '../src/wiring/serve.js';
import { startFakeOpenAI, type FakeOpenAI } from './fakes/openai-server.js';
import { postEvent } from './fakes/slack/signing.js';
import { startFakeSlack } from './fakes/slack/web-api.js';
import {
  createTestDatabase,
  migratePostgres,
  TEST_DATABASE_URL,
  TEST_DIMENSIONS,
  type TestDatabase,
} from './helpers/db.js';
import { startTcpProxy, type TcpProxy } from './helpers/tcp-proxy.js';
import { serveConfig } from './helpers/harness.js';
import { testTools } from './helpers/test-tools.js';

const REDIS_URL = process.env.TEST_REDIS_URL;
if (!REDIS_URL || !TEST_DATABASE_URL)
  console.warn('[ops.test] TEST_DATABASE_URL / TEST_REDIS_URL not set: the readiness outage tests are SKIPPED');

/** The Prometheus text format, as a scraper reads it: `name{labels} value` samples. */
function parseExposition(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(\{.*\})?\s+(\S+)$/.exec(line);
    if (!m) throw new Error(`not exposition format: ${line}`);
    samples.set(`${m[1]}${m[2] ?? ''}`, Number(m[3]));
  }
  return samples;
}

async function scrape(url: string): Promise<Map<string, number>> {
  const res = await fetch(`${url}/metrics`);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(await res.text());
}

const chat = (url: string, message: string) =>
  fetch(`${url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message }),
  });

describe('GET /metrics', () => {
  let llm: FakeOpenAI;
  let app: Serving;
  beforeAll(async () => {
    llm = await startFakeOpenAI();
    const config = serveConfig(llm.url, { OPENAI_MODEL: 'gpt-ops' });
    app = await serve(config, silentLogger(), { tools: testTools });
  });
  afterAll(async () => {
    await app.stop();
    await llm.close();
  });

  it('counts turns by outcome, LLM requests, tokens by tenant and tool calls, with process metrics alongside', async () => {
    const before = await scrape(app.url);
    const delta = (after: Map<string, number>, key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
    llm.script(
      {
        toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }],
        usage: { prompt_tokens: 100, completion_tokens: 10 },
      },
      { text: 'Rainy.', usage: { prompt_tokens: 120, completion_tokens: 5 } },
    );
    expect((await chat(app.url, 'weather in Oslo?')).status).toBe(200);
    llm.failNext(1, 500);
    expect((await chat(app.url, 'this one fails')).status).toBe(502);

    const after = await scrape(app.url);
    expect(delta(after, 'switchboard_turns_total{platform="http",outcome="ok"}')).toBe(1);
    expect(delta(after, 'switchboard_turns_total{platform="http",outcome="llm_unavailable"}')).toBe(1);
    expect(delta(after, 'switchboard_turn_duration_seconds_count{platform="http"}')).toBe(2);
    expect(delta(after, 'switchboard_llm_requests_total{model="gpt-ops",outcome="ok"}')).toBe(2);
    expect(delta(after, 'switchboard_llm_requests_total{model="gpt-ops",outcome="server"}')).toBe(1);
    expect(delta(after, 'switchboard_llm_tokens_total{kind="prompt",model="gpt-ops",tenant="default"}')).toBe(220);
    expect(delta(after, 'switchboard_llm_tokens_total{kind="completion",model="gpt-ops",tenant="default"}')).toBe(15);
    expect(delta(after, 'switchboard_tool_calls_total{tool="get_weather",outcome="ok"}')).toBe(1);
    expect(delta(after, 'switchboard_tool_duration_seconds_count{tool="get_weather"}')).toBe(1);
    expect(after.get('switchboard_inbox_pending')).toBe(0);
    expect(after.has('process_cpu_user_seconds_total')).toBe(true);
    expect(after.has('nodejs_eventloop_lag_p99_seconds')).toBe(true);
    // Bounded labels: no user id, message text or thread id anywhere in the exposition.
    const exposition = [...after.keys()].join('\n');
    expect(exposition).not.toMatch(/Oslo|fails/);
    expect(exposition).not.toMatch(/[{,](user|thread|channel|message)\w*=/);
  });

  it('answers /healthz as a liveness check and /readyz on the embedded defaults', async () => {
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${app.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ok: true, checks: { database: 'ok', inbox: 'ok' } });
  });
});

describe('GET /metrics with Slack over HTTP', () => {
  it('counts events recorded and dropped as duplicates, and acks by status', async () => {
    const llm = await startFakeOpenAI();
    const slack = await startFakeSlack({ botUserId: 'U0OPSBOT' });
    const secret = 'ops-signing-secret';
    const config = serveConfig(llm.url, {
      SLACK_BOT_TOKEN: slack.options.botToken,
      SLACK_SIGNING_SECRET: secret,
      SLACK_API_URL: slack.url,
    });
    const app = await serve(config, silentLogger(), { tools: testTools });
    try {
      llm.script({ text: 'Once.' });
      const before = await scrape(app.url);
      const ts = `${1_960_000_000 + Math.floor(Math.random() * 1e6)}.000100`;
      const event = {
        type: 'app_mention',
        user: 'U0HUMAN1',
        ts,
        event_ts: ts,
        text: '<@U0OPSBOT> hi',
        channel: 'C0OPS',
        team: 'T0OPS',
      };
      const body = {
        token: 'x',
        team_id: 'T0OPS',
        api_app_id: 'A0',
        type: 'event_callback',
        event_id: 'Ev0OPS1',
        event_time: 1,
        event,
      };
      expect((await postEvent(`${app.url}/slack/events`, body, { secret })).status).toBe(200);
      expect((await postEvent(`${app.url}/slack/events`, body, { secret, retryNum: 1 })).status).toBe(200);
      expect((await postEvent(`${app.url}/slack/events`, body, { secret: 'forged' })).status).toBe(401);
      await slack.waitFor(() => slack.threadReplies('C0OPS', ts).length === 1, 'the answer');
      const after = await scrape(app.url);
      const delta = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
      expect(delta('switchboard_events_total{platform="slack",result="added"}')).toBe(1);
      expect(delta('switchboard_events_total{platform="slack",result="duplicate"}')).toBe(1);
      expect(delta('switchboard_acks_total{platform="slack",status="200"}')).toBe(2);
      expect(delta('switchboard_acks_total{platform="slack",status="401"}')).toBe(1);
      const ready = await (await fetch(`${app.url}/readyz`)).json();
      expect(ready).toEqual({ ok: true, checks: { database: 'ok', inbox: 'ok', slack: 'ok' } });
    } finally {
      await app.stop();
      await slack.close();
      await llm.close();
    }
  });
});

describe.skipIf(!REDIS_URL || !TEST_DATABASE_URL)('GET /readyz through outages', () => {
  let llm: FakeOpenAI;
  let app: Serving;
  let db: TestDatabase;
  let pgProxy: TcpProxy;
  let redisProxy: TcpProxy;
  beforeAll(async () => {
    llm = await startFakeOpenAI();
    db = await createTestDatabase();
    await migratePostgres(db.url);
    const pgUrl = new URL(db.url);
    pgProxy = await startTcpProxy(Number(pgUrl.port || 5432));
    const redisUrl = new URL(REDIS_URL!);
    redisProxy = await startTcpProxy(Number(redisUrl.port || 6379));
    const config = serveConfig(llm.url, {
      PGLITE_MEMORY: '',
      DATABASE_URL: `postgres://${pgUrl.username}@127.0.0.1:${pgProxy.port}${pgUrl.pathname}`,
      REDIS_URL: redisProxy.url('redis'),
      // Not about persistence (test/redis-persistence.test.ts is): the machine's Redis may run without it.
      REDIS_REQUIRE_PERSISTENCE: 'false',
      INBOX_QUEUE: `ops${Date.now()}`,
      EMBEDDING_DIMENSIONS: String(TEST_DIMENSIONS),
    });
    app = await serve(config, silentLogger(), { tools: testTools });
  }, 60_000);
  afterAll(async () => {
    await app?.stop();
    await Promise.allSettled([pgProxy?.close(), redisProxy?.close(), llm?.close()]);
    await db?.drop();
  });

  const readiness = async () => {
    const res = await fetch(`${app.url}/readyz`);
    return { status: res.status, body: (await res.json()) as { ok: boolean; checks: Record<string, string> } };
  };
  const eventually = async (want: number) => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const r = await readiness();
      if (r.status === want || Date.now() > deadline) return r;
      await new Promise((res) => setTimeout(res, 200));
    }
  };

  it('is 503 naming Redis while Redis is away, and 200 once it is back', async () => {
    expect((await readiness()).status).toBe(200);
    await redisProxy.down();
    const down = await eventually(503);
    expect(down.status).toBe(503);
    expect(down.body.checks.redis).not.toBe('ok');
    expect(down.body.checks.database).toBe('ok');
    await redisProxy.up();
    expect((await eventually(200)).body).toMatchObject({
      ok: true,
      checks: { redis: 'ok', inbox: 'ok', database: 'ok' },
    });
  }, 40_000);

  it('is 503 naming the database while Postgres is away, and 200 once it is back', async () => {
    await pgProxy.down();
    const down = await eventually(503);
    expect(down.body.checks).toMatchObject({ database: expect.not.stringMatching(/^ok$/), redis: 'ok' });
    // No connection string or password in what the probe shows.
    expect(JSON.stringify(down.body)).not.toMatch(/postgres:|127\.0\.0\.1/);
    await pgProxy.up();
    expect((await eventually(200)).status).toBe(200);
  }, 40_000);
});
