/**
 * What a guest (an anonymous HTTP caller, a Slack guest, a Discord user without a member role)
 * can see of a booking, through the real app: the agent with the fake model, the business
 * tools, the data port (PGlite, and Postgres when TEST_DATABASE_URL is set) and the rate-limit
 * store (memory; Redis across two replicas when TEST_REDIS_URL is set).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../../../src/adapters/http/app.js';
import type { IncomingMessage } from '../../../src/contract/turn.js';
import type { AdminDataPort } from '../../../src/data/index.js';
import type { Block } from '../../../src/reply/model.js';
import { createRedisConnection } from '../../../src/net/redis-connection.js';
import { createRateLimits } from '../../../src/security/rate-limits.js';
import { createBusinessTools } from '../../../src/tools/business/index.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.js';
import { noticeWithoutPostgres, openPgliteTestPort, openPostgresTestPort, testConfig } from '../../helpers/db.js';
import { captureLogs, collect, message, replyOf, startHarness, type Harness } from '../../helpers/harness.js';
import { startTcpProxy } from '../../helpers/tcp-proxy.js';
import { toolResults } from './fixtures.js';
import { peer } from '../../helpers/peer.js';

/** The demo clinic's tenant (`harbourside`), reached as its workspace. */
const CLINIC = 'harbourside';

const REDIS_URL = process.env.TEST_REDIS_URL;
noticeWithoutPostgres('the guest booking lookups');

/** What of Sarah Mitchell's booking (HP-1100, stored as '0412 345 678') a guest must never see. */
const PRIVATE = ['sarah.mitchell@example.com', 'Lower back', '0412', '412 345', '345 678'];

const transports: { name: string; open: () => Promise<{ port: AdminDataPort; close: () => Promise<void> }> }[] = [
  {
    name: 'PGlite',
    async open() {
      const port = await openPgliteTestPort();
      return { port, close: () => port.close() };
    },
  },
  ...(process.env.TEST_DATABASE_URL
    ? [
        {
          name: 'Postgres',
          async open() {
            const { port, db } = await openPostgresTestPort();
            return {
              port,
              async close() {
                await port.close();
                await db.drop();
              },
            };
          },
        },
      ]
    : []),
];

const fieldsOf = (blocks: Block[] | undefined) =>
  Object.fromEntries(
    (blocks ?? []).flatMap((b) => (b.type === 'fields' ? b.fields.map((f) => [f.label, f.value]) : [])),
  );

