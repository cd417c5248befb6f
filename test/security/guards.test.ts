/**
 * Guards of the security issue: prototype keys in tool arguments are a
 * validation error the model can fix (the tool never runs with a smuggled value), action ids
 * and command names resolve only to registered handlers, and /api/* bodies over 1 MB are
 * refused before they are read. Driven through the real app over HTTP and the fake LLM.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHttpApp } from '../../src/adapters/http/app.js';
import { parseArguments } from '../../src/agent/registry.js';
import { defineTool } from '../../src/contract/tool.js';
import { collect, message, sentMessages, startHarness, type Harness } from '../helpers/harness.js';
import { peer } from '../helpers/peer.js';

const ran: unknown[] = [];
const greet = defineTool({
  name: 'greet',
  title: 'Greeting',
  description: 'Greets someone.',
  input: z.object({ name: z.string().optional(), admin: z.boolean().optional() }),
  async run(input) {
    ran.push(input);
    return { content: `Hello ${input.name ?? 'there'}${input.admin ? ' (admin)' : ''}` };
  },
});

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ tools: [greet] });
});
afterAll(() => h.close());
beforeEach(() => {
  h.llm.reset();
  ran.length = 0;
});

const schema = z.object({ name: z.string().optional(), admin: z.boolean().optional() });

describe('prototype keys in tool arguments', () => {
  it.each([
    ['{"__proto__": {"admin": true}}', '__proto__'],
    ['{"name": "x", "constructor": {"prototype": {"admin": true}}}', 'constructor'],
    ['{"name": "x", "nested": [{"prototype": 1}]}', 'nested[0].prototype'],
  ])('%s is refused, naming %s', (raw, path) => {
    expect(parseArguments(raw, schema)).toEqual({
      ok: false,
      error: expect.stringContaining(`${path}: this key name is not allowed`),
    });
  });

  it('a smuggled __proto__ never reaches the tool: the model gets a fixable error and the retry runs clean', async () => {
    h.llm.script(
      { toolCalls: [{ name: 'greet', arguments: '{"__proto__": {"admin": true}, "name": "Eve"}' }] },
      { toolCalls: [{ name: 'greet', arguments: { name: 'Eve' } }] },
      { text: 'Greeted Eve.' },
    );
    await collect(h.sb.agent.handle(message('greet Eve')));
    expect(ran).toEqual([{ name: 'Eve' }]);
    const second = sentMessages(h.llm.requestsTo('/chat/completions')[1]!.body);
    expect(second.find((m) => m.role === 'tool')?.content).toMatch(/__proto__: this key name is not allowed/);
  });
});

describe('action ids and command names', () => {
  const app = () => createHttpApp({ agent: h.sb.agent, log: h.sb.log });
  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty.x'])(
    'unknown action %s answers 400 with a clear message, not 500',
    async (id) => {
      const res = await app().request(
        '/api/chat',
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ action: { id } }),
        },
        peer(),
      );
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error: { code: 'bad_request', message: expect.stringMatching(/no longer available/) },
      });
    },
  );

  it.each(['__proto__', 'constructor', 'valueOf'])('the command /%s is unknown, not a crash', async (name) => {
    const events = await collect(h.sb.agent.handle(message('', { command: { name, options: {} } })));
    expect(events.at(-1)).toEqual({ type: 'error', code: 'bad_request', message: `Unknown command /${name}.` });
  });
});

describe('request size', () => {
  it('refuses a body over 1 MB with 413 before parsing it, and still takes a normal one', async () => {
    const app = createHttpApp({ agent: h.sb.agent, log: h.sb.log });
    const huge = JSON.stringify({ message: 'hi', padding: 'x'.repeat(20 * 1024 * 1024) });
    const res = await app.request(
      '/api/chat',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: huge,
      },
      peer(),
    );
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      error: { code: 'payload_too_large', message: 'The request body is larger than 1 MB.' },
    });
    expect(h.llm.requestsTo('/chat/completions')).toHaveLength(0);
    h.llm.script({ text: 'Small is fine.' });
    const ok = await app.request(
      '/api/chat',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'hi' }),
      },
      peer(),
    );
    expect(ok.status).toBe(200);
  });
});

describe('bounded memory', () => {
  it('the in-memory store keeps at most its bound over 50,000 new threads, dropping the least recently used', async () => {
    const { createMemoryKv } = await import('../../src/state/kv.js');
    const { createThreadStore } = await import('../../src/agent/thread-store.js');
    const kv = createMemoryKv(1_000);
    const store = createThreadStore(kv, { ttlMs: 86_400_000 });
    await store.save({ ...(await store.load('thread-keep')), history: [{ role: 'user', content: 'kept' }] });
    for (let i = 0; i < 50_000; i++) {
      if (i % 500 === 0) await store.load('thread-keep'); // used now and then: stays
      await kv.set(`thread:flood-${i}`, { i }, 86_400_000);
    }
    expect(await kv.get('thread:flood-0')).toBeUndefined();
    expect(await kv.get('thread:flood-49999')).toEqual({ i: 49_999 });
    expect((await store.load('thread-keep')).history).toEqual([{ role: 'user', content: 'kept' }]);
    let live = 0;
    for (let i = 0; i < 50_000; i++) if ((await kv.get(`thread:flood-${i}`)) !== undefined) live++;
    expect(live).toBeLessThan(1_000);
  });

  it('a claim expires on time in the bounded store (dedup TTLs still hold)', async () => {
    const { createMemoryKv } = await import('../../src/state/kv.js');
    // The store's clock, moved by hand: the claim holds for its whole TTL and not a moment longer.
    let now = 1_000_000;
    const kv = createMemoryKv(10, () => now);
    expect(await kv.setIfAbsent('claim', 1, 40)).toBe(true);
    expect(await kv.setIfAbsent('claim', 1, 40)).toBe(false);
    now += 40;
    expect(await kv.setIfAbsent('claim', 1, 40)).toBe(false);
    now += 1;
    expect(await kv.setIfAbsent('claim', 1, 40)).toBe(true);
  });
});
