/**
 * The console's Forget on the memory page (issue 45) through the real HTTP app with the console
 * mounted on it and signed in as a browser would, on PGlite (and on Postgres with
 * TEST_DATABASE_URL): a team or channel note forgotten leaves the page, the database and every
 * turn's recall; a person's own note is refused and kept; an unknown or already forgotten note is
 * said to be gone; a POST without the session or its CSRF token changes nothing.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHttpApp } from '../../../src/adapters/http/app.js';
import type { AdminDataPort } from '../../../src/data/index.js';
import { importRows } from '../../../src/data/import/run.js';
import { memoryAddedRow, memoryAdminRow } from '../../../src/data/rows.js';
import { MEMORY_NOTE_HEAD } from '../../../src/tools/memory/index.js';
import { signedInConsole } from '../../helpers/console-session.js';
import {
  noticeWithoutPostgres,
  openPgliteTestPort,
  openPostgresTestPort,
  TEST_DATABASE_URL,
} from '../../helpers/db.js';
import {
  captureLogs,
  collect,
  message,
  sentMessages,
  startHarness,
  type Harness,
  type LogCapture,
} from '../../helpers/harness.js';

noticeWithoutPostgres('the console’s Forget on Postgres');

const ADMIN = 'memory-forget-admin-token-0123456789';
const TEAM_NOTE = 'Our fiscal year starts in July';

type Open = () => Promise<{ port: AdminDataPort; close(): Promise<void> }>;

function defineConsoleForget(label: string, open: Open): void {
  describe(label, () => {
    let port: AdminDataPort;
    let closePort: () => Promise<void>;
    let h: Harness;
    let logs: LogCapture;
    let session: Awaited<ReturnType<typeof signedInConsole>>;
    const ids: Record<string, string> = {};

    /** Adds a note as a member would (the tool's own call); returns its id. */
    const note = async (tenant: string, scope: 'user' | 'channel' | 'team', text: string, user = 'U-alice') => {
      const t = (await port.tenantBySlug(tenant))!;
      const [row] = await port.forTenant(t).call(
        'memory_add',
        {
          scope,
          platform: 'slack',
          user_id: user,
          text,
          member: true,
          max_per_user: 100,
          max_per_tenant: 100,
          ttl_days: 30,
          ...(scope === 'channel' ? { channel_id: 'C-plan' } : {}),
        },
        memoryAddedRow,
      );
      return row!.id!;
    };
    const stored = async (tenant = 'default') =>
      (await port.admin('memory_admin_list', { tenant }, memoryAdminRow)).map((r) => r.text).sort();

    /** The Forget form of a note's row on the page, as a browser would send it. */
    const formOf = (page: string, id: string): Record<string, string> => {
      const row = new RegExp(`data-memory="${id}"[\\s\\S]*?</tr>`).exec(page)?.[0] ?? '';
      const form = /<form[^>]*action="\/admin\/memory\/forget"[\s\S]*?<\/form>/.exec(row)?.[0] ?? '';
      return Object.fromEntries(
        [...form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]),
      );
    };
    const memoryPage = async () => (await session.get('/admin/memory')).text();
    const csrfOf = (page: string) => /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';

    /** Whether a member's turn in Slack channel C-plan carried the team note into its prompt. */
    const recalled = async (): Promise<boolean> => {
      const before = h.llm.requestsTo('/chat/completions').length;
      h.llm.script({ text: 'Answer.' });
      await collect(
        h.sb.agent.handle(
          message('When does our fiscal year start, July?', {
            platform: 'slack',
            workspaceId: 'T-A',
            channelId: 'C-plan',
            threadId: `th-${Math.random()}`,
            userId: 'U-alice',
            isDirect: false,
          }),
        ),
      );
      const first = h.llm.requestsTo('/chat/completions')[before]!;
      return sentMessages(first.body).some(
        (m) => typeof m.content === 'string' && m.content.startsWith(MEMORY_NOTE_HEAD) && m.content.includes(TEAM_NOTE),
      );
    };

    beforeAll(async () => {
      ({ port, close: closePort } = await open());
      h = await startHarness({ data: port });
      await port.admin(
        'set_tenant_tools',
        { tenant: 'default', tools: ['artifacts', 'campaigns', 'competitors', 'memory', 'quotes', 'web'] },
        z.unknown(),
      );
      await importRows(port, 'tenants', (await port.defaultTenant()).id, [{ slug: 'forget-other', name: 'Other' }]);
      const captured = captureLogs('info');
      logs = captured.logs;
      const app = createHttpApp({ agent: h.sb.agent, log: h.sb.log, data: port, adminToken: ADMIN });
      session = await signedInConsole(
        {
          adminToken: ADMIN,
          data: port,
          kv: h.sb.kv,
          inbox: h.sb.inbox,
          adapters: [],
          log: captured.log,
          config: { TRUST_PROXY: 0 },
          signInDelayMs: 0,
        },
        app,
      );
    }, 120_000);
    afterAll(async () => {
      await h?.close();
      await closePort?.();
    });
    beforeEach(async () => {
      for (const t of ['default', 'forget-other']) await port.admin('memory_purge', { tenant: t }, z.unknown());
      ids.team = await note('default', 'team', TEAM_NOTE);
      ids.channel = await note('default', 'channel', 'This channel plans the spring launch');
      ids.user = await note('default', 'user', 'Alice prefers short answers');
      ids.other = await note('forget-other', 'team', 'Other tenant secret plan');
      logs.lines.length = 0;
    });

    it('a team note forgotten leaves the page, the database and recall; the log names it without its text', async () => {
      expect(await recalled()).toBe(true);
      const page = await memoryPage();
      const form = formOf(page, ids.team!);
      expect(form).toEqual({ csrf: csrfOf(page), tenant: 'default', id: ids.team });

      const res = await session.post('/admin/memory/forget', form);
      expect(res.status).toBe(303);
      const location = res.headers.get('location')!;
      expect(location).toBe('/admin/memory?notice=forgotten&scope=team&tenant=default');
      const after = await (await session.get(location)).text();
      expect(after).toContain('Forgotten: a team note of default.');
      expect(after).not.toContain(TEAM_NOTE);
      expect(after).toContain('This channel plans the spring launch');

      expect(await stored()).toEqual(['Alice prefers short answers', 'This channel plans the spring launch']);
      expect(await recalled()).toBe(false);

      const line = logs.lines.find((l) => l.event === 'memory_forgotten');
      expect(line).toMatchObject({ event: 'memory_forgotten', via: 'console', scope: 'team', tenant: 'default' });
      expect(logs.text()).not.toContain('fiscal year');
    });

    it('a channel note, and another tenant’s team note, are forgotten from their own rows', async () => {
      const page = await memoryPage();
      const channel = await session.post('/admin/memory/forget', formOf(page, ids.channel!));
      expect(channel.headers.get('location')).toBe('/admin/memory?notice=forgotten&scope=channel&tenant=default');
      const other = await session.post('/admin/memory/forget', formOf(page, ids.other!));
      expect(other.headers.get('location')).toBe('/admin/memory?notice=forgotten&scope=team&tenant=forget-other');
      expect(await stored()).toEqual(['Alice prefers short answers', TEAM_NOTE]);
      expect(await stored('forget-other')).toEqual([]);
    });

    it('refuses a person’s own note: kept, still counted, never shown, and said why', async () => {
      const csrf = csrfOf(await memoryPage());
      const res = await session.post('/admin/memory/forget', { csrf, tenant: 'default', id: ids.user! });
      expect(res.status).toBe(403);
      const page = await res.text();
      expect(page).toContain('Not allowed: that is a person&#39;s own note.');
      expect(page).toMatch(/role="alert"/);
      expect(page).not.toContain('Alice prefers');
      expect(await stored()).toContain('Alice prefers short answers');
      expect(logs.lines.find((l) => l.event === 'memory_forget_refused')).toMatchObject({
        via: 'console',
        tenant: 'default',
        code: 'not_allowed',
      });
      expect(logs.lines.some((l) => l.event === 'memory_forgotten')).toBe(false);
    });

    it('says an unknown, already forgotten or other tenant’s note is gone; an unknown tenant is named', async () => {
      const page = await memoryPage();
      const csrf = csrfOf(page);
      const gone = 'That note is already gone: tenant default has no note with that id';
      const unknown = await session.post('/admin/memory/forget', {
        csrf,
        tenant: 'default',
        id: '00000000-0000-4000-8000-000000000000',
      });
      expect(unknown.status).toBe(404);
      expect(await unknown.text()).toContain(gone);

      expect((await session.post('/admin/memory/forget', formOf(page, ids.team!))).status).toBe(303);
      const again = await session.post('/admin/memory/forget', formOf(page, ids.team!));
      expect(again.status).toBe(404);
      expect(await again.text()).toContain(gone);

      const elsewhere = await session.post('/admin/memory/forget', { csrf, tenant: 'default', id: ids.other! });
      expect(elsewhere.status).toBe(404);
      expect(await stored('forget-other')).toEqual(['Other tenant secret plan']);

      const garbled = await session.post('/admin/memory/forget', { csrf, tenant: 'default', id: 'not-a-uuid' });
      expect(garbled.status).toBe(404);
      const nobody = await session.post('/admin/memory/forget', { csrf, tenant: 'nobody', id: ids.channel! });
      expect(nobody.status).toBe(404);
      expect(await nobody.text()).toContain('Cannot forget the note: unknown tenant &#39;nobody&#39;.');
      expect(await stored()).toEqual(['Alice prefers short answers', 'This channel plans the spring launch']);
    });

    it('a POST without the session, or without its CSRF token, changes nothing', async () => {
      const form = formOf(await memoryPage(), ids.team!);
      const anonymous = await session.app.request('/admin/memory/forget', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
      expect(anonymous.status).toBe(401);
      expect(await anonymous.text()).toContain('Your session has ended.');
      const forged = await session.post('/admin/memory/forget', { ...form, csrf: 'forged' });
      expect(forged.status).toBe(403);
      const { csrf: _dropped, ...noCsrf } = form;
      expect((await session.post('/admin/memory/forget', noCsrf)).status).toBe(403);
      expect(await stored()).toContain(TEAM_NOTE);
      expect(logs.lines.some((l) => l.event === 'memory_forgotten')).toBe(false);
    });

    it('a notice in a link names only a known tenant and a team or channel note', async () => {
      for (const query of [
        'scope=user&tenant=default',
        'scope=team&tenant=%3Cb%3Eevil',
        'scope=nonsense&tenant=default',
      ])
        expect(await (await session.get(`/admin/memory?notice=forgotten&${query}`)).text()).not.toContain('Forgotten:');
    });
  });
}

defineConsoleForget('the console’s Forget on PGlite', async () => {
  const port = await openPgliteTestPort();
  return { port, close: () => port.close() };
});

describe.skipIf(!TEST_DATABASE_URL)('Postgres', () => {
  defineConsoleForget('the console’s Forget on Postgres', async () => {
    const { port, db } = await openPostgresTestPort();
    return {
      port,
      close: async () => {
        await port.close();
        await db.drop();
      },
    };
  });
});
