/**
 * Seed 004's router on the demo business: at most 2 lookups a turn, each within its timeout
 * and all within the turn's budget (measured against a really slow function on the real
 * Postgres), the fallback with `take_message` (stored in the tenant's own business), free
 * slots from hours minus bookings, and the tenant part of the system prompt (services,
 * hours, topics, ai_config's language and tone).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_ANCHOR } from '../../../src/data/demo/prng.js';
import { importRows } from '../../../src/data/import/run.js';
import type { AdminDataPort } from '../../../src/data/index.js';
import { bookingRow, tenantApprovalsRow } from '../../../src/data/rows.js';
import { createBusinessTools, TROUBLE_MESSAGE } from '../../../src/tools/business/index.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.js';
import {
  noticeWithoutPostgres,
  openPgliteTestPort,
  openPostgresTestPort,
  TEST_DATABASE_URL,
  testConfig,
} from '../../helpers/db.js';
import { collect, message, replyOf, sentMessages, startHarness, type Harness } from '../../helpers/harness.js';
import { toolResults } from './fixtures.js';

if (!TEST_DATABASE_URL) noticeWithoutPostgres('business router tests');

/** Noon (UTC) on the demo anchor: demo bookings are placed around it. */
const NOW = new Date(DEMO_ANCHOR.getTime() + 12 * 3_600_000);
/** The demo clinic's tenant (`harbourside`), reached over HTTP as its workspace. */
const CLINIC = 'harbourside';

defineRouterTests('business router on PGlite (demo business)', false, async () => {
  const port = await openPgliteTestPort();
  return { port, close: () => port.close() };
});
describe.skipIf(!TEST_DATABASE_URL)('on Postgres', () => {
  defineRouterTests('business router on Postgres (demo business)', true, async () => {
    const { port, db } = await openPostgresTestPort();
    return { port, close: async () => (await port.close(), await db.drop()) };
  });
});

