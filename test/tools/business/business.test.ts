import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { IncomingMessage } from '../../../src/contract/turn.js';
import type { AdminDataPort } from '../../../src/data/index.js';
import { createBusinessTools, TROUBLE_MESSAGE } from '../../../src/tools/business/index.js';
import { toolSpec } from '../../../src/agent/registry.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.js';
import { openPgliteTestPort, testConfig } from '../../helpers/db.js';
import { collect, message, replyOf, sentToolNames, startHarness, type Harness } from '../../helpers/harness.js';
import { geminiViolations, openAiStrictViolations } from '../../helpers/schema-rules.js';
import { addTenant, B_MARK, breakFunction, toolResults } from './fixtures.js';

/** The demo clinic's tenant (`harbourside`), reached over HTTP as its workspace. */
const CLINIC = 'harbourside';

const BUSINESS_TOOLS = [
  'get_business_services',
  'get_working_hours',
  'get_availability',
  'get_policies',
  'get_faqs',
  'get_latest_booking',
  'get_booking_by_id',
  'take_message',
];

let port: AdminDataPort;
let llm: FakeOpenAI;
let h: Harness;
let tenantB = { id: '', workspace: '' };
let noBusiness = { id: '', workspace: '' };
let n = 0;
const thread = () => `business-${++n}`;

beforeAll(async () => {
  port = await openPgliteTestPort();
  llm = await startFakeOpenAI();
  tenantB = await addTenant(port, 'clinic-b', true);
  noBusiness = await addTenant(port, 'no-business', false);
  h = await startHarness({ llm, data: port, ...createBusinessTools(testConfig()) });
});
afterAll(async () => {
  await h.close();
  await llm.close();
  await port.close();
});
beforeEach(() => llm.reset());

/** One turn in which the model calls `tool` with `args`: what the model got back and what the user saw. */
async function lookup(tool: string, args: Record<string, unknown>, over: Partial<IncomingMessage> = {}) {
  const seen = llm.requestsTo('/chat/completions').length;
  llm.script({ toolCalls: [{ name: tool, arguments: args }] }, { text: 'Here you go.' });
  const events = await collect(
    h.sb.agent.handle(message('Can you check?', { workspaceId: CLINIC, threadId: thread(), ...over })),
  );
  const [first, second] = llm.requestsTo('/chat/completions').slice(seen);
  return {
    offered: sentToolNames(first!.body),
    result: toolResults(second).at(-1) ?? '',
    reply: replyOf(events),
    events,
  };
}