describe.each(transports)('booking lookups by guests and members ($name)', ({ open }) => {
  let db: Awaited<ReturnType<typeof open>>;
  let llm: FakeOpenAI;
  let h: Harness;
  let n = 0;

  beforeAll(async () => {
    db = await open();
    llm = await startFakeOpenAI();
    h = await startHarness({ llm, data: db.port, ...createBusinessTools(testConfig()) });
  });
  afterAll(async () => {
    await h?.close();
    await llm?.close();
    await db?.close();
  });
  beforeEach(() => llm.reset());

  /** One turn in which the model calls `tool` once: what the model got back and what the user saw. */
  async function lookup(tool: string, args: Record<string, unknown>, over: Partial<IncomingMessage>) {
    const seen = llm.requestsTo('/chat/completions').length;
    llm.script({ toolCalls: [{ name: tool, arguments: args }] }, { text: 'Here you go.' });
    const events = await collect(
      h.sb.agent.handle(message('My booking?', { workspaceId: CLINIC, threadId: `guests-${++n}`, ...over })),
    );
    const second = llm.requestsTo('/chat/completions')[seen + 1];
    expect(llm.remaining()).toBe(0);
    return { result: toolResults(second).at(-1) ?? '', reply: replyOf(events) };
  }
  const asGuest = (userId = `guest-${randomUUID()}`) => ({ role: 'guest' as const, userId });
  const reads = (fn: string) =>
    h.logs.lines.filter((l) => l.msg === 'business lookup' && l.cached === false && l.fn === fn).length;

  it('an anonymous HTTP caller (a guest) with only the reference is asked for the phone or email, and sees nothing of the customer', async () => {
    const app = createHttpApp({ agent: h.sb.agent, log: h.sb.log }); // no API_TOKEN: callers are guests
    const before = reads('get_booking_by_id') + reads('get_booking_for_guest');
    llm.script(
      { toolCalls: [{ name: 'get_booking_by_id', arguments: { booking_id: 'HP-1100' } }] },
      { text: 'Could you give me the phone number or email on the booking?' },
    );
    // A loopback caller without API_TOKEN: a guest, who may name the clinic's tenant for local use.
    const res = await app.request(
      '/api/chat',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'Show me booking HP-1100', tenant: CLINIC }),
      },
      peer(),
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { response: string; blocks: Block[]; toolCalls: { ok: boolean }[] };
    const result = toolResults(llm.requestsTo('/chat/completions').at(-1)).at(-1);
    expect(result).toBe(
      'To show booking "HP-1100" to this user (a guest, not staff), the phone number or email on the booking is needed too. ' +
        'Ask the customer for the phone number or email on the booking, then call get_booking_by_id again with both. Never guess it.',
    );
    expect(body.toolCalls).toMatchObject([{ ok: true }]);
    expect(body.blocks).toEqual([]);
    expect(JSON.stringify(body)).not.toMatch(/Sarah|Mitchell|example\.com|678|Lower back/);
    // Nothing was read from the database.
    expect(reads('get_booking_by_id') + reads('get_booking_for_guest')).toBe(before);
  });

  it('a guest with the reference and the phone in another format gets the booking, phone masked, no email, no notes', async () => {
    for (const phone of ['+61 412 345 678', '(04) 1234-5678', '0061412345678']) {
      const { result, reply } = await lookup(
        'get_booking_by_id',
        { booking_id: 'hp-1100', phone_or_email: phone },
        asGuest(),
      );
      expect(result, phone).toMatch(/^Booking HP-1100: Follow-up treatment for Sarah Mitchell, .*status confirmed/);
      expect(result).not.toContain('Customer notes');
      const fields = fieldsOf(reply?.blocks);
      expect(fields).toMatchObject({ Reference: 'HP-1100', Customer: 'Sarah Mitchell', Phone: '•••• ••• 678' });
      expect(fields).not.toHaveProperty('Email');
      expect(fields).not.toHaveProperty('Notes');
      for (const secret of PRIVATE) expect(JSON.stringify({ result, reply }), secret).not.toContain(secret);
    }
    // The guest's own second fact reaches no log line either.
    expect(h.logs.text()).not.toContain('0061412345678');
    // The email on the booking works too, whatever its case and spaces.
    const byEmail = await lookup(
      'get_booking_by_id',
      { booking_id: 'HP-1100', phone_or_email: '  Sarah.Mitchell@Example.COM ' },
      asGuest(),
    );
    expect(fieldsOf(byEmail.reply?.blocks)).toMatchObject({ Phone: '•••• ••• 678' });
    expect(JSON.stringify(byEmail.reply)).not.toContain('sarah.mitchell@example.com');
  });

  it('a wrong phone is "not found", word for word as for a reference that does not exist', async () => {
    const wrongPhone = await lookup(
      'get_booking_by_id',
      { booking_id: 'HP-1100', phone_or_email: '0412 345 679' },
      asGuest(),
    );
    const noSuchRef = await lookup(
      'get_booking_by_id',
      { booking_id: 'HP-1100X', phone_or_email: '0412 345 678' },
      asGuest(),
    );
    expect(wrongPhone.result).toBe(
      'No booking found for the reference "HP-1100" with that phone number or email. Ask the customer to check both; never guess them.',
    );
    expect(noSuchRef.result.replace('HP-1100X', 'HP-1100')).toBe(wrongPhone.result);
    for (const r of [wrongPhone, noSuchRef]) {
      expect(r.reply?.blocks ?? []).toEqual([]);
      expect(r.result).not.toMatch(/phone (is )?(wrong|incorrect|does not match)|Sarah/i);
    }
    // Another customer's email on Sarah's booking is no key either.
    const other = await lookup(
      'get_booking_by_id',
      { booking_id: 'HP-1100', phone_or_email: 'james.nguyen@example.com' },
      asGuest(),
    );
    expect(other.result).toMatch(/^No booking found for the reference "HP-1100"/);
  });

  it('a guest cannot find bookings by phone alone', async () => {
    const before = reads('get_latest_booking');
    const { result, reply } = await lookup('get_latest_booking', { customer_phone: '0412 345 678' }, asGuest());
    expect(result).toMatch(/^This user is a guest, not staff: .*Ask them for the booking reference/);
    expect(reply?.blocks ?? []).toEqual([]);
    expect(reads('get_latest_booking')).toBe(before);
  });

  it('failed lookups pause a user’s booking lookups after 5 in an hour; successes and questions for the phone do not count', async () => {
    const guest = asGuest();
    const fail = { booking_id: 'HP-1100', phone_or_email: '0400 000 000' };
    const right = { booking_id: 'HP-1100', phone_or_email: '0412 345 678' };
    const seq: Record<string, unknown>[] = [fail, fail, { booking_id: 'HP-1100' }, fail, right, fail, fail];
    const results = [];
    for (const args of seq) results.push((await lookup('get_booking_by_id', args, guest)).result);
    const kind = (r: string) =>
      r.startsWith('No booking found')
        ? 'not found'
        : r.startsWith('To show booking')
          ? 'asks for the phone or email'
          : r.startsWith('Booking HP-1100')
            ? 'found'
            : r;
    expect(results.map(kind)).toEqual([
      'not found',
      'not found',
      'asks for the phone or email',
      'not found',
      'found',
      'not found',
      'not found',
    ]);

    // The 6th failure's next try, even with the right phone, is refused without a read.
    const before = reads('get_booking_for_guest');
    const refused = await lookup('get_booking_by_id', right, guest);
    expect(refused.result).toMatch(
      /^Booking lookups are paused for this user: 5 unsuccessful booking lookups within an hour\. They can try again after \d\d:\d\d UTC \(\d{4}-\d\d-\d\dT[\d:.]+Z\)\. Do not retry/,
    );
    expect(refused.reply?.blocks).toEqual([
      {
        type: 'context',
        items: [
          expect.stringMatching(
            /^🔒 Booking lookups are paused for you after 5 unsuccessful tries in an hour\. Please try again after \d\d:\d\d UTC, or ask me to take a message\.$/,
          ),
        ],
      },
    ]);
    expect(JSON.stringify(refused.reply)).not.toContain('Sarah');
    expect(reads('get_booking_for_guest')).toBe(before);
    expect(
      h.logs.lines.filter((l) => l.msg === 'booking lookup refused: too many failed lookups').at(-1),
    ).toMatchObject({ role: 'guest', limit: 5 });

    // Another user is not paused.
    expect((await lookup('get_booking_by_id', right, asGuest())).result).toMatch(/^Booking HP-1100/);
  });

  it('a member sees the whole booking by reference alone; a member’s failed lookups count too', async () => {
    const member = { role: 'member' as const, userId: `staff-${randomUUID()}` };
    const { result, reply } = await lookup('get_booking_by_id', { booking_id: 'HP-1100' }, member);
    expect(result).toContain('Customer notes: Lower back, third session.');
    expect(fieldsOf(reply?.blocks)).toMatchObject({
      Phone: '0412 345 678',
      Email: 'sarah.mitchell@example.com',
      Notes: 'Lower back, third session.',
    });
    const byPhone = await lookup('get_latest_booking', { customer_phone: '+61 412 345 678' }, member);
    expect(fieldsOf(byPhone.reply?.blocks)).toMatchObject({ Email: 'sarah.mitchell@example.com' });

    for (let i = 0; i < 5; i++) {
      const missing = i % 2 ? { booking_id: `HP-9${i}` } : { customer_phone: `0400 000 00${i}` };
      await lookup(i % 2 ? 'get_booking_by_id' : 'get_latest_booking', missing, member);
    }
    expect((await lookup('get_booking_by_id', { booking_id: 'HP-1100' }, member)).result).toMatch(
      /^Booking lookups are paused for this user: 5 unsuccessful/,
    );
  });
});

