import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createThreadStore } from '../../src/agent/thread-store.js';
import { cacheGet, cacheSet, setToolState } from '../../src/contract/thread-state.js';
import { createLogger, silentLogger } from '../../src/telemetry/logger.js';
import { createKv, createMemoryKv, type KvStore } from '../../src/state/kv.js';

const REDIS_URL = process.env.TEST_REDIS_URL;
if (!REDIS_URL)
  console.warn('[thread-store.test] TEST_REDIS_URL is not set: the Redis-backed thread store tests are SKIPPED');
const describeRedis = REDIS_URL ? describe : describe.skip;
const DAY = 86_400_000;

function capturingLogger() {
  const lines: string[] = [];
  return { lines, log: createLogger('warn', { write: (line: string) => void lines.push(line) }) };
}

describe('thread store (memory)', () => {
  it('starts a thread that was never saved', async () => {
    const store = createThreadStore(createMemoryKv(), { ttlMs: DAY });
    const state = await store.load('slack:t1:C1:123.4');
    expect(state).toMatchObject({ key: 'slack:t1:C1:123.4', history: [], tools: {}, cache: {} });
  });

  it('saves history, tool state, mode and live cache entries; stamps updatedAt; prunes expired entries', async () => {
    const clock = { now: 1_700_000_000_000 };
    const store = createThreadStore(createMemoryKv(), { ttlMs: DAY, now: () => clock.now });
    const state = await store.load('k');
    state.history.push({ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' });
    setToolState(state, 'competitors', { fetched: ['acme'] });
    state.mode = { name: 'quote', data: { step: 2 } };
    cacheSet(state, 'fresh', [1, 2], 60_000, clock.now);
    cacheSet(state, 'stale', 'old', 10, clock.now - 1_000);
    await store.save(state);
    expect(state.updatedAt).toBe(new Date(clock.now).toISOString());
    expect(state.cache).not.toHaveProperty('stale');

    const loaded = await store.load('k');
    expect(loaded).toEqual(state);
    expect(cacheGet(loaded, 'fresh', clock.now)).toEqual([1, 2]);
  });

  it('forgets a thread after its TTL', async () => {
    // The clock is moved by hand: a 30 ms TTL on the wall clock expired before the first load
    // on a loaded CI machine.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const store = createThreadStore(createMemoryKv(), { ttlMs: 30_000 });
      const state = await store.load('k');
      state.history.push({ role: 'user', content: 'hi' });
      await store.save(state);
      vi.setSystemTime(Date.now() + 29_000);
      expect((await store.load('k')).history).toHaveLength(1);
      vi.setSystemTime(Date.now() + 2_000);
      expect((await store.load('k')).history).toHaveLength(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('starts afresh, with a warning, when the stored value has the wrong shape', async () => {
    const kv = createMemoryKv();
    const { lines, log } = capturingLogger();
    const store = createThreadStore(kv, { ttlMs: DAY, log });
    for (const bad of [
      'a string',
      42,
      { history: 'nope' },
      { history: [{ content: 'no role' }] },
      { history: [], cache: { x: 1 } },
    ]) {
      await kv.set('thread:k', bad);
      expect(await store.load('k')).toMatchObject({ key: 'k', history: [], tools: {}, cache: {} });
    }
    expect(lines).toHaveLength(5);
    expect(lines[0]).toContain('unexpected shape');
  });

  it('fails the load, rather than pretend the thread is empty, when the store is unavailable', async () => {
    const offline: KvStore = { ...createMemoryKv(), get: () => Promise.reject(new Error('The client is closed')) };
    const store = createThreadStore(offline, { ttlMs: DAY });
    await expect(store.load('k')).rejects.toThrow('The client is closed');
  });

  it('loads an older value that lacks fields added later', async () => {
    const kv = createMemoryKv();
    const store = createThreadStore(kv, { ttlMs: DAY });
    await kv.set('thread:k', { key: 'k', history: [{ role: 'user', content: 'hi' }] });
    const state = await store.load('k');
    expect(state.history).toEqual([{ role: 'user', content: 'hi' }]);
    expect(state.tools).toEqual({});
    expect(state.cache).toEqual({});
    expect(state.updatedAt).toBe(new Date(0).toISOString());
  });
});

describeRedis('thread store (redis)', () => {
  const namespace = `sbtest-store-${randomUUID()}`;
  const opened: KvStore[] = [];
  const open = async () => {
    const kv = await createKv({ REDIS_URL }, silentLogger(), { namespace });
    opened.push(kv);
    return kv;
  };

  afterAll(async () => {
    const cleaner = await open();
    for await (const keys of cleaner.redis!.scanStream({ match: `${namespace}::*`, count: 100 }) as AsyncIterable<
      string[]
    >)
      if (keys.length) await cleaner.redis!.del(...keys);
    await Promise.all(opened.map((kv) => kv.close()));
  });

  it('keeps a thread across a restart (a new store over a new connection)', async () => {
    const first = await open();
    const before = createThreadStore(first, { ttlMs: DAY });
    const state = await before.load('discord:t:C:T');
    state.history.push({ role: 'user', content: 'remember me' });
    setToolState(state, 'campaigns', { last: ['c1'] });
    await before.save(state);
    await first.close();

    const after = createThreadStore(await open(), { ttlMs: DAY });
    expect(await after.load('discord:t:C:T')).toEqual(state);
  });

  it('applies the TTL to the stored key', async () => {
    const kv = await open();
    const store = createThreadStore(kv, { ttlMs: 2 * DAY });
    await store.save(await store.load('ttl'));
    const ttl = await kv.redis!.pttl(`${namespace}::thread:ttl`);
    expect(ttl).toBeGreaterThan(2 * DAY - 60_000);
    expect(ttl).toBeLessThanOrEqual(2 * DAY);
  });

  it('starts afresh when the stored bytes are not JSON', async () => {
    const kv = await open();
    const { lines, log } = capturingLogger();
    const store = createThreadStore(kv, { ttlMs: DAY, log });
    await kv.redis!.set(`${namespace}::thread:corrupt`, '{"value": {"history": [');
    expect(await store.load('corrupt')).toMatchObject({ key: 'corrupt', history: [] });
    expect(lines.join('\n')).toContain('not valid JSON');
  });
});
