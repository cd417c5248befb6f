import { randomUUID } from 'node:crypto';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { defaultDeserialize, defaultSerialize } from '@keyv/serialize';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger, silentLogger } from '../../src/telemetry/logger.js';
import { createKv, createMemoryKv, describeRedisUrl, MEMORY_KV_MAX_KEYS, type KvStore } from '../../src/state/kv.js';

/** A clock a test moves by hand (lru-cache takes a reading of 0 as "no start time", so it starts later). */
function manualClock() {
  const clock = { ms: 1_000_000, now: () => clock.ms };
  return clock;
}

const REDIS_URL = process.env.TEST_REDIS_URL;
if (!REDIS_URL) console.warn('[kv.test] TEST_REDIS_URL is not set: the Redis-backed kv tests are SKIPPED');
const describeRedis = REDIS_URL ? describe : describe.skip;

describe('memory kv', () => {
  it('is what createKv returns without REDIS_URL', async () => {
    const kv = await createKv({ REDIS_URL: undefined }, silentLogger());
    expect(kv.backend).toBe('memory');
    expect(kv.redis).toBeUndefined();
    await kv.close();
  });

  it('gets, sets, deletes and expires values when its clock passes their TTL', async () => {
    const clock = manualClock();
    const kv = createMemoryKv(MEMORY_KV_MAX_KEYS, clock.now);
    await kv.set('a', { n: 1, list: ['x'] });
    expect(await kv.get('a')).toEqual({ n: 1, list: ['x'] });
    expect(await kv.delete('a')).toBe(true);
    expect(await kv.get('a')).toBeUndefined();

    // Long in real time (keyv also stamps values with Date.now()), so only the injected clock expires it.
    await kv.set('short', 'v', 60_000);
    clock.ms += 60_000;
    expect(await kv.get('short')).toBe('v');
    clock.ms += 1;
    expect(await kv.get('short')).toBeUndefined();
  });

  it('setIfAbsent lets exactly one of 100 concurrent callers win', async () => {
    const kv = createMemoryKv();
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => kv.setIfAbsent('event:1', i, 10_000)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await kv.get('event:1')).toBe(results.indexOf(true));
  });

  it('setIfAbsent respects existing values, deletion and expiry', async () => {
    const clock = manualClock();
    const kv = createMemoryKv(MEMORY_KV_MAX_KEYS, clock.now);
    await kv.set('k', 'taken');
    expect(await kv.setIfAbsent('k', 'mine', 1_000)).toBe(false);
    await kv.delete('k');
    expect(await kv.setIfAbsent('k', 'mine', 60_000)).toBe(true);
    clock.ms += 60_000;
    expect(await kv.setIfAbsent('k', 'early', 1_000)).toBe(false);
    clock.ms += 1;
    expect(await kv.setIfAbsent('k', 'again', 1_000)).toBe(true);
    expect(await kv.get('k')).toBe('again');
  });
});

