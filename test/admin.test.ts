/**
 * Seed 004's admin endpoints over HTTP on the demo business: ADMIN_TOKEN auth, zod validation,
 * the tenant taken from the business in the path (never from the body), the seed's
 * `{ "status": "ok", … }` replies, and the bot answering from what the admin wrote.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../src/adapters/http/app.js';
import type { AdminDataPort } from '../src/data/index.js';
import { businessRow } from '../src/data/rows.js';
import { createBusinessTools } from '../src/tools/business/index.js';
import {
  noticeWithoutPostgres,
  openPgliteTestPort,
  openPostgresTestPort,
  TEST_DATABASE_URL,
  testConfig,
} from './helpers/db.js';
import { collect, message, startHarness, type Harness } from './helpers/harness.js';
import { addTenant, toolResults } from './tools/business/fixtures.js';
import { peer } from './helpers/peer.js';
import { TEST_ADMIN_TOKEN, TEST_API_TOKEN } from './helpers/tokens.js';
import { createWrongTokens } from '../src/security/wrong-tokens.js';

const TOKEN = TEST_ADMIN_TOKEN;

if (!TEST_DATABASE_URL) noticeWithoutPostgres('admin API tests on Postgres');
defineAdminTests('admin API on PGlite', async () => {
  const port = await openPgliteTestPort();
  return { port, close: () => port.close() };
});
describe.skipIf(!TEST_DATABASE_URL)('on Postgres', () => {
  defineAdminTests('admin API on Postgres', async () => {
    const { port, db } = await openPostgresTestPort();
    return { port, close: async () => (await port.close(), await db.drop()) };
  });
});

function defineAdminTests(label: string, open: () => Promise<{ port: AdminDataPort; close(): Promise<void> }>): void {
  describe(label, () => {
    let port: AdminDataPort;
    let closePort: () => Promise<void>;
    let h: Harness;
    let businessId = '';
    let otherBusinessId = '';

    beforeAll(async () => {
      ({ port, close: closePort } = await open());
      h = await startHarness({ data: port, ...createBusinessTools(testConfig()) });
      const tenant = (await port.resolveTenant('http', 'harbourside'))!;
      businessId = (await port.call('get_business', { tenant_id: tenant.id }, businessRow))[0]!.business_id;
      const other = await addTenant(port, 'other-clinic', true);
      otherBusinessId = (await port.call('get_business', { tenant_id: other.id }, businessRow))[0]!.business_id;
    });
    afterAll(async () => {
      await h?.close();
      await closePort?.();
    });
    beforeEach(() => h.llm.reset());

    const app = (adminToken: string | null = TOKEN) =>
      createHttpApp({ agent: h.sb.agent, log: h.sb.log, data: port, ...(adminToken ? { adminToken } : {}) });
    const call = (method: string, path: string, body?: unknown, token: string | null = TOKEN, a = app()) =>
      a.request(path, {
        method,
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
    const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as Record<string, any> }); // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies are checked field by field below

    describe('admin API auth', () => {
      it('is off without ADMIN_TOKEN, and refuses a missing or wrong token (API_TOKEN does not open it)', async () => {
        expect(await json(await call('GET', `/tts_admin/policies/${businessId}`, undefined, TOKEN, app(null)))).toEqual(
          {
            status: 404,
            body: {
              status: 'error',
              error: { code: 'admin_disabled', message: 'The admin API is off: set ADMIN_TOKEN to enable it.' },
            },
          },
        );
        expect((await call('GET', `/tts_admin/policies/${businessId}`, undefined, null)).status).toBe(401);
        expect((await call('GET', `/tts_admin/faqs/${businessId}`, undefined, 'wrong')).status).toBe(401);
        const withApiToken = createHttpApp({
          agent: h.sb.agent,
          log: h.sb.log,
          data: port,
          adminToken: TOKEN,
          apiToken: TEST_API_TOKEN,
        });
        expect(
          (await call('GET', `/tts_admin/policies/${businessId}`, undefined, TEST_API_TOKEN, withApiToken)).status,
        ).toBe(401);
        expect(h.logs.text()).not.toContain(TOKEN);
      });

      it('takes the token only as `Authorization: Bearer <token>`: a bare token is a 401 that says so', async () => {
        for (const authorization of [TOKEN, `Token ${TOKEN}`, `Bearer${TOKEN}`]) {
          const res = await app().request(`/tts_admin/policies/${businessId}`, { headers: { authorization } });
          expect(res.status, authorization.slice(0, 8)).toBe(401);
          expect(await res.json()).toMatchObject({
            status: 'error',
            error: { code: 'unauthorized', message: 'The Authorization header must be "Bearer <ADMIN_TOKEN>".' },
          });
        }
        expect((await call('GET', `/tts_admin/policies/${businessId}`)).status).toBe(200);
      });

      it('after 5 wrong bearers from one address, refuses that address (429, Retry-After) even with the right token', async () => {
        const a = createHttpApp({
          agent: h.sb.agent,
          log: h.sb.log,
          data: port,
          adminToken: TOKEN,
          // No pause in the test: what it checks is the count.
          wrongTokens: createWrongTokens({ log: h.sb.log, pauseMs: 0 }),
        });
        const get = (token: string, address = '203.0.113.9') =>
          a.request(`/tts_admin/faqs/${businessId}`, { headers: { authorization: `Bearer ${token}` } }, peer(address));
        const answers: number[] = [];
        for (let i = 0; i < 5; i++) answers.push((await get(`guess-${i}`)).status);
        expect(answers).toEqual([401, 401, 401, 401, 401]);
        const limited = await get('guess-5');
        expect(limited.status).toBe(429);
        const retryAfter = Number(limited.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThan(0);
        expect(retryAfter).toBeLessThanOrEqual(15 * 60);
        expect(await limited.json()).toMatchObject({ status: 'error', error: { code: 'rate_limited' } });
        expect((await get(TOKEN)).status).toBe(429);
        // Others are not held back by this address's guesses.
        expect((await get(TOKEN, '198.51.100.4')).status).toBe(200);
      });
    });

    describe('policies', () => {
      it('create, list by topic, update, delete, with the seed’s replies; the bot answers from it', async () => {
        const created = await json(
          await call('POST', `/tts_admin/policies/${businessId}`, {
            topic: 'gift vouchers',
            content: 'Gift vouchers are valid for 12 months.',
          }),
        );
        expect(created).toMatchObject({
          status: 201,
          body: {
            status: 'ok',
            policy: {
              business_id: businessId,
              topic: 'gift vouchers',
              title: 'Gift Vouchers',
              content: 'Gift vouchers are valid for 12 months.',
            },
          },
        });
        const id = created.body.policy.id as string;

        const listed = await json(await call('GET', `/tts_admin/policies/${businessId}?topic=Gift-Vouchers`));
        expect(listed.body).toEqual({
          status: 'ok',
          policies: [expect.objectContaining({ id, topic: 'gift vouchers' })],
        });
        expect(
          (await json(await call('GET', `/tts_admin/policies/${businessId}`))).body.policies.length,
        ).toBeGreaterThan(1);

        // The bot finds it (a new thread: no cached lookup).
        h.llm.script(
          { toolCalls: [{ name: 'get_policies', arguments: { topic: 'gift vouchers' } }] },
          { text: 'Twelve months.' },
        );
        await collect(
          h.sb.agent.handle(
            message('How long are gift vouchers valid?', { workspaceId: 'harbourside', threadId: 'admin-1' }),
          ),
        );
        expect(toolResults(h.llm.requestsTo('/chat/completions')[1]).at(-1)).toBe(
          'Gift Vouchers [gift vouchers]: Gift vouchers are valid for 12 months.',
        );

        const updated = await json(
          await call('PUT', `/tts_admin/policies/${businessId}/${id}`, {
            content: 'Gift vouchers are valid for 24 months.',
          }),
        );
        expect(updated).toMatchObject({
          status: 200,
          body: {
            status: 'ok',
            policy: { id, content: 'Gift vouchers are valid for 24 months.', title: 'Gift Vouchers' },
          },
        });
        expect(await json(await call('DELETE', `/tts_admin/policies/${businessId}/${id}`))).toEqual({
          status: 200,
          body: { status: 'ok', deleted: id },
        });
        expect(
          (await json(await call('GET', `/tts_admin/policies/${businessId}?topic=gift vouchers`))).body.policies,
        ).toEqual([]);
        expect((await call('DELETE', `/tts_admin/policies/${businessId}/${id}`)).status).toBe(404);
      });

      it('validates bodies and ids, and refuses a tenant or business in the body', async () => {
        const cases: [string, string, unknown, RegExp][] = [
          ['POST', `/tts_admin/policies/${businessId}`, { topic: 'x' }, /^content: /],
          ['POST', `/tts_admin/policies/${businessId}`, { topic: '', content: 'c' }, /^topic: /],
          [
            'POST',
            `/tts_admin/policies/${businessId}`,
            { topic: 't', content: 'c', tenant_id: 'someone-else' },
            /Unrecognized key/,
          ],
          [
            'POST',
            `/tts_admin/policies/${businessId}`,
            { topic: 't', content: 'c', business_id: otherBusinessId },
            /Unrecognized key/,
          ],
          ['POST', `/tts_admin/policies/${businessId}`, 'not json', /must be a JSON object/],
          ['PUT', `/tts_admin/policies/${businessId}/00000000-0000-4000-8000-000000000000`, {}, /at least one of/],
          ['POST', '/tts_admin/policies/not-a-uuid', { topic: 't', content: 'c' }, /^business_id: expected a UUID/],
        ];
        for (const [method, path, body, problem] of cases) {
          const res = await json(await call(method, path, body));
          expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
          expect(res.body).toMatchObject({
            status: 'error',
            error: { code: 'validation_failed', message: expect.stringMatching(problem) },
          });
        }
      });

      it('keeps businesses apart: an unknown business is 404, another business’s policy id is 404, a duplicate topic 409', async () => {
        expect((await call('GET', '/tts_admin/policies/00000000-0000-4000-8000-000000000000')).status).toBe(404);
        const [theirs] = (await json(await call('GET', `/tts_admin/policies/${otherBusinessId}`))).body.policies as {
          id: string;
        }[];
        expect(theirs).toBeDefined();
        // Through our business's path, their policy does not exist.
        expect(
          (await call('PUT', `/tts_admin/policies/${businessId}/${theirs!.id}`, { content: 'hijacked' })).status,
        ).toBe(404);
        expect((await call('DELETE', `/tts_admin/policies/${businessId}/${theirs!.id}`)).status).toBe(404);
        expect(
          (await json(await call('GET', `/tts_admin/policies/${otherBusinessId}`))).body.policies[0].content,
        ).not.toBe('hijacked');
        const dup = await json(
          await call('POST', `/tts_admin/policies/${businessId}`, { topic: 'cancellation', content: 'again' }),
        );
        expect(dup).toEqual({
          status: 409,
          body: {
            status: 'error',
            error: { code: 'conflict', message: 'this business already has a policy on that topic' },
          },
        });
      });
    });

    describe('FAQs', () => {
      it('create with tags, list by topic, update, delete', async () => {
        const created = await json(
          await call('POST', `/tts_admin/faqs/${businessId}`, {
            topic: 'parking',
            question: 'Is there parking available?',
            answer: 'Yes, free street parking after 6pm.',
            tags: ['parking', 'location'],
          }),
        );
        expect(created).toMatchObject({
          status: 201,
          body: { status: 'ok', faq: { topic: 'parking', tags: ['parking', 'location'] } },
        });
        const id = created.body.faq.id as string;
        expect(
          (await json(await call('GET', `/tts_admin/faqs/${businessId}?topic=parking`))).body.faqs.map(
            (f: { id: string }) => f.id,
          ),
        ).toContain(id);
        expect(
          await json(await call('PUT', `/tts_admin/faqs/${businessId}/${id}`, { tags: ['parking'] })),
        ).toMatchObject({
          status: 200,
          body: { faq: { id, tags: ['parking'], question: 'Is there parking available?' } },
        });
        expect((await json(await call('DELETE', `/tts_admin/faqs/${businessId}/${id}`))).body).toEqual({
          status: 'ok',
          deleted: id,
        });
      });
    });
  });
}
