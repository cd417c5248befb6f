import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AdminDataPort } from '../../../src/data/index.js';
import { competitorRow } from '../../../src/data/rows.js';
import type { ToolSpec } from '../../../src/contract/llm.js';
import { newThreadState } from '../../../src/contract/thread-state.js';
import { silentLogger } from '../../../src/telemetry/logger.js';
import { createCompetitorTools } from '../../../src/tools/competitors/index.js';
import { storeFetchedCompetitor } from '../../../src/tools/competitors/state.js';
import { createToolRegistry, toolSpec } from '../../../src/agent/registry.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.js';
import { openPgliteTestPort, testConfig } from '../../helpers/db.js';
import {
  captureLogs,
  collect,
  message,
  replyOf,
  sentToolNames,
  startHarness,
  type Harness,
} from '../../helpers/harness.js';
import { geminiViolations, openAiStrictViolations } from '../../helpers/schema-rules.js';
import { addTenant, deleteCompetitor, offeredIds, systemText, toolResults } from './fixtures.js';

let port: AdminDataPort;
let llm: FakeOpenAI;
let h: Harness;
let descriptions: Record<string, string>;
const few = { id: '', workspace: '' };
const none = { id: '', workspace: '' };
const doomed = { id: '', workspace: '' };

let n = 0;
const thread = () => `competitors-${++n}`;
const chat = () => llm.requestsTo('/chat/completions');

beforeAll(async () => {
  port = await openPgliteTestPort();
  llm = await startFakeOpenAI();
  Object.assign(
    few,
    await addTenant(port, 'few-rivals', [
      { key: 'alpha', display_name: 'Alpha Power', full_description: 'ALPHA briefing: cheap but slow service.' },
      { key: 'beta', display_name: 'Beta Energi', full_description: 'BETA briefing: green but pricey.' },
    ]),
  );
  Object.assign(none, await addTenant(port, 'no-rivals', []));
  Object.assign(
    doomed,
    await addTenant(port, 'doomed-rivals', [
      { key: 'doomed', display_name: 'Doomed Co', full_description: 'DOOMED briefing.' },
      { key: 'stays', display_name: 'Stays Co', full_description: 'STAYS briefing.' },
    ]),
  );
  const tenant = await port.defaultTenant();
  descriptions = {};
  for (const key of ['norlys', 'ewii']) {
    const [row] = await port.call('get_competitor', { tenant_id: tenant.id, key }, competitorRow);
    descriptions[key] = row?.full_description ?? '';
  }
  h = await startHarness({ llm, data: port, ...createCompetitorTools(testConfig()) });
});
afterAll(async () => {
  await h.close();
  await llm.close();
  await port.close();
});
beforeEach(() => llm.reset());

