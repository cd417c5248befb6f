/**
 * Callers pick their tenant by credential (issue 28): per-tenant API tokens made by
 * `npm run tenants -- token …` or the admin API, stored as hashes only, and the HTTP API serving
 * a token's own tenant; a loopback caller without API_TOKEN may name a tenant, nobody else may.
 * Through the real HTTP app on a socket, on PGlite and on Postgres.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApp } from '../src/adapters/http/app.js';
import { startHttpServer, type RunningServer } from '../src/adapters/http/server.js';
import { hashApiToken } from '../src/data/api-tokens.js';
import { tenantsCommand, TENANTS_USAGE } from '../src/data/cli/tenants.js';
import type { AdminDataPort } from '../src/data/index.js';
import { noticeWithoutPostgres, openPgliteTestPort, openPostgresTestPort, TEST_DATABASE_URL } from './helpers/db.js';
import { sentMessages, startHarness, type Harness } from './helpers/harness.js';
import { addTenant } from './tools/business/fixtures.js';

const API = 'operator-api-token';
const ADMIN = 'operator-admin-token';

if (!TEST_DATABASE_URL) noticeWithoutPostgres('tenant token tests on Postgres');
defineTokenTests('tenant tokens on PGlite', async () => {
  const port = await openPgliteTestPort();
  return { port, close: () => port.close() };
});
describe.skipIf(!TEST_DATABASE_URL)('on Postgres', () => {
  defineTokenTests('tenant tokens on Postgres', async () => {
    const { port, db } = await openPostgresTestPort();
    return { port, close: async () => (await port.close(), await db.drop()) };
  });
});

function defineTokenTests(label: string, open: () => Promise<{ port: AdminDataPort; close(): Promise<void> }>): void {
  describe(label, () => {
    let port: AdminDataPort;
    let closePort: () => Promise<void>;
    let h: Harness;
    /** API_TOKEN set (and the admin API on). */
    let withToken: RunningServer;
    /** No API_TOKEN: loopback callers are anonymous. */
    let open_: RunningServer;

    beforeAll(async () => {
      ({ port, close: closePort } = await open());
      h = await startHarness({ data: port });
      await addTenant(port, 'harbour', false);
      withToken = await startHttpServer(
        createHttpApp({ agent: h.sb.agent, log: h.sb.log, data: port, apiToken: API, adminToken: ADMIN }),
        0,
        '127.0.0.1',
      );
      open_ = await startHttpServer(createHttpApp({ agent: h.sb.agent, log: h.sb.log, data: port }), 0, '127.0.0.1');
    }, 60_000);
    afterAll(async () => {
      await withToken?.close();
      await open_?.close();
      await h?.close();
      await closePort?.();
    });

    const cli = async (...argv: string[]) => {
      const lines: string[] = [];
      const code = await tenantsCommand(port, argv, (l) => lines.push(l));
      return { code, lines };
    };
    const chat = (server: RunningServer, body: Record<string, unknown>, token?: string) =>
      fetch(`${server.url}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
    const usage = (query: string, token: string) =>
      fetch(`${withToken.url}/api/usage?${query}`, { headers: { authorization: `Bearer ${token}` } });
    /** The tenant the model was told it serves, from the last request's system prompt. */
    const servedTenant = () =>
      /team assistant for ([^,.]+)[,.]/.exec(
        String(sentMessages(h.llm.lastRequest('/chat/completions')!.body).find((m) => m.role === 'system')?.content),
      )?.[1];

    it('runs every form the docs show for `npm run tenants --`, options as `--name value` or `--name=value`; an unknown option is exit 2 naming it', async () => {
      // A tenant of its own, so the tokens and tools it sets are no other test's business.
      await addTenant(port, 'forms', false);
      expect(await cli('--help')).toEqual({ code: 0, lines: [TENANTS_USAGE] });
      expect(await cli()).toEqual({ code: 0, lines: [TENANTS_USAGE] });
      expect(await cli('pending')).toEqual({ code: 0, lines: ['No workspace is waiting for a tenant.'] });
      expect(await cli('approve', 'slack', 'T0123ABCD', '--tenant', 'forms')).toEqual({
        code: 0,
        lines: ['slack workspace T0123ABCD is now served by tenant forms.'],
      });
      expect(await cli('approve', 'console', 'front-desk', '--tenant=forms')).toEqual({
        code: 0,
        lines: ['console workspace front-desk is now served by tenant forms.'],
      });
      expect(await port.resolveTenant('console', 'front-desk')).toMatchObject({ slug: 'forms' });
      expect(await cli('installations')).toEqual({
        code: 0,
        lines: ['No Slack workspace has installed the app through OAuth.'],
      });
      const created = await cli('token', 'create', 'forms', '--label=crm');
      expect(created.code).toBe(0);
      const listed = await cli('token', 'list');
      expect(listed.lines.find((l) => l.startsWith(created.lines[0]!.split(' ')[2]!))).toMatch(
        /\sforms\s+sbt_\S+\s+crm\s/,
      );
      expect((await cli('tools', 'forms', 'business,web')).lines[0]).toBe(
        'Tenant forms now has the tool families: business, web.',
      );
      expect((await cli('list')).lines.find((l) => l.startsWith('forms '))).toMatch(/\sbusiness,web$/);
      expect((await cli('tools', 'forms', 'none')).lines[0]).toBe('Tenant forms now has the tool families: (none).');
      expect((await cli('tools', 'forms', 'auto')).lines[0]).toMatch(
        /^Tenant forms now gets its tool families automatically/,
      );

      // Refused before anything is written: the option named, then the usage.
      const unknown = await cli('approve', 'slack', 'T0NOPE', '--tenants', 'forms');
      expect(unknown).toEqual({ code: 2, lines: [`Unknown option '--tenants'.\n${TENANTS_USAGE}`] });
      expect(await port.resolveTenant('slack', 'T0NOPE')).toBeNull();
      expect(await cli('approve', 'slack', 'T0NOPE', '--tenant')).toEqual({
        code: 2,
        lines: [`Option '--tenant <value>' argument missing.\n${TENANTS_USAGE}`],
      });
      expect((await cli('list', '--all')).code).toBe(2);
    });

    it('token create prints a token once and keeps only its hash; the token gets its tenant from the HTTP API', async () => {
      const created = await cli('token', 'create', 'harbour', '--label', 'crm backend');
      expect(created.code).toBe(0);
      const token = created.lines.find((l) => l.startsWith('sbt_'))!;
      expect(token).toMatch(/^sbt_[A-Za-z0-9_-]{43}$/);
      expect(created.lines[0]).toMatch(/^Created token [0-9a-f-]{36} \(sbt_[A-Za-z0-9_-]{8}…\) for tenant harbour\.$/);

      // Stored: the hash and a short prefix, never the token.
      const stored = await port.transport.sql!.query('select token_hash, prefix from public.api_tokens');
      expect(stored).toContainEqual({ token_hash: hashApiToken(token), prefix: token.slice(0, 12) });
      expect(JSON.stringify(stored)).not.toContain(token.slice(12));

      h.llm.script({ text: 'Harbour here.', usage: { prompt_tokens: 40, completion_tokens: 4 } });
      const res = await chat(withToken, { message: 'who are you?', userId: 'crm-user-1' }, token);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ response: 'Harbour here.' });
      expect(servedTenant()).toBe('Tenant harbour');
      // Its usage is its own tenant's by default; another tenant's is refused.
      expect(await (await usage('userId=crm-user-1', token)).json()).toMatchObject({
        tenant: 'harbour',
        promptTokens: 40,
        turns: 1,
      });
      const other = await usage('tenant=default', token);
      expect(other.status).toBe(403);
      expect(await other.json()).toMatchObject({ error: { code: 'forbidden' } });

      // list: no secret, the prefix, and when it was last used.
      const list = await cli('token', 'list', 'harbour');
      expect(list.code).toBe(0);
      expect(list.lines[0]).toMatch(/^id\s+tenant\s+prefix\s+label\s+created\s+last used\s+revoked$/);
      expect(list.lines).toHaveLength(2);
      expect(list.lines[1]).toContain(`${token.slice(0, 12)}…`);
      expect(list.lines[1]).toContain('crm backend');
      expect(list.lines.join('\n')).not.toContain(token.slice(12));
      const [row] = await port.transport.sql!.query(
        'select last_used_at from public.api_tokens where token_hash = $1',
        [hashApiToken(token)],
      );
      expect(row?.last_used_at).not.toBeNull();
    });

    it('a token cannot choose another tenant by naming it (403), nor can API_TOKEN; API_TOKEN is the default tenant', async () => {
      const { lines } = await cli('token', 'create', 'harbour');
      const token = lines.find((l) => l.startsWith('sbt_'))!;
      const named = await chat(withToken, { message: 'hi', tenant: 'default' }, token);
      expect(named.status).toBe(403);
      expect(await named.json()).toEqual({
        error: { code: 'forbidden', message: expect.stringContaining('belongs to tenant "harbour"') },
      });
      expect((await chat(withToken, { message: 'hi', tenant: 'harbour' }, API)).status).toBe(403);
      h.llm.script({ text: 'Default here.' }, { text: 'Harbour again.' });
      expect((await chat(withToken, { message: 'hi', tenant: 'default' }, API)).status).toBe(200);
      expect(servedTenant()).not.toBe('Tenant harbour');
      expect((await chat(withToken, { message: 'hi', tenant: 'harbour' }, token)).status).toBe(200);
      expect(servedTenant()).toBe('Tenant harbour');
      // A made-up token of the right shape, or a wrong bearer without API_TOKEN, is a 401, never a fallback.
      const forged = `sbt_${'A'.repeat(43)}`;
      expect((await chat(withToken, { message: 'hi' }, forged)).status).toBe(401);
      expect((await chat(open_, { message: 'hi' }, 'not-a-token')).status).toBe(401);
    });

    it('revoke by prefix: the token stops working at once; a too-short or unknown prefix revokes nothing', async () => {
      const { lines } = await cli('token', 'create', 'harbour');
      const token = lines.find((l) => l.startsWith('sbt_'))!;
      expect(await cli('token', 'revoke', 'sbt_')).toEqual({
        code: 1,
        lines: [expect.stringMatching(/^Error: no live token sbt_$/)],
      });
      const nothing = await cli('token', 'revoke', 'sbt_zzzzzzzzzz');
      expect(nothing.code).toBe(1);
      const revoked = await cli('token', 'revoke', token.slice(0, 12));
      expect(revoked.code).toBe(0);
      expect(revoked.lines[0]).toMatch(/^Revoked token .* of tenant harbour\.$/);
      expect((await chat(withToken, { message: 'hi' }, token)).status).toBe(401);
      expect((await cli('token', 'create', 'no-such-tenant')).lines).toEqual([
        "Error: unknown tenant 'no-such-tenant'",
      ]);
    });

    it('the admin API creates, lists (no secrets) and revokes tokens behind ADMIN_TOKEN', async () => {
      const admin = (method: string, path: string, body?: unknown, token = ADMIN) =>
        fetch(`${withToken.url}/tts_admin${path}`, {
          method,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
      expect((await admin('POST', '/tokens', { tenant: 'harbour' }, API)).status).toBe(401);
      expect((await admin('POST', '/tokens', { tenant: 'nope' })).status).toBe(404);
      const created = await admin('POST', '/tokens', { tenant: 'harbour', label: 'from admin' });
      expect(created.status).toBe(201);
      const { token, record } = (await created.json()) as { token: string; record: { id: string; prefix: string } };
      expect(record).toMatchObject({ prefix: token.slice(0, 12) });
      h.llm.script({ text: 'Admin-made token works.' });
      expect((await chat(withToken, { message: 'hi' }, token)).status).toBe(200);
      const listed = await (await admin('GET', '/tokens?tenant=harbour')).text();
      expect(listed).toContain(record.id);
      expect(listed).not.toContain(token.slice(12));
      const revoked = await admin('DELETE', `/tokens/${record.id}`);
      expect(await revoked.json()).toMatchObject({
        status: 'ok',
        revoked: { id: record.id, revoked_at: expect.any(String) },
      });
      expect((await chat(withToken, { message: 'hi' }, token)).status).toBe(401);
    });

    it('a loopback caller without API_TOKEN may name its tenant; an unknown one is a 404', async () => {
      h.llm.script({ text: 'Local harbour.' });
      const res = await chat(open_, { message: 'hi', tenant: 'harbour' });
      expect(res.status).toBe(200);
      expect(servedTenant()).toBe('Tenant harbour');
      const unknown = await chat(open_, { message: 'hi', tenant: 'nope' });
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toEqual({ error: { code: 'not_found', message: 'No tenant "nope".' } });
    });
  });
}
