/**
 * The thread before a message, in the core (src/agent/thread-context.ts): bounded by messages and
 * tokens with the newest kept, off for the deployment or one tenant, fetched once a turn from the
 * thread's cursor, and kept in the history where the request had it (the cache prefix holds).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fenceThreadContext } from '../../src/agent/thread-context.js';
import type { ThreadContextMessage, ThreadContextSource } from '../../src/contract/thread-context.js';
import { countTokens } from '../../src/contract/tokens.js';
import type { AdminDataPort } from '../../src/data/index.js';
import { tenantThreadContextRow } from '../../src/data/rows.js';
import { tenantsCommand } from '../../src/data/cli/tenants.js';
import { createHttpApp } from '../../src/adapters/http/app.js';
import { tenantsPage } from '../../src/adapters/http/admin-console/pages/tenants.js';
import { TEST_ADMIN_TOKEN } from '../helpers/tokens.js';
import { collect, message, sentMessages, startHarness, type Harness } from '../helpers/harness.js';

const said = (i: number, text = `message number ${i}`): ThreadContextMessage => ({
  id: String(1000 + i),
  author: i % 2 ? 'Ana' : 'Ben',
  at: new Date(Date.UTC(2026, 10, 27, 14, i)).toISOString(),
  text,
});

/** A platform with `messages` in its thread; records each `since` it was asked with. */
function source(messages: ThreadContextMessage[], upTo: string, asked: (string | undefined)[]): ThreadContextSource {
  return {
    upTo,
    async fetch(since) {
      asked.push(since);
      return { messages: messages.filter((m) => since === undefined || Number(m.id) > Number(since)), calls: 1 };
    },
  };
}

describe('bounding and fencing', () => {
  it('keeps the newest THREAD_CONTEXT_MAX_MESSAGES and says how many earlier ones are not shown', () => {
    const out = fenceThreadContext(
      Array.from({ length: 60 }, (_, i) => said(i)),
      { THREAD_CONTEXT_MAX_MESSAGES: 50, THREAD_CONTEXT_MAX_TOKENS: 3_000 },
    );
    const content = String(out.message!.content);
    expect(out).toMatchObject({ shown: 50, omitted: 10, flagged: false });
    expect(content).toContain('[10 earlier messages not shown]\n[2026-11-27 14:10 UTC] Ben: message number 10');
    expect(content).toContain('Ana: message number 59\n</thread_context>');
  });

  it('keeps the newest messages within THREAD_CONTEXT_MAX_TOKENS', () => {
    const long = (i: number) => said(i, `${'figures and more figures '.repeat(40)}#${i}`);
    const out = fenceThreadContext(
      Array.from({ length: 20 }, (_, i) => long(i)),
      { THREAD_CONTEXT_MAX_MESSAGES: 50, THREAD_CONTEXT_MAX_TOKENS: 3_000 },
    );
    const inside = String(out.message!.content).split('<thread_context messages')[1]!;
    expect(out.shown).toBeGreaterThan(3);
    expect(out.shown).toBeLessThan(20);
    expect(out.omitted).toBe(20 - out.shown);
    expect(countTokens(inside)).toBeLessThanOrEqual(3_000 + 40);
    expect(inside).toContain(`#19`);
    expect(inside).toContain(`[${out.omitted} earlier messages not shown]`);
  });
});

