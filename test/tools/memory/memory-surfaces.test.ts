/**
 * Long-term memory's surfaces (issue 45) through the real app on PGlite: `GET /api/memory` and
 * `DELETE /api/memory/{id}` (a token's tenant, its own notes; an anonymous caller refused), the
 * console's memory page (counts per tenant and scope; team and channel notes, never a person's),
 * `npm run tenants -- memory export|purge`, and a turn's record of how many notes it recalled.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHttpApp } from '../../../src/adapters/http/app.js';
import { startHttpServer, type RunningServer } from '../../../src/adapters/http/server.js';
import { createApiToken } from '../../../src/data/api-tokens.js';
import { tenantsCommand } from '../../../src/data/cli/tenants.js';
import type { AdminDataPort } from '../../../src/data/index.js';
import { importRows } from '../../../src/data/import/run.js';
import { memoryAddedRow, memoryAdminRow } from '../../../src/data/rows.js';
import { openPgliteTestPort } from '../../helpers/db.js';
import { startHarness, type Harness } from '../../helpers/harness.js';
import { signedInConsole } from '../../helpers/console-session.js';

const ADMIN = 'memory-test-admin-token-0123456789';
let port: AdminDataPort;
let h: Harness;
let server: RunningServer;
let tokenA: string;
let tokenB: string;
const ids: Record<string, string> = {};

/** Adds a note as the given person (the tool's own call), returns its id. */
async function note(
  tenant: string,
  scope: 'user' | 'channel' | 'team',
  text: string,
  who: { platform?: string; user?: string; channel?: string } = {},
): Promise<string> {
  const t = (await port.tenantBySlug(tenant))!;
  const [row] = await port.forTenant(t).call(
    'memory_add',
    {
      scope,
      platform: who.platform ?? 'http',
      user_id: who.user ?? 'alice',
      text,
      member: true,
      max_per_user: 100,
      max_per_tenant: 100,
      ttl_days: 30,
      ...(scope === 'channel' ? { channel_id: who.channel ?? 'api' } : {}),
    },
    memoryAddedRow,
  );
  return row!.id!;
}

beforeAll(async () => {
  port = await openPgliteTestPort();
  h = await startHarness({ data: port });
  server = await startHttpServer(createHttpApp({ agent: h.sb.agent, log: h.sb.log, data: port }), 0, '127.0.0.1');
  await importRows(port, 'tenants', (await port.defaultTenant()).id, [{ slug: 'mem-other', name: 'Other' }]);
  ({ token: tokenA } = await createApiToken(port, 'default'));
  ({ token: tokenB } = await createApiToken(port, 'mem-other'));
}, 120_000);
afterAll(async () => {
  await server?.close();
  await h?.close();
  await port?.close();
});
beforeEach(async () => {
  for (const t of ['default', 'mem-other']) await port.admin('memory_purge', { tenant: t }, z.unknown());
  ids.alice = await note('default', 'user', 'Alice prefers short answers');
  ids.bob = await note('default', 'user', 'Bob prefers long answers', { user: 'bob' });
  ids.team = await note('default', 'team', 'Our fiscal year starts in July');
  ids.slackChannel = await note('default', 'channel', 'The launch is on May 2', { platform: 'slack', channel: 'C1' });
  ids.slackUser = await note('default', 'user', 'Carol is on leave in August', { platform: 'slack', user: 'U-carol' });
  ids.other = await note('mem-other', 'team', 'Other tenant secret plan');
});