describe('lookup_competitor', () => {
  it('is not offered to a tenant without competitors', async () => {
    llm.script({ text: 'No competitors here.' });
    await collect(
      h.sb.agent.handle(
        message('How do we compare with Norlys?', {
          platform: 'slack',
          workspaceId: none.workspace,
          threadId: thread(),
        }),
      ),
    );
    expect(sentToolNames(chat()[0]!.body)).not.toContain('lookup_competitor');
    expect(h.logs.text()).toMatch(/Fetched 0 competitor IDs in \d+ms/);
  });

  it('offers only unfetched ids, shrinking the enum each fetch until the tool disappears', async () => {
    const threadId = thread();
    const where = { platform: 'slack' as const, workspaceId: few.workspace, threadId };
    llm.script(
      { toolCalls: [{ name: 'lookup_competitor', arguments: { competitor_id: 'alpha' } }] },
      { text: 'Alpha noted.' },
    );
    await collect(h.sb.agent.handle(message('A customer is with Alpha Power.', where)));
    llm.script(
      { toolCalls: [{ name: 'lookup_competitor', arguments: { competitor_id: 'beta' } }] },
      { text: 'Beta noted.' },
    );
    await collect(h.sb.agent.handle(message('Another one uses Beta Energi.', where)));
    llm.script({ text: 'Both are covered.' });
    await collect(h.sb.agent.handle(message('Summarise.', where)));

    const [t1s1, t1s2, t2s1, t2s2, t3s1] = chat();
    expect(offeredIds(t1s1)).toEqual(['alpha', 'beta']);
    expect(offeredIds(t1s2)).toEqual(['beta']);
    expect(offeredIds(t2s1)).toEqual(['beta']);
    expect(sentToolNames(t2s2!.body)).not.toContain('lookup_competitor');
    expect(sentToolNames(t3s1!.body)).not.toContain('lookup_competitor');
    expect(systemText(t3s1)).toContain('ALPHA briefing');
    expect(systemText(t3s1)).toContain('BETA briefing');
    // The ids were loaded once for the tenant, not on every step.
    expect(h.logs.text().match(/Fetched 2 competitor IDs in \d+ms/g)).toHaveLength(1);
  });

  it('answers the model with one line and shows the verbatim background in the next step and as a card', async () => {
    const threadId = thread();
    llm.script(
      { toolCalls: [{ name: 'lookup_competitor', arguments: { competitor_id: 'norlys' } }] },
      { text: 'Against Norlys, stress local service.' },
    );
    const events = await collect(h.sb.agent.handle(message('The customer says Norlys is cheaper.', { threadId })));

    const [step1, step2] = chat();
    expect(offeredIds(step1)).toContain('norlys');
    expect(offeredIds(step1)).toHaveLength(14);
    expect(systemText(step1)).not.toContain('competitor briefing');
    expect(toolResults(step2)).toEqual(['Added competitor background for Norlys']);
    expect(systemText(step2)).toContain(descriptions.norlys);
    // Only the fetched one: no other description rides along.
    expect(systemText(step2)).not.toContain(descriptions.ewii);
    expect(systemText(step2).match(/<competitor name=/g)).toHaveLength(1);
    expect(offeredIds(step2)).not.toContain('norlys');

    const reply = replyOf(events);
    expect(reply?.blocks).toEqual([
      {
        type: 'cards',
        cards: [{ title: 'Norlys', subtitle: 'Competitor background', fields: [], body: descriptions.norlys }],
      },
    ]);
    const chars = new Intl.NumberFormat('en-US').format(descriptions.norlys!.length);
    expect(h.logs.text()).toMatch(new RegExp(`Fetched competitor 'norlys' in \\d+ms \\(${chars} chars\\)`));
    expect(h.logs.text()).toMatch(/Fetched 14 competitor IDs in \d+ms/);

    // The next turn of the thread still has it.
    llm.script({ text: 'Yes, as above.' });
    await collect(h.sb.agent.handle(message('Remind me?', { threadId })));
    expect(systemText(chat()[2])).toContain(descriptions.norlys);
  });

  it('keeps fetched backgrounds per thread', async () => {
    const first = thread();
    llm.script({ toolCalls: [{ name: 'lookup_competitor', arguments: { competitor_id: 'ewii' } }] }, { text: 'ok' });
    await collect(h.sb.agent.handle(message('They mentioned EWII.', { threadId: first })));
    llm.script({ text: 'Which competitor?' });
    await collect(h.sb.agent.handle(message('Tell me about our competitors.', { threadId: thread() })));
    const other = chat()[2];
    expect(offeredIds(other)).toContain('ewii');
    expect(systemText(other)).not.toContain(descriptions.ewii);
  });

  it('sends unknown and already-fetched ids back to the model as fixable errors', async () => {
    const threadId = thread();
    llm.script(
      { toolCalls: [{ name: 'lookup_competitor', arguments: { competitor_id: 'statoil' } }] },
      {
        toolCalls: [
          { name: 'lookup_competitor', arguments: { competitor_id: 'norlys' } },
          { name: 'lookup_competitor', arguments: { competitor_id: 'norlys' } },
        ],
      },
      { text: 'done' },
    );
    const events = await collect(h.sb.agent.handle(message('Statoil and Norlys?', { threadId })));
    const reqs = chat();
    expect(toolResults(reqs[1])).toEqual([
      expect.stringMatching(
        /^Error: Invalid arguments: competitor_id: Unknown or already fetched competitor id\. Use one of: .*norlys/,
      ),
    ]);
    expect(toolResults(reqs[2]).slice(1)).toEqual([
      'Added competitor background for Norlys',
      expect.stringMatching(/^Error: .*Norlys is already (being added|in your context)/),
    ]);
    expect(replyOf(events)?.blocks).toHaveLength(1);

    // A later turn asking again for what the thread already has.
    llm.script(
      { toolCalls: [{ name: 'lookup_competitor', arguments: { competitor_id: 'norlys' } }] },
      { text: 'done' },
    );
    await collect(h.sb.agent.handle(message('Norlys again?', { threadId })));
    expect(toolResults(chat().at(-1)).at(-1)).toMatch(
      /^Error: Invalid arguments: competitor_id: Unknown or already fetched/,
    );
  });

  it('says clearly when a competitor was deleted after its id was loaded', async () => {
    const threadId = thread();
    const where = { platform: 'slack' as const, workspaceId: doomed.workspace, threadId };
    llm.script({ text: 'Which one?' });
    await collect(h.sb.agent.handle(message('Competitors?', where)));
    expect(offeredIds(chat()[0])).toEqual(['doomed', 'stays']);

    await deleteCompetitor(port, doomed.id, 'doomed');
    llm.script(
      { toolCalls: [{ name: 'lookup_competitor', arguments: { competitor_id: 'doomed' } }] },
      { text: 'Doomed Co is no longer tracked.' },
    );
    const events = await collect(h.sb.agent.handle(message('They use Doomed Co.', where)));
    const [, , afterFetch] = chat();
    expect(toolResults(afterFetch)).toEqual([
      'No background for Doomed Co: it was removed from the competitor list. Tell the user it is no longer available.',
    ]);
    expect(offeredIds(afterFetch)).toEqual(['stays']);
    expect(systemText(afterFetch)).not.toContain('DOOMED briefing');
    expect(replyOf(events)?.blocks).toEqual([
      { type: 'context', items: ['Doomed Co is no longer in the competitor list, so there is no background to show.'] },
    ]);
    expect(h.logs.text()).toContain("Competitor 'doomed' was removed after its id was loaded");
  });
});