/** `slowFunctions`: the database can sleep in one function while others answer (Postgres; PGlite is single-threaded). */
function defineRouterTests(
  label: string,
  slowFunctions: boolean,
  open: () => Promise<{ port: AdminDataPort; close(): Promise<void> }>,
): void {
  describe(label, () => {
    let port: AdminDataPort;
    let closePort: () => Promise<void>;
    let llm: FakeOpenAI;
    let h: Harness;
    let n = 0;
    const thread = () => `router-${++n}`;
    const env = { BUSINESS_TOOL_TIMEOUT_MS: '400', BUSINESS_TURN_BUDGET_MS: '1000', BUSINESS_MAX_CALLS: '2' };

    beforeAll(async () => {
      ({ port, close: closePort } = await open());
      llm = await startFakeOpenAI();
      h = await startHarness({ llm, data: port, now: () => NOW, env, ...createBusinessTools(testConfig(env)) });
    });
    afterAll(async () => {
      await h?.close();
      await llm?.close();
      await closePort?.();
    });
    beforeEach(() => llm.reset());

    const turn = async (calls: { name: string; arguments: Record<string, unknown> }[][], text = 'Done.') => {
      const seen = llm.requestsTo('/chat/completions').length;
      llm.script(...calls.map((c) => ({ toolCalls: c })), { text });
      const started = performance.now();
      const events = await collect(
        h.sb.agent.handle(message('Can you check?', { workspaceId: CLINIC, threadId: thread() })),
      );
      const ms = performance.now() - started;
      const requests = llm.requestsTo('/chat/completions').slice(seen);
      const done = events.find((e) => e.type === 'done');
      return {
        events,
        ms,
        requests,
        toolCalls: done?.type === 'done' ? done.toolCalls : [],
        reply: replyOf(events),
        results: toolResults(requests.at(-1)),
      };
    };

    it('refuses a third business lookup in one turn with an error the model can act on', async () => {
      const t = await turn([
        [
          { name: 'get_policies', arguments: { topic: 'cancellation' } },
          { name: 'get_faqs', arguments: { topic: 'parking' } },
          { name: 'get_working_hours', arguments: {} },
        ],
      ]);
      expect(t.toolCalls.map((c) => c.ok)).toEqual([true, true, false]);
      expect(t.toolCalls[2]).toMatchObject({ tool: 'get_working_hours', error: { code: 'validation_failed' } });
      expect(t.results[2]).toMatch(
        /^Error: At most 2 business lookups per message\. .*offer to take a message \(take_message\)/,
      );
      // Across steps too: the count is per turn.
      const steps = await turn([
        [{ name: 'get_policies', arguments: { topic: 'refunds' } }],
        [{ name: 'get_faqs', arguments: { topic: 'parking' } }],
        [{ name: 'get_business_services', arguments: {} }],
      ]);
      expect(steps.toolCalls.map((c) => c.ok)).toEqual([true, true, false]);
    });

    it.skipIf(!slowFunctions)(
      'gives up on a slow lookup at its timeout and on the rest of the turn at the budget, with the fallback',
      async () => {
        const sql = port.transport.sql!;
        await sql.exec(`
        alter function public.get_faqs(uuid, text, uuid, integer) rename to get_faqs_fast;
        create function public.get_faqs(p_tenant_id uuid, p_topic text default null, p_business_id uuid default null, p_limit integer default 10)
        returns table (faq_id uuid, business_id uuid, topic text, question text, answer text, tags text[], updated_at timestamptz)
        language plpgsql as $$ begin perform pg_sleep(0.7); return query select * from public.get_faqs_fast(p_tenant_id, p_topic, p_business_id, p_limit); end $$;`);
        // The same function, 700 ms slower: a database under load.
        const wide = { ...env, BUSINESS_MAX_CALLS: '5', AGENT_MAX_TOOL_CALLS: '5', AGENT_MAX_STEPS: '6' };
        const local = await startHarness({
          llm,
          data: port,
          now: () => NOW,
          env: wide,
          ...createBusinessTools(testConfig(wide)),
        });
        try {
          const faq = (topic: string) => ({ name: 'get_faqs', arguments: { topic } });
          llm.script(
            { toolCalls: [faq('parking'), faq('location')] },
            { toolCalls: [faq('pricing')] },
            { toolCalls: [faq('hours')] },
            { toolCalls: [faq('tags')] },
            { text: TROUBLE_MESSAGE },
          );
          const started = performance.now();
          const events = await collect(
            local.sb.agent.handle(message('Where do I park?', { workspaceId: CLINIC, threadId: thread() })),
          );
          const ms = performance.now() - started;
          const failures = local.logs.lines.filter((l) => l.msg === 'business lookup failed' && l.fn === 'get_faqs');
          // The budget is wall-clock from the first lookup: two in parallel time out together at 400 ms,
          // the next at 400 (800 ms in), the fourth gets what is left, the fifth nothing.
          expect(failures).toHaveLength(5);
          expect(failures.slice(0, 3).map((l) => l.reason)).toEqual(['timeout', 'timeout', 'timeout']);
          for (const l of failures.slice(0, 3)) expect(Number(l.latencyMs)).toBeLessThan(650); // gave up at 400 ms, well before the 700 ms answer
          expect(failures[4]?.reason).toBe('turn_budget');
          expect(ms).toBeLessThan(1_600);
          expect(replyOf(events)?.blocks).toEqual([{ type: 'context', items: [TROUBLE_MESSAGE] }]);
        } finally {
          await local.close();
          await sql.exec(
            `drop function public.get_faqs(uuid, text, uuid, integer); alter function public.get_faqs_fast(uuid, text, uuid, integer) rename to get_faqs;`,
          );
        }
      },
    );

    it('takes a message for the tenant’s own business and confirms it', async () => {
      // The call runs at once where the tenant's policy says auto (by default it waits for a
      // person: test/adapters/approvals-http.test.ts).
      const policy = { policy: { take_message: 'auto' } };
      await port.admin('set_tenant_approvals', { tenant: CLINIC, approvals: policy }, tenantApprovalsRow);
      const t = await turn(
        [
          [
            {
              name: 'take_message',
              arguments: { name: 'Ana Silva', contact: '+61 400 111 222', message: 'Please call me about my invoice.' },
            },
          ],
        ],
        'Passed on.',
      );
      expect(t.toolCalls[0]).toMatchObject({ tool: 'take_message', ok: true });
      expect(t.results[0]).toMatch(
        /^Message saved for the business \(reference [0-9a-f]{8}\)\. .*get back to them at \+61 400 111 222\./,
      );
      expect(t.reply?.blocks).toEqual([
        { type: 'context', items: ['✉️ Message passed on for Ana Silva: we’ll get back to you at +61 400 111 222.'] },
      ]);
      const tenant = (await port.resolveTenant('http', CLINIC))!;
      const stored = await port.transport.sql!.query(
        `select m.name, m.contact, m.message, m.platform, m.user_id, b.slug from public.business_messages m join public.businesses b on b.id = m.business_id where m.tenant_id = $1`,
        [tenant.id],
      );
      expect(stored).toEqual([
        {
          name: 'Ana Silva',
          contact: '+61 400 111 222',
          message: 'Please call me about my invoice.',
          platform: 'http',
          user_id: 'u-1',
          slug: 'harbourside-physio',
        },
      ]);
      // Made-up or empty details are refused before anything is stored.
      const bad = await turn([[{ name: 'take_message', arguments: { name: '', contact: 'x', message: 'hi' } }]]);
      expect(bad.toolCalls[0]).toMatchObject({ ok: false, error: { code: 'validation_failed' } });
      await port.admin('set_tenant_approvals', { tenant: CLINIC, approvals: null }, tenantApprovalsRow);
    });

    it('lists free times from working hours minus bookings, for a service’s duration', async () => {
      // A confirmed demo booking after NOW on a weekday: its slot is taken.
      const tenant = (await port.resolveTenant('http', CLINIC))!;
      const bookings = (await port.transport.sql!.query(
        `select reference from public.bookings where tenant_id = $1 and status = 'confirmed' and booking_datetime > $2 order by booking_datetime`,
        [tenant.id, NOW.toISOString()],
      )) as { reference: string }[];
      let booked: { local: string; minutes: number } | undefined;
      for (const { reference } of bookings) {
        const [row] = await port.call('get_booking_by_id', { tenant_id: tenant.id, booking_id: reference }, bookingRow);
        const day = new Date(`${row!.booking_local.slice(0, 10)}T12:00:00Z`).getUTCDay();
        if (
          row &&
          day >= 1 &&
          day <= 5 &&
          row.booking_local.slice(11, 16) >= '08:00' &&
          row.booking_local.slice(11, 16) <= '17:00'
        ) {
          booked = { local: row.booking_local, minutes: row.duration_minutes };
          break;
        }
      }
      expect(booked).toBeDefined();
      const [date, time] = [booked!.local.slice(0, 10), booked!.local.slice(11, 16)];
      const others = (await port.transport.sql!.query(
        `select to_char(booking_datetime at time zone 'Australia/Sydney', 'HH24:MI') as t, duration_minutes as m from public.bookings
         where tenant_id = $1 and status in ('pending', 'confirmed') and (booking_datetime at time zone 'Australia/Sydney')::date = $2::date`,
        [tenant.id, date],
      )) as { t: string; m: number }[];
      const t = await turn([[{ name: 'get_availability', arguments: { date } }]]);
      const done = t.events.find((e) => e.type === 'done');
      const slots = (done?.type === 'done' ? done.data.availability : undefined) as {
        slots: { local: string }[];
        timezone: string;
      };
      const times = slots.slots.map((s) => s.local.slice(11, 16));
      expect(slots.timezone).toBe('Australia/Sydney');
      expect(times).not.toContain(time);
      // Independently: every half hour of the weekday's hours (07:00–19:00 on weekdays) not overlapping a booking.
      const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));
      const expected: string[] = [];
      for (let m = 7 * 60; m + 30 <= 19 * 60; m += 30) {
        if (others.some((o) => minutes(o.t) < m + 30 && minutes(o.t) + o.m > m)) continue;
        expected.push(`${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`);
      }
      expect(times).toEqual(expected);
      expect(t.results[0]).toMatch(
        new RegExp(`^${expected.length} free start times for a 30 min appointment on ${date} \\(Australia/Sydney\\)`),
      );

      // A 60-minute service cannot start half an hour before the booking either.
      const longer = await turn([[{ name: 'get_availability', arguments: { date, service: 'initial consultation' } }]]);
      const before = `${String(Math.floor((minutes(time) - 30) / 60)).padStart(2, '0')}:${String((minutes(time) - 30) % 60).padStart(2, '0')}`;
      expect(longer.results[0]).toContain('Initial consultation (60 min)');
      expect(longer.results[0]).not.toMatch(new RegExp(`[ ,]${before}[,.]`));
      // A Sunday is closed; an unknown service is a fixable error listing the real ones.
      const sunday = new Date(
        Date.parse(`${date}T12:00:00Z`) + ((7 - new Date(`${date}T12:00:00Z`).getUTCDay()) % 7) * 86_400_000,
      )
        .toISOString()
        .slice(0, 10);
      expect((await turn([[{ name: 'get_availability', arguments: { date: sunday } }]])).results[0]).toMatch(
        /^No free times/,
      );
      expect((await turn([[{ name: 'get_availability', arguments: { date, service: 'yoga' } }]])).results[0]).toMatch(
        /^Error: No service called "yoga"\. Services: Initial consultation/,
      );
    });

    it('puts the business into the system prompt, and ai_config’s language, tone and topics', async () => {
      const tenant = (await port.resolveTenant('http', CLINIC))!;
      await importRows(port, 'tenants', tenant.id, [
        {
          slug: tenant.slug,
          name: tenant.name,
          settings: { ai_config: { language: 'da', tone: 'warm and brief', topics: ['afbud', 'parkering'] } },
          business_slug: 'harbourside-physio',
        },
      ]);
      const local = await startHarness({
        llm,
        data: port,
        now: () => NOW,
        env,
        ...createBusinessTools(testConfig(env)),
      });
      try {
        llm.script({ text: 'Hej!' });
        await collect(
          local.sb.agent.handle(message('Hej, hvornår har I åbent?', { workspaceId: CLINIC, threadId: thread() })),
        );
        const system = sentMessages(llm.lastRequest('/chat/completions')!.body)
          .filter((m) => m.role === 'system')
          .map((m) => String(m.content))
          .join('\n');
        expect(system).toContain('Answer in Danish unless the user writes in another language');
        expect(system).toContain('Tone: warm and brief.');
        expect(system).toContain('You answer questions about Harbourside Physio');
        expect(system).toMatch(/Services: Initial consultation \(60 min\), .*Remedial massage \(30 min\)/);
        expect(system).toMatch(/Working hours \(Australia\/Sydney\): Monday 07:00–19:00; .*Sunday closed/i);
        expect(system).toContain('Policy and FAQ lookups need a topic, e.g. afbud, parkering.');
        expect(system).toContain('At most 2 business lookups per message');
      } finally {
        await local.close();
        await importRows(port, 'tenants', tenant.id, [
          { slug: tenant.slug, name: tenant.name, settings: tenant.settings, business_slug: 'harbourside-physio' },
        ]);
      }
    });
  });
}
