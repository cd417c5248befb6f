/**
 * Issue 41, item 4: a Redis that can lose acked events is called out. The app runs as `npm start`
 * runs it (`serve()`) on a redis-server of the test's own: without persistence, with an evicting
 * policy, with CONFIG refused, and restarted empty (the machine's shared Redis is never touched).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { serve, type Serving } from '../src/wiring/serve.js';
import { startFakeOpenAI, type FakeOpenAI } from './fakes/openai-server.js';
import { captureLogs, serveConfig, type LogCapture } from './helpers/harness.js';
import { canRunRedisServer, startOwnRedis, type OwnRedis } from './helpers/redis-server.js';
import { testTools } from './helpers/test-tools.js';

const runnable = canRunRedisServer();
if (!runnable) console.warn('[redis-persistence.test] redis-server is not on the PATH: these tests are SKIPPED');

// Each test starts the app and a redis-server: generous limits for a busy CI machine.
describe.skipIf(!runnable)('a Redis that can lose acked events', { timeout: 120_000 }, () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const clean of cleanups.splice(0).reverse()) await clean();
  }, 120_000);

  /** The app on a redis-server of its own started with `args`; logs captured at info. */
  async function start(args: string[], env: Record<string, string> = {}) {
    const dir = mkdtempSync(join(tmpdir(), 'sb-redis-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const redis: OwnRedis = await startOwnRedis(['--dir', dir, ...args]);
    cleanups.push(() => redis.stop());
    const llm: FakeOpenAI = await startFakeOpenAI();
    cleanups.push(() => llm.close());
    const { log, logs } = captureLogs('info');
    const app: Serving = await serve(serveConfig(llm.url, { REDIS_URL: redis.url, ...env }), log, {
      tools: testTools,
    });
    cleanups.push(() => app.stop());
    return { redis, app, logs };
  }
  const readyz = async (app: Serving) => {
    const res = await fetch(`${app.url}/readyz`);
    return { status: res.status, body: (await res.json()) as { checks: Record<string, string> } };
  };
  const lines = (logs: LogCapture, level: number, text: string) =>
    logs.lines.filter((l) => l.level === level && String(l.msg).includes(text));

  /** The operator console's Health page, signed in with `ADMIN` as a browser would (cookie, CSRF field). */
  async function consoleHealth(app: Serving): Promise<string> {
    const login = await fetch(`${app.url}/admin/login`);
    const cookies = () =>
      login.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ');
    const csrf = /name="csrf"\s+value="([^"]+)"/.exec(await login.text())?.[1] ?? '';
    const signedIn = await fetch(`${app.url}/admin/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies() },
      body: new URLSearchParams({ token: ADMIN, csrf }).toString(),
    });
    const session = signedIn.headers
      .getSetCookie()
      .find((c) => c.startsWith('sb_admin='))
      ?.split(';')[0];
    expect(session, 'signed in').toBeDefined();
    return (await fetch(`${app.url}/admin/health`, { headers: { cookie: session! } })).text();
  }
  const ADMIN = 'a'.repeat(24) + 'persistence-console-token';

  it('without AOF or RDB: one error line says what can be lost, and /readyz is 503 until it is fixed', async () => {
    const { app, logs, redis } = await start([], { ADMIN_TOKEN: ADMIN });
    const ready = await readyz(app);
    expect(ready.status).toBe(503);
    expect(ready.body.checks.redis_persistence).toMatch(/no persistence \(appendonly no, save ""\)/);
    expect(ready.body.checks.redis_persistence).toContain('REDIS_REQUIRE_PERSISTENCE=false');
    // The console's Health page shows the same check.
    const health = await consoleHealth(app);
    expect(health).toContain('Not ready');
    expect(health).toMatch(/redis_persistence[\s\S]*no persistence \(appendonly no/);
    const said = lines(logs, 50, 'Redis can lose acknowledged events');
    expect(said).toHaveLength(1);
    expect(said[0]!.msg).toContain('a restart loses them');
    // The operator turns AOF on: ready again, without a restart.
    const { Redis } = await import('ioredis');
    const admin = new Redis(redis.url);
    try {
      await admin.config('SET', 'appendonly', 'yes');
      expect((await readyz(app)).status).toBe(200);
    } finally {
      // A redis-server rewriting its AOF when told to stop can outlive the test: off again.
      await admin.config('SET', 'appendonly', 'no');
      await admin.quit();
    }
  });

  it('with an evicting maxmemory-policy (RDB snapshots on): 503 naming the policy', async () => {
    const { app, logs } = await start(['--save', '3600 1', '--maxmemory-policy', 'allkeys-lru']);
    const ready = await readyz(app);
    expect(ready.status).toBe(503);
    expect(ready.body.checks.redis_persistence).toMatch(/^maxmemory-policy allkeys-lru evicts keys/);
    expect(lines(logs, 50, 'maxmemory-policy allkeys-lru')).toHaveLength(1);
  });

  it('REDIS_REQUIRE_PERSISTENCE=false: the error line stays, /readyz is 200', async () => {
    const { app, logs } = await start([], { REDIS_REQUIRE_PERSISTENCE: 'false' });
    const ready = await readyz(app);
    expect(ready.status).toBe(200);
    expect(ready.body.checks.redis_persistence).toBeUndefined();
    expect(lines(logs, 50, 'Redis can lose acknowledged events')).toHaveLength(1);
  });

  it('CONFIG refused (a managed Redis): one warning, unknown is not a failure', async () => {
    const { app, logs } = await start(['--appendonly', 'yes', '--rename-command', 'CONFIG', '']);
    expect((await readyz(app)).status).toBe(200);
    expect(lines(logs, 40, 'Redis refused CONFIG GET')).toHaveLength(1);
  });

  it('a Redis that comes back empty: "Redis lost its data" with the time, and the metric counts it', async () => {
    const { app, logs, redis } = await start([], { REDIS_REQUIRE_PERSISTENCE: 'false' });
    const lost = async () => {
      const text = await (await fetch(`${app.url}/metrics`)).text();
      return Number(/^switchboard_redis_data_lost_total (\S+)$/m.exec(text)?.[1] ?? 'NaN');
    };
    const before = await lost();
    expect(lines(logs, 50, 'Redis lost its data')).toHaveLength(0);
    await redis.stop();
    await redis.start(); // no persistence: it starts empty
    await vi.waitFor(() => expect(lines(logs, 50, 'Redis lost its data')).toHaveLength(1), { timeout: 15_000 });
    expect(lines(logs, 50, 'Redis lost its data')[0]!.msg).toMatch(
      /^Redis lost its data: events acked before \d\d:\d\d:\d\d UTC that were still waiting may be lost$/,
    );
    expect(await lost()).toBe(before + 1);
  });
});