type Parameters = Record<string, unknown> & { properties: { competitor_id: { enum: string[] } } };
function parametersOf(spec: ToolSpec): Parameters {
  if (spec.type !== 'function') throw new Error('not a function tool');
  return spec.function.parameters as Parameters;
}

describe('lookup_competitor schema and id cache', () => {
  it('exports the static and the narrowed schema within OpenAI strict mode and Gemini’s subset', async () => {
    const { tools } = createCompetitorTools(testConfig());
    const tool = tools[0]!;
    const tenant = await port.defaultTenant();
    const ctx = { tenant, state: newThreadState('schema'), data: port.forTenant(tenant), log: silentLogger() };
    for (const dialect of ['openai', 'gemini'] as const) {
      const registry = createToolRegistry(tools, dialect);
      const check = dialect === 'openai' ? openAiStrictViolations : geminiViolations;
      expect(check(parametersOf(toolSpec(tool, tool.input, dialect)))).toEqual([]);
      const params = parametersOf((await registry.offered(ctx)).get('lookup_competitor')!.spec);
      expect(check(params)).toEqual([]);
      expect(params.properties.competitor_id.enum).toHaveLength(14);
    }
    storeFetchedCompetitor(ctx.state, 'norlys', {
      name: 'Norlys',
      description: 'x',
      fetchedAt: '2026-11-21T00:00:00Z',
    });
    const params = parametersOf(
      (await createToolRegistry(tools, 'gemini').offered(ctx)).get('lookup_competitor')!.spec,
    );
    expect(geminiViolations(params)).toEqual([]);
    expect(params.properties.competitor_id.enum).not.toContain('norlys');
    expect(params.properties.competitor_id.enum).toHaveLength(13);
  });

  it('offers the same narrowed schema to every thread with the same ids, and a new one once an id is fetched', async () => {
    const { tools } = createCompetitorTools(testConfig());
    const registry = createToolRegistry(tools, 'openai');
    const tenant = await port.defaultTenant();
    const ctxFor = (id: string) => ({
      tenant,
      state: newThreadState(id),
      data: port.forTenant(tenant),
      log: silentLogger(),
    });
    const offer = async (ctx: ReturnType<typeof ctxFor>) => (await registry.offered(ctx)).get('lookup_competitor')!;
    const [a, b] = [await offer(ctxFor('one')), await offer(ctxFor('two'))];
    // Built once: the same schema object and the same exported spec for both threads.
    expect(b.schema).toBe(a.schema);
    expect(b.spec).toBe(a.spec);
    const fetched = ctxFor('three');
    storeFetchedCompetitor(fetched.state, 'norlys', {
      name: 'Norlys',
      description: 'x',
      fetchedAt: '2026-11-21T00:00:00Z',
    });
    const c = await offer(fetched);
    expect(c.schema).not.toBe(a.schema);
    expect(parametersOf(c.spec).properties.competitor_id.enum).not.toContain('norlys');
    expect(parametersOf(a.spec).properties.competitor_id.enum).toContain('norlys');
    // The narrowed schema still refuses an id already fetched in that thread.
    expect(c.schema.safeParse({ competitor_id: 'norlys' }).success).toBe(false);
    expect(a.schema.safeParse({ competitor_id: 'norlys' }).success).toBe(true);
  });

  it('loads a tenant’s ids once per TTL, and once for concurrent first uses', async () => {
    let clock = 0;
    const { tools } = createCompetitorTools(testConfig(), { idsTtlMs: 60_000, now: () => clock });
    const { log, logs } = captureLogs();
    const registry = createToolRegistry(tools, 'openai');
    const tenant = await port.defaultTenant();
    const ctx = { tenant, state: newThreadState('ttl'), data: port.forTenant(tenant), log };
    await Promise.all([registry.offered(ctx), registry.offered(ctx)]);
    clock = 59_000;
    await registry.offered(ctx);
    expect(logs.text().match(/Fetched 14 competitor IDs/g)).toHaveLength(1);
    clock = 61_000;
    await registry.offered(ctx);
    expect(logs.text().match(/Fetched 14 competitor IDs/g)).toHaveLength(2);
  });
});