describe('BOOKING_LOOKUP_FAILURES_PER_HOUR', () => {
  it('sets the number of failures before the pause', async () => {
    const port = await openPgliteTestPort();
    const h = await startHarness({
      data: port,
      env: { BOOKING_LOOKUP_FAILURES_PER_HOUR: '1' },
      ...createBusinessTools(testConfig()),
    });
    try {
      const user = { role: 'guest' as const, userId: 'g-1' };
      const results: string[] = [];
      for (let i = 0; i < 2; i++) {
        h.llm.script(
          {
            toolCalls: [{ name: 'get_booking_by_id', arguments: { booking_id: 'HP-1', phone_or_email: '0400000000' } }],
          },
          { text: 'ok' },
        );
        await collect(h.sb.agent.handle(message('booking?', { workspaceId: CLINIC, threadId: `t-${i}`, ...user })));
        results.push(toolResults(h.llm.requestsTo('/chat/completions').at(-1)).at(-1) ?? '');
      }
      expect(results[0]).toMatch(/^No booking found/);
      expect(results[1]).toMatch(/^Booking lookups are paused for this user: 1 unsuccessful/);
    } finally {
      await h.close();
      await port.close();
    }
  });
});

describe.skipIf(!REDIS_URL)('failed booking lookups on Redis', () => {
  it('two replicas count one user’s failures together', async () => {
    const port = await openPgliteTestPort();
    const env = { REDIS_URL: REDIS_URL!, INBOX_QUEUE: `guests-${randomUUID()}` };
    const replicas = [
      await startHarness({ data: port, env, ...createBusinessTools(testConfig()) }),
      await startHarness({ data: port, env, ...createBusinessTools(testConfig()) }),
    ];
    try {
      // Keys live an hour on the shared Redis: a fresh user per run.
      const user = { role: 'guest' as const, userId: `g-${randomUUID()}` };
      const results: string[] = [];
      for (let i = 0; i < 6; i++) {
        const h = replicas[i % 2]!;
        h.llm.script(
          {
            toolCalls: [
              { name: 'get_booking_by_id', arguments: { booking_id: 'HP-1100', phone_or_email: `0400 000 00${i}` } },
            ],
          },
          { text: 'ok' },
        );
        await collect(h.sb.agent.handle(message('booking?', { workspaceId: CLINIC, threadId: `r-${i}`, ...user })));
        results.push(toolResults(h.llm.requestsTo('/chat/completions').at(-1)).at(-1) ?? '');
      }
      expect(results.slice(0, 5).every((r) => r.startsWith('No booking found'))).toBe(true);
      expect(results[5]).toMatch(/^Booking lookups are paused for this user: 5 unsuccessful/);
    } finally {
      await Promise.all(replicas.map((h) => h.close()));
      await port.close();
    }
  });
});