const api = (path: string, init: RequestInit & { token?: string } = {}) =>
  fetch(`${server.url}${path}`, {
    ...init,
    headers: { ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
  });

describe('GET and DELETE /api/memory', () => {
  it('lists what the caller may see in its token’s tenant: its own notes, the API channel’s and the team’s', async () => {
    const res = await api('/api/memory?userId=alice', { token: tokenA });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { memories: { id: string; scope: string; text: string }[] };
    expect(body.memories.map((m) => [m.scope, m.text]).sort()).toEqual([
      ['team', 'Our fiscal year starts in July'],
      ['user', 'Alice prefers short answers'],
    ]);
    expect(body.memories.find((m) => m.scope === 'user')?.id).toBe(ids.alice);
    // Another tenant's token sees only its own tenant.
    const other = (await (await api('/api/memory?userId=alice', { token: tokenB })).json()) as {
      memories: { text: string }[];
    };
    expect(other.memories.map((m) => m.text)).toEqual(['Other tenant secret plan']);
  });

  it('refuses an anonymous caller (known only by its address) and a token naming another tenant', async () => {
    expect((await api('/api/memory')).status).toBe(401);
    expect((await api(`/api/memory/${ids.team}`, { method: 'DELETE' })).status).toBe(401);
    expect((await api('/api/memory?tenant=default', { token: tokenB })).status).toBe(403);
  });

  it('forgets the caller’s own note or a team note; never another person’s or another tenant’s', async () => {
    expect((await api(`/api/memory/${ids.bob}?userId=alice`, { method: 'DELETE', token: tokenA })).status).toBe(404);
    expect((await api(`/api/memory/${ids.slackUser}?userId=alice`, { method: 'DELETE', token: tokenA })).status).toBe(
      404,
    );
    expect((await api(`/api/memory/${ids.team}`, { method: 'DELETE', token: tokenB })).status).toBe(404);
    expect((await api('/api/memory/not-a-uuid', { method: 'DELETE', token: tokenA })).status).toBe(404);
    const own = await api(`/api/memory/${ids.alice}?userId=alice`, { method: 'DELETE', token: tokenA });
    expect(own.status).toBe(200);
    expect(await own.json()).toEqual({ forgotten: true, id: ids.alice, scope: 'user' });
    expect((await api(`/api/memory/${ids.team}?userId=alice`, { method: 'DELETE', token: tokenA })).status).toBe(200);
    const left = await port.admin('memory_admin_list', { tenant: 'default' }, memoryAdminRow);
    expect(left.map((r) => r.text).sort()).toEqual([
      'Bob prefers long answers',
      'Carol is on leave in August',
      'The launch is on May 2',
    ]);
  });
});

describe('the console’s memory page', () => {
  it('shows counts per tenant and scope, and team and channel notes, never a person’s own', async () => {
    const session = await signedInConsole({
      adminToken: ADMIN,
      data: port,
      kv: h.sb.kv,
      inbox: h.sb.inbox,
      adapters: [],
      log: h.sb.log,
      config: { TRUST_PROXY: 0 },
      signInDelayMs: 0,
    });
    const res = await session.get('/admin/memory');
    expect(res.status).toBe(200);
    const page = await res.text();
    const row = (slug: string) => new RegExp(`data-memory-tenant="${slug}"[\\s\\S]*?</tr>`).exec(page)?.[0] ?? '';
    expect(
      row('default')
        .match(/>\s*(\d+)\s*</g)
        ?.map((m) => m.replace(/[^\d]/g, '')),
    ).toEqual(['3', '1', '1']);
    expect(
      row('mem-other')
        .match(/>\s*(\d+)\s*</g)
        ?.map((m) => m.replace(/[^\d]/g, '')),
    ).toEqual(['0', '0', '1']);
    expect(page).toContain('Our fiscal year starts in July');
    expect(page).toContain('The launch is on May 2');
    expect(page).toContain('Other tenant secret plan');
    for (const own of ['Alice prefers', 'Bob prefers', 'Carol is on leave']) expect(page).not.toContain(own);
    expect(page).toMatch(/href="\/admin\/memory"\s+aria-current="page"/);
  });
});

describe('npm run tenants -- memory export|purge', () => {
  const run = async (...argv: string[]) => {
    const out: string[] = [];
    const code = await tenantsCommand(port, argv, (l) => out.push(l));
    return { code, out };
  };

  it('exports a tenant’s notes as JSON lines and purges them (all, or one scope)', async () => {
    const exported = await run('memory', 'export', 'default');
    expect(exported.code).toBe(0);
    const rows = exported.out.map((l) => JSON.parse(l) as { id: string; scope: string; text: string });
    expect(rows.map((r) => r.id).sort()).toEqual(
      [ids.alice, ids.bob, ids.team, ids.slackChannel, ids.slackUser].sort(),
    );
    expect(exported.out.join('\n')).not.toContain('Other tenant');

    expect(await run('memory', 'purge', 'default', 'user')).toEqual({
      code: 0,
      out: ['Tenant default: 3 user notes forgotten.'],
    });
    expect(await run('memory', 'purge', 'default')).toEqual({ code: 0, out: ['Tenant default: 2 notes forgotten.'] });
    expect((await run('memory', 'export', 'default')).out).toEqual([]);
    expect((await run('memory', 'export', 'mem-other')).out).toHaveLength(1);

    expect(await run('memory', 'purge', 'nobody')).toEqual({ code: 1, out: ["Error: unknown tenant 'nobody'."] });
    expect((await run('memory', 'export', 'nobody')).code).toBe(1);
    expect((await run('memory', 'purge', 'default', 'everyone')).code).toBe(2);
    expect((await run('memory', 'wipe', 'default')).code).toBe(2);
  });

  it('a tenant’s notes go with the tenant', async () => {
    const other = (await port.tenantBySlug('mem-other'))!;
    const count = async () =>
      Number(
        (
          await port.transport.sql!.query(`select count(*)::int as n from public.memories where tenant_id = $1`, [
            other.id,
          ])
        )[0]?.n,
      );
    expect(await count()).toBe(1);
    await port.transport.sql!.query(`delete from public.tenants where id = $1`, [other.id]);
    expect(await count()).toBe(0);
    await importRows(port, 'tenants', (await port.defaultTenant()).id, [{ slug: 'mem-other', name: 'Other' }]);
  });
});