describe('redis kv: connection failures', () => {
  it('fails at startup with a clear message and never logs the password', async () => {
    const lines: string[] = [];
    const log = createLogger('info', { write: (line: string) => void lines.push(line) });
    // A start that waited for Redis instead of failing would never end: the test's timeout fails it.
    const failure = await createKv({ REDIS_URL: 'redis://user:hunter2-secret@127.0.0.1:1' }, log, {
      connectTimeoutMs: 400,
    }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(Error);
    const message = (failure as Error).message;
    expect(message).toContain('redis://127.0.0.1:1 is unreachable');
    expect(message).toContain('unset REDIS_URL');
    expect(lines.join('\n')).toContain('Redis connection failed');
    expect(`${message}\n${lines.join('\n')}`).not.toContain('hunter2');
  });

  it('describes a URL without its credentials', () => {
    expect(describeRedisUrl('rediss://default:pw@cache.example.com:6380/2')).toBe('rediss://cache.example.com:6380/2');
    expect(describeRedisUrl('redis://localhost')).toBe('redis://localhost:6379');
  });
});

describeRedis('redis kv', () => {
  const namespace = `sbtest-kv-${randomUUID()}`;
  const opened: KvStore[] = [];
  const open = async () => {
    const kv = await createKv({ REDIS_URL }, silentLogger(), { namespace });
    opened.push(kv);
    return kv;
  };

  afterAll(async () => {
    const client = opened[0]?.redis;
    if (client?.status === 'ready') {
      for await (const keys of client.scanStream({ match: `${namespace}::*`, count: 100 }) as AsyncIterable<string[]>)
        if (keys.length) await client.del(...keys);
    }
    await Promise.all(opened.map((kv) => kv.close()));
  });

  it('round-trips values under the namespace with a TTL', async () => {
    const kv = await open();
    expect(kv.backend).toBe('redis');
    await kv.set('thread:a', { history: [{ role: 'user', content: ':colon first' }] }, 60_000);
    expect(await kv.get('thread:a')).toEqual({ history: [{ role: 'user', content: ':colon first' }] });
    const ttl = await kv.redis!.pttl(`${namespace}::thread:a`);
    expect(ttl).toBeGreaterThan(50_000);
    expect(await kv.delete('thread:a')).toBe(true);
    expect(await kv.get('thread:a')).toBeUndefined();
  });

  it('reads and writes keyv’s own format: values stored by keyv’s default serializer, and what plain keyv reads back', async () => {
    const kv = await open();
    const value = {
      history: [
        { role: 'user', content: ':) colon first' },
        { role: 'assistant', content: 'plain' },
      ],
      n: 3,
    };
    // Written as a replica running keyv's default serializer writes it (an older release, mid-deploy).
    await kv.redis!.set(`${namespace}::thread:old`, defaultSerialize({ value, expires: Date.now() + 60_000 }));
    expect(await kv.get('thread:old')).toEqual(value);
    // And what this build writes, read with keyv's default reader.
    await kv.set('thread:new', value, 60_000);
    const raw = await kv.redis!.get(`${namespace}::thread:new`);
    expect((defaultDeserialize(raw!) as { value: unknown }).value).toEqual(value);
    // Without an escaped string, the stored text is plain JSON.
    await kv.set('thread:plain', { a: 'b' }, 60_000);
    expect(JSON.parse((await kv.redis!.get(`${namespace}::thread:plain`))!)).toMatchObject({ value: { a: 'b' } });
  });

  it('setIfAbsent: 100 concurrent calls on one connection, exactly one wins', async () => {
    const kv = await open();
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => kv.setIfAbsent('event:one', { i }, 60_000)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await kv.get('event:one')).toEqual({ i: results.indexOf(true) });
    const ttl = await kv.redis!.pttl(`${namespace}::event:one`);
    expect(ttl).toBeGreaterThan(50_000);
  });

  it('setIfAbsent: 100 concurrent calls split over two connections, exactly one wins', async () => {
    const [a, b] = [await open(), await open()];
    expect(a.redis).not.toBe(b.redis);
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).setIfAbsent('event:two', i, 60_000)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await b.get('event:two')).toBe(results.indexOf(true));
  });

  it('survives an outage: one log line, calls fail fast, service resumes when Redis returns', async () => {
    const proxy = await startProxy(new URL(REDIS_URL!));
    const lines: string[] = [];
    const log = createLogger('info', { write: (line: string) => void lines.push(line) });
    const kv = await createKv({ REDIS_URL: proxy.url }, log, { namespace });
    opened.push(kv);
    await kv.set('outage', 'before');

    await proxy.stop();
    await sleep(600); // several reconnect attempts
    // Fails now, while Redis is still away: a call queued until it returned would never settle here.
    await expect(kv.get('outage')).rejects.toThrow();
    expect(lines.filter((l) => l.includes('Redis connection failed'))).toHaveLength(1);

    await proxy.start();
    await expect
      .poll(() => kv.get('outage').catch(() => 'still down'), { timeout: 10_000, interval: 100 })
      .toBe('before');
    expect(lines.some((l) => l.includes('Redis connection restored'))).toBe(true);
    await kv.close();
    await proxy.stop();
  });

  it('setIfAbsent sees values written by set and frees the key after its TTL', async () => {
    const kv = await open();
    await kv.set('event:three', 'seen');
    expect(await kv.setIfAbsent('event:three', 'again', 1_000)).toBe(false);
    // Redis keeps the clock here: the claim carries a TTL within what was asked, and Redis frees
    // the key once it passes, however long the machine takes (polled, never a fixed sleep).
    expect(await kv.setIfAbsent('event:four', 'first', 300)).toBe(true);
    const ttl = await kv.redis!.pttl(`${namespace}::event:four`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(300);
    await expect
      .poll(() => kv.setIfAbsent('event:four', 'second', 60_000), { timeout: 10_000, interval: 50 })
      .toBe(true);
    expect(await kv.setIfAbsent('event:four', 'third', 60_000)).toBe(false);
  });
});

/** A TCP proxy in front of the real Redis that can be stopped and started, to play an outage. */
async function startProxy(target: URL) {
  const sockets = new Set<Socket>();
  const server = createServer((inbound) => {
    const outbound = connect(Number(target.port || 6379), target.hostname);
    inbound.pipe(outbound).pipe(inbound);
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on('error', () => socket.destroy());
      socket.on('close', () => {
        sockets.delete(socket);
        inbound.destroy();
        outbound.destroy();
      });
    }
  });
  let port = 0;
  const start = () =>
    new Promise<void>((resolve) =>
      server.listen(port, '127.0.0.1', () => {
        port = (server.address() as AddressInfo).port;
        resolve();
      }),
    );
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    start,
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed.catch(() => undefined);
    },
  };
}