describe('business tools on the demo business', () => {
  it('lists the services as a table and a compact list for the model', async () => {
    const { offered, result, reply } = await lookup('get_business_services', {});
    expect(offered).toEqual(expect.arrayContaining(BUSINESS_TOOLS));
    expect(result).toMatch(/^7 services at Harbourside Physio/);
    expect(result).toContain('- Initial consultation (physiotherapy): 60 min, price 120. Assessment, diagnosis');
    const table = reply?.blocks[0];
    expect(table).toMatchObject({
      type: 'table',
      caption: 'Services at Harbourside Physio',
      columns: ['Service', 'Duration', 'Price', 'Details'],
    });
    expect(table?.type === 'table' && table.rows).toContainEqual([
      'Remedial massage',
      '30 min',
      '75',
      'Targeted massage for tight or sore areas.',
    ]);
  });

  it('gives the week’s hours with split days and closed days', async () => {
    const { result, reply } = await lookup('get_working_hours', {});
    expect(result).toContain('Opening hours of Harbourside Physio (Australia/Sydney):');
    expect(result).toContain('Wednesday: 07:00–12:30, 13:30–19:00');
    expect(result).toContain('Sunday: Closed');
    expect(reply?.blocks[0]).toMatchObject({
      type: 'fields',
      fields: expect.arrayContaining([{ label: 'Saturday', value: '08:00–13:00' }]),
    });
  });

  it('matches policies and FAQs by topic, and lists the topics when nothing matches', async () => {
    const late = await lookup('get_policies', { topic: 'Late-Arrival' });
    expect(late.result).toMatch(/^Late arrival \[late arrival\]: If you arrive late/);
    expect(late.reply?.blocks[0]).toMatchObject({
      type: 'cards',
      cards: [{ title: 'Late arrival', subtitle: 'late arrival' }],
    });
    expect((await lookup('get_policies', { topic: 'cancel' })).result).toMatch(/^Cancellation policy/);
    const none = await lookup('get_policies', { topic: 'parking' });
    expect(none.result).toBe(
      'No policy matches "parking". Topics on file: cancellation, deposits, late arrival, payment, refunds, reschedule.',
    );
    // The topic is required (seed 004); "all" lists every policy.
    const all = await lookup('get_policies', { topic: 'all' });
    expect(all.result.split('\n')).toHaveLength(6);
    expect((await lookup('get_policies', {})).result).toMatch(/^Error: Invalid arguments: topic:/);

    const fund = await lookup('get_faqs', { topic: 'health fund' });
    // A tag match ranks before a full-text one.
    expect(fund.result).toMatch(/^Q: Can I claim on my health fund\?\nA: Yes, we claim on the spot with HICAPS/);
    const parking = await lookup('get_faqs', { topic: 'parking' });
    expect(parking.result).toMatch(/^Q: Is there parking nearby\?/);
    expect(parking.reply?.blocks[0]).toMatchObject({ type: 'cards', cards: [{ title: 'Is there parking nearby?' }] });
  });

  it('finds the latest booking by phone in any format, and one booking by reference', async () => {
    const latest = await lookup('get_latest_booking', { customer_phone: '0412 345 678' });
    expect(latest.result).toMatch(
      /^Latest booking HP-1100: Follow-up treatment for Sarah Mitchell, \w{3}, \d+ \w{3} \d{4}, 10:30 \(Australia\/Sydney\), 30 min, status confirmed, price 95\./,
    );
    expect(latest.result).toContain('Customer notes: Lower back, third session.');
    // Contact details go to the user's card only.
    expect(latest.result).not.toContain('sarah.mitchell@example.com');
    expect(latest.result).not.toContain('345 678');
    expect(latest.reply?.blocks[1]).toMatchObject({
      type: 'fields',
      fields: expect.arrayContaining([{ label: 'Email', value: 'sarah.mitchell@example.com' }]),
    });

    const byRef = await lookup('get_booking_by_id', { booking_id: 'hp-1100' });
    expect(byRef.result).toMatch(/^Booking HP-1100: Follow-up treatment for Sarah Mitchell/);
    expect((await lookup('get_booking_by_id', { booking_id: 'HP-9999' })).result).toBe(
      'No booking with the reference or id "HP-9999".',
    );
    expect((await lookup('get_latest_booking', { customer_phone: '+61 400 000 000' })).result).toBe(
      'No booking found for the phone number +61 400 000 000.',
    );
    const email = await lookup('get_latest_booking', { customer_phone: 'sarah.mitchell@example.com' });
    expect(email.result).toMatch(
      /^Error: "sarah\.mitchell@example\.com" is not a phone number\. .*lookup by email is not available/,
    );
  });

  it('caches lookups per thread', async () => {
    const loadsIn = (threadId: string) =>
      h.logs.lines.filter(
        (l) =>
          l.msg === 'business lookup' &&
          l.cached === false &&
          l.fn === 'get_faqs' &&
          String(l.thread).endsWith(`:${threadId}`),
      ).length;
    const threadId = thread();
    llm.script(
      { toolCalls: [{ name: 'get_faqs', arguments: { topic: 'Parking' } }] },
      { toolCalls: [{ name: 'get_faqs', arguments: { topic: 'parking' } }] },
      { text: 'ok' },
    );
    await collect(h.sb.agent.handle(message('parking?', { workspaceId: CLINIC, threadId })));
    llm.script({ toolCalls: [{ name: 'get_faqs', arguments: { topic: 'parking' } }] }, { text: 'ok' });
    await collect(h.sb.agent.handle(message('parking again?', { workspaceId: CLINIC, threadId })));
    expect(loadsIn(threadId)).toBe(1);
    // Another thread loads for itself.
    const other = thread();
    llm.script({ toolCalls: [{ name: 'get_faqs', arguments: { topic: 'parking' } }] }, { text: 'ok' });
    await collect(h.sb.agent.handle(message('parking?', { workspaceId: CLINIC, threadId: other })));
    expect(loadsIn(other)).toBe(1);
  });
});

