/**
 * Toolsets per tenant (issue 28), through the real app on both demo tenants: the families a
 * tenant has on are the only tools offered; a tool of a family that is off refuses when the
 * model calls it anyway; `npm run tenants -- tools` changes a tenant's families (and `auto`
 * gives it those it has data for). On PGlite and on Postgres.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { OfferContext } from '../../src/contract/tool.js';
import { createTerminalSession } from '../../src/adapters/terminal/session.js';
import { createHttpApp } from '../../src/adapters/http/app.js';
import { tenantsCommand } from '../../src/data/cli/tenants.js';
import { importRows } from '../../src/data/import/run.js';
import type { AdminDataPort, Tenant } from '../../src/data/index.js';
import { tenantListRow } from '../../src/data/rows.js';
import { createToolsets } from '../../src/tools/toolsets.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { openPgliteTestPort, openPostgresTestPort, TEST_DATABASE_URL } from '../helpers/db.js';
import { collect, message, replyOf, sentToolNames, startHarness, type Harness } from '../helpers/harness.js';
import { toolResults } from './business/fixtures.js';
import { TEST_ADMIN_TOKEN } from '../helpers/tokens.js';

const MARKETING = [
  'full_text_search',
  'semantic_search',
  'filter_campaigns',
  'aggregate_campaigns',
  'lookup_competitor',
  'start_quote',
  'web_search',
  'generate_artifact',
];
const CLINIC = [
  'get_business_services',
  'get_working_hours',
  'get_availability',
  'get_policies',
  'get_faqs',
  'get_latest_booking',
  'get_booking_by_id',
  'take_message',
];

defineToolsetTests('toolsets per tenant on PGlite', async () => {
  const port = await openPgliteTestPort();
  return { port, close: () => port.close() };
});
describe.skipIf(!TEST_DATABASE_URL)('on Postgres', () => {
  defineToolsetTests('toolsets per tenant on Postgres', async () => {
    const { port, db } = await openPostgresTestPort();
    return { port, close: async () => (await port.close(), await db.drop()) };
  });
});

function defineToolsetTests(label: string, open: () => Promise<{ port: AdminDataPort; close(): Promise<void> }>) {
  describe(label, () => {
    let port: AdminDataPort;
    let closePort: () => Promise<void>;
    let llm: FakeOpenAI;
    let h: Harness;
    let n = 0;
    const thread = () => `toolsets-${++n}`;
    const cli = async (...argv: string[]) => {
      const lines: string[] = [];
      const code = await tenantsCommand(port, argv, (l) => lines.push(l));
      return { code, out: lines.join('\n') };
    };
    /** The tools the model was offered on the first step of one turn as `workspaceId`. */
    const offeredTo = async (workspaceId: string) => {
      const seen = llm.requestsTo('/chat/completions').length;
      llm.script({ text: 'ok' });
      await collect(h.sb.agent.handle(message('What can you do?', { workspaceId, threadId: thread() })));
      return sentToolNames(llm.requestsTo('/chat/completions')[seen]!.body);
    };

    beforeAll(async () => {
      ({ port, close: closePort } = await open());
      llm = await startFakeOpenAI();
      // A deployment with web search and images configured: the tenants' families decide what each gets.
      h = await startHarness({ llm, data: port, env: { TAVILY_API_KEY: 'tvly-test', IMAGE_MODEL: 'gpt-image-1' } });
    });
    afterAll(async () => {
      await h?.close();
      await llm?.close();
      await closePort?.();
    });
    beforeEach(() => llm.reset());

    it('offers the marketing team its tools and the clinic its own, nothing of the other', async () => {
      const marketing = await offeredTo('default');
      expect([...marketing].sort()).toEqual([...MARKETING].sort());
      const clinic = await offeredTo('harbourside');
      expect([...clinic].sort()).toEqual([...CLINIC].sort());
    });

    it('the console talks to the clinic with `--tenant harbourside` (its console workspace)', async () => {
      const written: string[] = [];
      const session = createTerminalSession(
        h.sb.agent,
        { write: (t) => written.push(t) },
        { filesDir: '.data/test-files', workspaceId: 'harbourside' },
      );
      llm.script({ text: 'We open at 7.' });
      await session.send('When do you open?');
      expect(written.join('')).toContain('We open at 7.');
      const [first] = llm.requestsTo('/chat/completions');
      expect([...sentToolNames(first!.body)].sort()).toEqual([...CLINIC].sort());
      expect(JSON.stringify(first!.body.messages)).toContain(
        'You are Switchboard, the team assistant for Harbourside Physio, replying in a chat window.',
      );
    });

    it('refuses a tool of a family that is off when the model calls it anyway, with a log line', async () => {
      llm.script({ toolCalls: [{ name: 'get_policies', arguments: { topic: 'cancellation' } }] }, { text: 'Sorry.' });
      const events = await collect(h.sb.agent.handle(message('Cancellation policy?', { threadId: thread() })));
      const [, second] = llm.requestsTo('/chat/completions');
      expect(toolResults(second).at(-1)).toBe(
        'Error: get_policies is not available in this workspace (its business tools are turned off). Do not call it again; answer without it.',
      );
      const done = events.find((e) => e.type === 'done');
      expect(done?.type === 'done' && done.toolCalls[0]).toMatchObject({
        tool: 'get_policies',
        ok: false,
        error: { code: 'tool_disabled' },
      });
      expect(h.logs.lines).toContainEqual(
        expect.objectContaining({
          tool: 'get_policies',
          family: 'business',
          tenant: 'default',
          msg: 'model called a tool whose family is off for this tenant; refused',
        }),
      );
    });

    it('answers a command of a family that is off without the model', async () => {
      const events = await collect(
        h.sb.agent.handle(
          message('/quote', {
            workspaceId: 'harbourside',
            threadId: thread(),
            command: { name: 'quote', options: { step: 'calc', text: '3 boxes' } },
          }),
        ),
      );
      expect(replyOf(events)?.text).toBe('That is not turned on for this workspace (its quotes tools are off).');
      expect(llm.requestsTo('/chat/completions')).toHaveLength(0);
    });

    it('`npm run tenants -- tools` sets a tenant’s families, `auto` gives it what it has data for', async () => {
      expect((await cli('list')).out).toMatch(/default \(default\)\s+Demo marketing team\s+artifacts,campaigns,/);
      expect(await cli('tools', 'harbourside', 'business,web')).toEqual({
        code: 0,
        out: 'Tenant harbourside now has the tool families: business, web.\nRunning bots see the change within 10 seconds.',
      });
      expect([...(await offeredTo('harbourside'))].sort()).toEqual([...CLINIC, 'web_search'].sort());

      expect((await cli('tools', 'harbourside', 'auto')).code).toBe(0);
      expect((await cli('list')).out).toMatch(/harbourside\s+Harbourside Physio\s+auto/);
      // Automatic: business (it has a business), and the families that need no data of its own.
      expect([...(await offeredTo('harbourside'))].sort()).toEqual(
        [...CLINIC, 'web_search', 'generate_image', 'generate_artifact'].sort(),
      );

      expect(await cli('tools', 'harbourside', 'business,bookings')).toEqual({
        code: 2,
        out: 'Cannot set the tools of harbourside: unknown tool family bookings; use auto, none or a comma list of campaigns, competitors, quotes, business, web, images, artifacts, memory.',
      });
      expect((await cli('tools', 'harbourside', 'business')).code).toBe(0);
    });

    it('the admin API sets a tenant’s families (ADMIN_TOKEN), and refuses unknown families and tenants', async () => {
      const app = createHttpApp({ agent: h.sb.agent, log: h.sb.log, data: port, adminToken: TEST_ADMIN_TOKEN });
      const put = (slug: string, body: unknown, token = TEST_ADMIN_TOKEN) =>
        app.request(`/tts_admin/tenants/${slug}/tools`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify(body),
        });
      expect((await put('harbourside', { tools: ['web'] }, 'wrong')).status).toBe(401);
      const set = await put('harbourside', { tools: ['web', 'business'] });
      expect({ status: set.status, body: await set.json() }).toEqual({
        status: 200,
        body: { status: 'ok', tenant: 'harbourside', tools: ['business', 'web'] },
      });
      expect([...(await offeredTo('harbourside'))].sort()).toEqual([...CLINIC, 'web_search'].sort());
      const bad = await put('harbourside', { tools: ['bookings'] });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('validation_failed');
      expect((await put('nobody', { tools: null })).status).toBe(404);
      const listed = await app.request('/tts_admin/tenants', {
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      });
      expect(((await listed.json()) as { tenants: unknown[] }).tenants).toContainEqual({
        slug: 'harbourside',
        name: 'Harbourside Physio',
        is_default: false,
        tools: ['business', 'web'],
      });
      expect((await put('harbourside', { tools: ['business'] })).status).toBe(200);
    });

    it('an automatic tenant without data gets no campaign, quote, competitor or business tools', async () => {
      const owner = await port.defaultTenant();
      await importRows(port, 'tenants', owner.id, [{ slug: 'empty-co', name: 'Empty Co' }]);
      const id = (await port.admin('list_tenants', {}, tenantListRow)).find((t) => t.slug === 'empty-co')!.id;
      await importRows(port, 'tenant_workspaces', id, [{ platform: 'http', workspace_id: 'empty-co' }]);
      expect([...(await offeredTo('empty-co'))].sort()).toEqual(['generate_artifact', 'generate_image', 'web_search']);
    });
  });
}

describe('the automatic toolset is cached per tenant', () => {
  it('reads a tenant’s data families once per TTL, however many steps ask; a named setting needs no read', async () => {
    let reads = 0;
    const ctx = (tenant: Partial<Tenant>) =>
      ({
        tenant: { id: 't1', name: 'T', settings: {}, isDefault: false, ...tenant },
        data: {
          kind: 'pglite',
          vectorsAvailable: false,
          call: async () => (reads++, [{ family: 'campaigns' }]),
        },
      }) as unknown as OfferContext;
    const toolsets = createToolsets({ ttlMs: 60_000 });
    const sets = await Promise.all(Array.from({ length: 20 }, () => toolsets.enabled(ctx({}))));
    expect(reads).toBe(1);
    expect([...sets[0]!].sort()).toEqual(['artifacts', 'campaigns', 'images', 'memory', 'web']);
    expect([...(await toolsets.enabled(ctx({ settings: { tools: ['business', 'nonsense'] } })))]).toEqual(['business']);
    expect(reads).toBe(1);
    toolsets.invalidate('t1');
    await toolsets.enabled(ctx({}));
    expect(reads).toBe(2);
  });
});