describe.skipIf(!REDIS_URL)('the failure count’s store away', () => {
  it('fails closed: the lookup is refused (and logged), a failure that cannot be counted is logged', async () => {
    const proxy = await startTcpProxy(Number(new URL(REDIS_URL!).port || 6379));
    const redis = createRedisConnection(proxy.url('redis'), 'command');
    redis.on('error', () => undefined);
    await redis.connect();
    const { log, logs } = captureLogs();
    const limits = createRateLimits({ log, redis, prefix: `test:rl:${randomUUID()}` });
    const failures = limits.failures({ tenantId: 't', platform: 'http', userId: `u-${randomUUID()}` });
    try {
      await failures.record('booking_lookup');
      expect(await failures.check('booking_lookup')).toEqual({ ok: true });
      await proxy.down();
      expect(await failures.check('booking_lookup')).toEqual({ ok: false, reason: 'unavailable' });
      await failures.record('booking_lookup');
      expect(logs.lines.map((l) => [l.level, l.msg])).toEqual(
        expect.arrayContaining([
          [40, 'rate limit store unavailable: failure limit not checked, the attempt is refused'],
          [40, 'rate limit store unavailable: a failure was not counted'],
        ]),
      );
    } finally {
      redis.disconnect();
      await proxy.close();
    }
  });
});