describe('through the agent', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('fetches from the cursor once a turn; the next request starts with the one before', async () => {
    const asked: (string | undefined)[] = [];
    const thread = [said(1), said(2)];
    const threadId = 'ctx-cursor';
    h.llm.script({ text: 'First.' }, { text: 'Second.' }, { text: 'Third.' });
    await collect(h.sb.agent.handle(message('summarise', { threadId, threadContext: source(thread, '1003', asked) })));
    await collect(h.sb.agent.handle(message('and?', { threadId, threadContext: source(thread, '1004', asked) })));
    thread.push(said(5, 'a late addition'));
    await collect(h.sb.agent.handle(message('now?', { threadId, threadContext: source(thread, '1006', asked) })));
    expect(asked).toEqual([undefined, '1003', '1004']);
    const [first, second, third] = h.llm.requestsTo('/chat/completions').map((r) => sentMessages(r.body));
    const convo = (m: ReturnType<typeof sentMessages>) => m.filter((x) => x.role !== 'system');
    expect(convo(second!).slice(0, convo(first!).length)).toEqual(convo(first!));
    expect(convo(third!).slice(0, convo(second!).length)).toEqual(convo(second!));
    expect(third!.at(-2)!.content).toMatch(
      /<thread_context messages="1">\n.*Ana: a late addition\n<\/thread_context>$/,
    );
  });

  it('is off for a tenant switched off (CLI, admin API, shown in the console), and for THREAD_CONTEXT=off', async () => {
    const asked: (string | undefined)[] = [];
    const port = h.sb.data as AdminDataPort;
    // As an operator sets it: `npm run tenants -- thread-context default off`.
    const lines: string[] = [];
    expect(await tenantsCommand(port, ['thread-context', 'default', 'off'], (l) => lines.push(l))).toBe(0);
    expect(lines[0]).toBe('Tenant default: the bot no longer reads the thread before a mention.');
    expect(await tenantsCommand(port, ['thread-context', 'default', 'maybe'], () => {})).toBe(2);
    port.forgetTenants?.(); // this replica at once (the admin API does this); others within the tenant cache's 10 s
    try {
      h.llm.script({ text: 'No context.' });
      await collect(
        h.sb.agent.handle(message('hi', { threadId: 'ctx-off', threadContext: source([said(1)], '9', asked) })),
      );
      expect(asked).toEqual([]);
      // The console's Tenants page says so.
      const [listed] = await port.admin('list_tenant_thread_context', {}, tenantThreadContextRow);
      expect(listed).toEqual({ slug: 'default', thread_context: false });
      const page = String(
        await tenantsPage({
          csrf: 'x',
          tenants: [{ slug: 'default', name: 'Default', is_default: true, tools: null }],
          usage: new Map(),
          budgets: {},
          tokens: [],
          requests: [],
          threadContext: { tenants: new Map([['default', false]]), deployment: 'on' },
        }),
      );
      expect(page).toContain('Thread before a mention');
      expect(page).toMatch(/<td[^>]*>off<\/td>/);
    } finally {
      // And back to the deployment's setting through the admin API.
      const app = createHttpApp({ agent: h.sb.agent, log: h.sb.log, data: port, adminToken: TEST_ADMIN_TOKEN });
      const put = (slug: string, body: unknown) =>
        app.request(`/tts_admin/tenants/${slug}/thread-context`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
          body: JSON.stringify(body),
        });
      expect((await put('nobody', { threadContext: false })).status).toBe(404);
      expect((await put('default', { threadContext: 'no' })).status).toBe(400);
      const reset = await put('default', { threadContext: null });
      expect(await reset.json()).toEqual({ status: 'ok', tenant: 'default', threadContext: null });
      port.forgetTenants?.();
    }
    h.llm.script({ text: 'With context.' });
    await collect(
      h.sb.agent.handle(message('hi', { threadId: 'ctx-on', threadContext: source([said(1)], '9', asked) })),
    );
    expect(asked).toEqual([undefined]);
    asked.length = 0;
    const off = await startHarness({ env: { THREAD_CONTEXT: 'off' } });
    try {
      off.llm.script({ text: 'No context.' });
      await collect(
        off.sb.agent.handle(message('hi', { threadId: 'ctx-off', threadContext: source([said(1)], '9', asked) })),
      );
      expect(asked).toEqual([]);
      expect(JSON.stringify(off.llm.lastRequest('/chat/completions')!.body)).not.toContain('thread_context');
    } finally {
      await off.close();
    }
  });
});