const REDIS = process.env.TEST_REDIS_URL;
if (!REDIS) console.warn('[competitors lookup.test] TEST_REDIS_URL not set: the restart-on-Redis test is SKIPPED');

describe.skipIf(!REDIS)('lookup_competitor on Redis', () => {
  it('keeps fetched backgrounds across a restart', async () => {
    const threadId = `competitors-restart-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const env = { REDIS_URL: REDIS! };
    const first = await startHarness({ llm, data: port, env, ...createCompetitorTools(testConfig()) });
    llm.script(
      { toolCalls: [{ name: 'lookup_competitor', arguments: { competitor_id: 'norlys' } }] },
      { text: 'noted' },
    );
    await collect(first.sb.agent.handle(message('Norlys came up.', { threadId })));
    await first.close();

    const second = await startHarness({ llm, data: port, env, ...createCompetitorTools(testConfig()) });
    llm.script({ text: 'From the background: local service.' });
    await collect(second.sb.agent.handle(message('What do we say against them?', { threadId })));
    await second.close();
    const after = chat().at(-1);
    expect(systemText(after)).toContain(descriptions.norlys);
    expect(offeredIds(after)).not.toContain('norlys');
    expect(offeredIds(after)).toHaveLength(13);
    // The new process loaded the ids itself; the background came from Redis, not the database.
    expect(second.logs.text()).toMatch(/Fetched 14 competitor IDs/);
    expect(second.logs.text()).not.toMatch(/Fetched competitor 'norlys'/);
  });
});