describe('business tool schemas', () => {
  it('export within OpenAI strict mode and Gemini’s subset, with no business id for the model to set', () => {
    const { tools } = createBusinessTools(testConfig());
    expect(tools.map((t) => t.name)).toEqual(BUSINESS_TOOLS);
    for (const tool of tools) {
      for (const dialect of ['openai', 'gemini'] as const) {
        const spec = toolSpec(tool, tool.input, dialect);
        const params = (spec.type === 'function' ? spec.function.parameters : {}) as Record<string, unknown>;
        expect(
          (dialect === 'openai' ? openAiStrictViolations : geminiViolations)(params),
          `${tool.name} (${dialect})`,
        ).toEqual([]);
        expect(JSON.stringify(params)).not.toMatch(/business_id|tenant/);
      }
    }
  });
});

describe('business tools and tenants', () => {
  it('answer a tenant with its own business only, whatever the model passes', async () => {
    const asB = { platform: 'slack' as const, workspaceId: tenantB.workspace };
    const services = await lookup(
      'get_business_services',
      { business_id: '00000000-0000-4000-8000-000000000001' },
      asB,
    );
    expect(services.result).toBe(
      `1 service at B Clinic ${B_MARK} (prices as listed, no currency given):\n- B massage ${B_MARK}: 45 min, price 99.50`,
    );
    expect((await lookup('get_booking_by_id', { booking_id: 'HP-1100' }, asB)).result).toBe(
      'No booking with the reference or id "HP-1100".',
    );
    expect((await lookup('get_latest_booking', { customer_phone: '+61 412 345 678' }, asB)).result).toMatch(
      /^Latest booking B-7: B massage for B Sarah/,
    );

    // And the demo clinic sees none of B.
    const a = await lookup('get_latest_booking', { customer_phone: '+61 412 345 678' });
    expect(a.result).toMatch(/^Latest booking HP-1100/);
    expect((await lookup('get_booking_by_id', { booking_id: 'B-7' })).result).toBe(
      'No booking with the reference or id "B-7".',
    );
    expect((await lookup('get_policies', { topic: 'cancellation' })).result).not.toContain(B_MARK);
  });

  it('are not offered to a tenant without a business', async () => {
    llm.script({ text: 'No business here.' });
    await collect(
      h.sb.agent.handle(
        message('Opening hours?', { platform: 'slack', workspaceId: noBusiness.workspace, threadId: thread() }),
      ),
    );
    const offered = sentToolNames(llm.requestsTo('/chat/completions')[0]!.body);
    for (const tool of BUSINESS_TOOLS) expect(offered).not.toContain(tool);
  });
});

describe('business tools when the database fails', () => {
  it('give the model a short error and the user a clear message, with a log line and no internals', async () => {
    const restore = await breakFunction(port, '(uuid, text, uuid)', 'get_policies');
    try {
      const { result, reply, events } = await lookup('get_policies', { topic: 'refunds' });
      expect(result).toBe(
        `Error: the policies lookup failed. Do not retry; tell the user: "${TROUBLE_MESSAGE}" If they want to, take the message with take_message.`,
      );
      expect(reply?.blocks).toEqual([{ type: 'context', items: [TROUBLE_MESSAGE] }]);
      expect(TROUBLE_MESSAGE).toBe(
        'I’m having trouble pulling that up right now. Would you like me to take a message?',
      );
      expect(JSON.stringify(events)).not.toMatch(/get_policies_broken|42883|stack/i);
      const failure = h.logs.lines.find((l) => l.msg === 'business lookup failed' && l.fn === 'get_policies');
      expect(failure).toMatchObject({ level: 40, tool: 'get_policies', reason: 'not_migrated' });
      // The harness logs at debug, where stacks are kept; at info they are not (test/logger.test.ts).
      expect(failure).toMatchObject({ err: { type: 'DataError' } });
    } finally {
      await restore();
    }
    expect((await lookup('get_policies', { topic: 'refunds' })).result).toMatch(/^Refunds/);
  });
});
