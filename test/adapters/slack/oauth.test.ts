/**
 * Slack for many workspaces: installed through OAuth (@slack/oauth's InstallProvider) against
 * the fake Slack's oauth.v2.access, installations stored sealed in the database, each event
 * answered with its own workspace's token and mapped to its own tenant; uninstall forgets it.
 * Signed HTTP events, the real Bolt app, the real database port (PGlite).
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApp } from '../../../src/adapters/http/app.js';
import { startHttpServer, type RunningServer } from '../../../src/adapters/http/server.js';
import { createSlackAdapter } from '../../../src/adapters/slack/index.js';
import { createSealer } from '../../../src/adapters/slack/installations.js';
import { parseConfig } from '../../../src/config/index.js';
import type { AdminDataPort } from '../../../src/data/index.js';
import { tenantsCommand } from '../../../src/data/cli/tenants.js';
import { importRows } from '../../../src/data/import/run.js';
import { installationListRow, workspaceDecisionRow, workspaceRequestRow } from '../../../src/data/rows.js';
import { startFakeSlack, type FakeSlack, type FakeWorkspace } from '../../fakes/slack/web-api.js';
import { openPgliteTestPort } from '../../helpers/db.js';
import { runAdapter, sentMessages, startHarness, type Harness } from '../../helpers/harness.js';
import { freshTs, GLOBEX, postEvent, sign, SIGNING_SECRET, workspaceMention } from './setup.js';

const KEY = 'ab'.repeat(32);
const OAUTH_ENV = {
  SLACK_CLIENT_ID: '1111.2222',
  SLACK_CLIENT_SECRET: 'fake-client-secret',
  SLACK_STATE_SECRET: 'a-long-random-state-secret',
  SLACK_TOKEN_ENCRYPTION_KEY: KEY,
  SLACK_SIGNING_SECRET: SIGNING_SECRET,
};

const acme: FakeWorkspace = {
  teamId: 'T0ACME',
  teamName: 'Acme',
  botUserId: 'U0ACMEBOT',
  botId: 'B0ACME',
  installerUserId: 'U0ACMEADMIN',
};

interface Rig {
  h: Harness;
  server: RunningServer;
  url: string;
  stop(): Promise<void>;
}

async function startRig(slack: FakeSlack, data: AdminDataPort, env: Record<string, string> = {}): Promise<Rig> {
  const h = await startHarness({ data, env: { SLACK_API_URL: slack.url, ...OAUTH_ENV, ...env } });
  const adapter = createSlackAdapter(h.sb, { writer: { updateIntervalMs: 300, streamFlushMs: 50 } })!;
  const server = await startHttpServer(
    createHttpApp({ agent: h.sb.agent, log: h.sb.log }),
    0,
    '127.0.0.1',
    adapter.routes,
  );
  const stopAdapter = await runAdapter(h.sb, adapter);
  return { h, server, url: server.url, stop: async () => (await server.close(), await stopAdapter(), await h.close()) };
}

/** The browser's side of "Add to Slack": the install page (state cookie), Slack's consent, the redirect back. */
async function install(rig: Rig, slack: FakeSlack, ws: FakeWorkspace, opts: { cookie?: 'keep' | 'drop' } = {}) {
  const page = await fetch(`${rig.url}/slack/install`);
  const html = await page.text();
  const cookie = page.headers.get('set-cookie')?.split(';')[0] ?? '';
  const link = new URL(/href="([^"]+)"/.exec(html)![1]!.replaceAll('&amp;', '&'));
  const state = link.searchParams.get('state')!;
  const code = slack.approveInstall(ws);
  const done = await fetch(
    `${rig.url}/slack/oauth_redirect?code=${encodeURIComponent(code)}&state=${encodeURIComponent(state)}`,
    {
      headers: opts.cookie === 'drop' ? {} : { cookie },
      redirect: 'manual',
    },
  );
  return { page, html, link, cookie, done, body: await done.text() };
}

/**
 * What every install page must carry (a browser enforces them): no sniffing, no referrer, never
 * framed (clickjacking an "Add to Slack" page), a CSP that allows no script, and only Slack's
 * button image and the page's own stylesheet (admitted by its hash).
 */
function expectPageHeaders(res: Response) {
  expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  const csp = (res.headers.get('content-security-policy') ?? '').split(/;\s*/);
  expect(csp).toEqual(
    expect.arrayContaining([
      "default-src 'none'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
      "form-action 'none'",
      'img-src https://platform.slack-edge.com',
      expect.stringMatching(/^style-src 'sha256-[A-Za-z0-9+/]+=*'$/),
    ]),
  );
  expect(csp.some((d) => d.startsWith('script-src'))).toBe(false);
}

const mentionEvent = (ws: FakeWorkspace, text: string, channel: string) => workspaceMention(ws, text, { channel });

const delivered = (rig: Rig) => rig.h.logs.lines.filter((l) => l.msg === 'slack turn delivered').length;

describe('Slack OAuth: many workspaces (TENANT_MODE=open)', () => {
  let slack: FakeSlack;
  let data: AdminDataPort;
  let rig: Rig;

  beforeAll(async () => {
    [slack, data] = await Promise.all([startFakeSlack(), openPgliteTestPort({ seedDemo: false })]);
    const owner = await data.defaultTenant();
    await importRows(data, 'tenants', owner.id, [{ slug: 'globex', name: 'Globex Corp' }]);
    rig = await startRig(slack, data, { SLACK_REDIRECT_URL: 'https://bot.example.com/slack/oauth_redirect' });
  });
  afterAll(async () => {
    await rig?.stop();
    await data?.close();
    await slack?.close();
  });

  it('the install page links to Slack with the bot scopes and a state that matches its cookie', async () => {
    const page = await fetch(`${rig.url}/slack/install`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const link = new URL(/href="([^"]+)"/.exec(html)![1]!.replaceAll('&amp;', '&'));
    expect(link.origin + link.pathname).toBe('https://slack.com/oauth/v2/authorize');
    expect(link.searchParams.get('client_id')).toBe('1111.2222');
    expect(link.searchParams.get('scope')!.split(',')).toEqual(
      expect.arrayContaining(['app_mentions:read', 'chat:write', 'commands', 'users:read']),
    );
    expect(page.headers.get('set-cookie')).toContain(link.searchParams.get('state')!);
    expect(link.searchParams.get('redirect_uri')).toBe('https://bot.example.com/slack/oauth_redirect');
    expectPageHeaders(page);
    // The CSP's style hash is the page's own <style>: the page keeps its look under it.
    const style = /<style>([^<]*)<\/style>/.exec(html)![1]!;
    const hash = createHash('sha256').update(style).digest('base64');
    expect(page.headers.get('content-security-policy')).toContain(`style-src 'sha256-${hash}'`);
    expect(html).not.toMatch(/ style="/);
  });

  it('an install stores the workspace sealed, and its events are answered with its own token and tenant', async () => {
    const done = await install(rig, slack, acme);
    expect(done.done.status).toBe(200);
    expect(done.body).toContain('Switchboard is installed in <b>Acme</b>');
    expectPageHeaders(done.done);
    expect(slack.callsTo('oauth.v2.access')).toHaveLength(1);
    expect(slack.callsTo('oauth.v2.access')[0]!.args).toMatchObject({
      client_id: '1111.2222',
      redirect_uri: 'https://bot.example.com/slack/oauth_redirect',
    });

    // At rest: metadata readable, the token nowhere in the row.
    const [row] = await data.admin('slack_list_installations', {}, installationListRow);
    expect(row).toMatchObject({
      installation_key: 'T:T0ACME',
      team_id: 'T0ACME',
      team_name: 'Acme',
      bot_user_id: 'U0ACMEBOT',
      tenant_slug: 'default',
      is_enterprise_install: false,
    });
    const raw = (await data.transport.sql!.query(
      "select secret from public.slack_installations where installation_key = 'T:T0ACME'",
    )) as { secret: string }[];
    const acmeToken = [...slack.calls].reverse().find((c) => c.method === 'auth.test')!.token!;
    expect(slack.workspaceOf(acmeToken)?.teamId).toBe('T0ACME');
    expect(raw[0]!.secret).toMatch(/^v1:/);
    expect(raw[0]!.secret).not.toContain(acmeToken);
    expect(JSON.parse(createSealer(KEY).open(raw[0]!.secret, 'T:T0ACME')).bot.token).toBe(acmeToken);
    expect(() => createSealer('cd'.repeat(32)).open(raw[0]!.secret, 'T:T0ACME')).toThrow();
    expect(() => createSealer(KEY).open(raw[0]!.secret, 'T:T0OTHER')).toThrow(); // bound to its row

    rig.h.llm.script({ text: 'Hello Acme.' });
    const q = mentionEvent(acme, 'hello from acme', 'C0ACME');
    expect((await postEvent(`${rig.url}/slack/events`, q.body, sign())).status).toBe(200);
    await slack.waitFor(() => delivered(rig) >= 1, 'the Acme answer');
    const posted = slack
      .callsTo('chat.startStream')
      .concat(slack.callsTo('chat.postMessage'))
      .filter((c) => c.args.channel === 'C0ACME');
    expect(posted.length).toBeGreaterThan(0);
    expect(posted.every((c) => c.token === acmeToken)).toBe(true);
    expect(
      slack
        .threadReplies('C0ACME', q.ts)
        .map((m) => m.text)
        .join(''),
    ).toContain('Hello Acme.');
    expect(sentMessages(rig.h.llm.lastRequest('/chat/completions')!.body).at(-1)).toMatchObject({
      content: 'hello from acme',
    });
  });

  it('a second workspace gets its own token; mapped to another tenant, it is answered from that tenant', async () => {
    await install(rig, slack, GLOBEX);
    const globexToken = [...slack.calls].reverse().find((c) => c.method === 'auth.test')!.token!;
    expect(slack.workspaceOf(globexToken)?.teamId).toBe('T0GLOBEX');
    // An operator maps it to the globex tenant (the same function `npm run tenants -- approve` calls).
    const [decided] = await data.admin(
      'decide_workspace_request',
      { platform: 'slack', workspace_id: 'T0GLOBEX', tenant: 'globex' },
      workspaceDecisionRow,
    );
    expect(decided).toMatchObject({ tenant_slug: 'globex' });
    expect((await data.resolveTenant('slack', 'T0GLOBEX'))?.slug).toBe('globex');

    rig.h.llm.script({ text: 'Hello Globex.' });
    const before = delivered(rig);
    const q = mentionEvent(GLOBEX, 'hello from globex', 'C0GLOBEX');
    await postEvent(`${rig.url}/slack/events`, q.body, sign());
    await slack.waitFor(() => delivered(rig) > before, 'the Globex answer');
    const posted = slack.calls.filter((c) => c.args.channel === 'C0GLOBEX' && c.method.startsWith('chat.'));
    expect(posted.length).toBeGreaterThan(0);
    expect(posted.every((c) => c.token === globexToken)).toBe(true);
    const usage = (await data.transport.sql!.query(
      "select t.slug from public.token_ledger l join public.tenants t on t.id = l.tenant_id where l.channel_id = 'C0GLOBEX'",
    )) as { slug: string }[];
    expect(usage.map((u) => u.slug)).toEqual(['globex']);
  });

  it('an Enterprise Grid org-wide install answers every workspace of the org with the org’s token', async () => {
    const org: FakeWorkspace = {
      enterpriseId: 'E0ORG',
      enterpriseName: 'Initech',
      isEnterpriseInstall: true,
      botUserId: 'U0ORGBOT',
      botId: 'B0ORG',
      installerUserId: 'U0ORGADMIN',
    };
    const done = await install(rig, slack, org);
    expect(done.body).toContain('Switchboard is installed in <b>Initech</b>');
    const orgToken = [...slack.calls].reverse().find((c) => c.method === 'auth.test')!.token!;
    const rows = await data.admin('slack_list_installations', {}, installationListRow);
    expect(rows.find((r) => r.installation_key === 'E:E0ORG')).toMatchObject({
      enterprise_id: 'E0ORG',
      team_id: null,
      is_enterprise_install: true,
    });

    rig.h.llm.script({ text: 'Hello Initech.' });
    const before = delivered(rig);
    const q = mentionEvent({ ...org, teamId: 'T0INITECHWS' }, 'hello from a workspace of the org', 'C0INITECH');
    q.body.authorizations = [
      { enterprise_id: 'E0ORG', team_id: null, user_id: org.botUserId, is_bot: true, is_enterprise_install: true },
    ] as never;
    Object.assign(q.body, { enterprise_id: 'E0ORG' });
    await postEvent(`${rig.url}/slack/events`, q.body, sign());
    await slack.waitFor(() => delivered(rig) > before, 'the Initech answer');
    const posted = slack.calls.filter((c) => c.args.channel === 'C0INITECH' && c.method.startsWith('chat.'));
    expect(posted.length).toBeGreaterThan(0);
    expect(posted.every((c) => c.token === orgToken)).toBe(true);
    await data.admin(
      'slack_delete_installation',
      { installation_key: 'E:E0ORG' },
      installationListRow.pick({ installation_key: true }),
    );
  });

  it('refuses a redirect without the install page’s cookie (CSRF) and stores nothing', async () => {
    const before = slack.callsTo('oauth.v2.access').length;
    const other: FakeWorkspace = { ...acme, teamId: 'T0EVIL', teamName: 'Evil', botUserId: 'U0EVILBOT' };
    const done = await install(rig, slack, other, { cookie: 'drop' });
    expect(done.done.status).toBe(400);
    expect(done.body).toContain('Switchboard was not installed');
    expectPageHeaders(done.done);
    expect(slack.callsTo('oauth.v2.access')).toHaveLength(before);
    const rows = await data.admin('slack_list_installations', {}, installationListRow);
    expect(rows.map((r) => r.team_id)).toEqual(['T0ACME', 'T0GLOBEX']);
  });

  it('app_uninstalled forgets the installation; a later event from that workspace is not answered', async () => {
    const uninstall = {
      token: 'legacy',
      team_id: 'T0ACME',
      api_app_id: 'A0FAKEAPP',
      type: 'event_callback',
      event_id: `Ev${freshTs().replace('.', '')}`,
      event_time: Math.floor(Date.now() / 1000),
      event: { type: 'app_uninstalled', event_ts: freshTs() },
      authorizations: [
        { enterprise_id: null, team_id: 'T0ACME', user_id: acme.botUserId, is_bot: true, is_enterprise_install: false },
      ],
    };
    expect((await postEvent(`${rig.url}/slack/events`, uninstall, sign())).status).toBe(200);
    await slack.waitFor(
      () => rig.h.logs.lines.some((l) => l.msg === 'slack installation removed'),
      'the installation removed',
    );
    const rows = await data.admin('slack_list_installations', {}, installationListRow);
    expect(rows.map((r) => r.team_id)).toEqual(['T0GLOBEX']);
    slack.revokeTeam('T0ACME');

    const chats = rig.h.llm.requestsTo('/chat/completions').length;
    const q = mentionEvent(acme, 'are you still there?', 'C0ACME');
    const res = await postEvent(`${rig.url}/slack/events`, q.body, sign());
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(res.status).toBeLessThan(500);
    expect(rig.h.llm.requestsTo('/chat/completions')).toHaveLength(chats);
    expect(slack.threadReplies('C0ACME', q.ts)).toEqual([]);
  });
});

describe('Slack OAuth under TENANT_MODE=strict', () => {
  let slack: FakeSlack;
  let data: AdminDataPort;
  let rig: Rig;

  beforeAll(async () => {
    [slack, data] = await Promise.all([startFakeSlack(), openPgliteTestPort({ seedDemo: false })]);
    rig = await startRig(slack, data, { TENANT_MODE: 'strict' });
  });
  afterAll(async () => {
    await rig?.stop();
    await data?.close();
    await slack?.close();
  });

  it('a new workspace waits for an admin: told so on install, "not set up" in Slack, answered once approved', async () => {
    const done = await install(rig, slack, acme);
    expect(done.body).toContain('An administrator of this Switchboard has to approve the workspace');
    expect(await data.admin('list_workspace_requests', {}, workspaceRequestRow)).toMatchObject([
      { platform: 'slack', workspace_id: 'T0ACME', name: 'Acme', requested_by: 'U0ACMEADMIN' },
    ]);

    const first = mentionEvent(acme, 'hello?', 'C0ACME');
    await postEvent(`${rig.url}/slack/events`, first.body, sign());
    await slack.waitFor(() => delivered(rig) >= 1, 'the not-set-up notice');
    expect(
      slack
        .threadReplies('C0ACME', first.ts)
        .map((m) => m.text)
        .join(''),
    ).toMatch(/workspace is not set up/);
    expect(rig.h.llm.requestsTo('/chat/completions')).toHaveLength(0);

    // The admin's side: `npm run tenants -- pending`, then `approve`.
    const lines: string[] = [];
    expect(await tenantsCommand(data, ['pending'], (l) => lines.push(l))).toBe(0);
    expect(lines.join('\n')).toMatch(/slack\s+T0ACME\s+Acme\s+U0ACMEADMIN/);
    expect(
      await tenantsCommand(data, ['approve', 'slack', 'T0ACME', '--tenant', 'nope'], (l) => lines.push(l)).catch(
        (err: { detail?: string }) => err.detail,
      ),
    ).toMatch(/unknown tenant 'nope'/);
    expect(
      await tenantsCommand(data, ['approve', 'slack', 'T0ACME', '--tenant', 'default'], (l) => lines.push(l)),
    ).toBe(0);
    expect(lines.at(-1)).toBe('slack workspace T0ACME is now served by tenant default.');
    expect(await data.admin('list_workspace_requests', {}, workspaceRequestRow)).toEqual([]);
    await tenantsCommand(data, ['installations'], (l) => lines.push(l));
    expect(lines.at(-1)).toMatch(/^T:T0ACME\s+Acme\s+default\s+U0ACMEADMIN/);
    expect(lines.join('\n')).not.toMatch(/xoxb-/);
    rig.h.llm.script({ text: 'Now I can help.' });
    const second = mentionEvent(acme, 'and now?', 'C0ACME');
    await postEvent(`${rig.url}/slack/events`, second.body, sign());
    await slack.waitFor(() => delivered(rig) >= 2, 'the answer after approval');
    expect(
      slack
        .threadReplies('C0ACME', second.ts)
        .map((m) => m.text)
        .join(''),
    ).toContain('Now I can help.');
  });
});

describe('Slack OAuth: an Enterprise Grid org under TENANT_MODE=strict', () => {
  it('approving the org serves every workspace of it from the org’s tenant', async () => {
    const [slack, data] = await Promise.all([startFakeSlack(), openPgliteTestPort({ seedDemo: false })]);
    const rig = await startRig(slack, data, { TENANT_MODE: 'strict' });
    try {
      const org: FakeWorkspace = {
        enterpriseId: 'E0ORG',
        enterpriseName: 'Initech',
        isEnterpriseInstall: true,
        botUserId: 'U0ORGBOT',
        botId: 'B0ORG',
        installerUserId: 'U0ORGADMIN',
      };
      await install(rig, slack, org);
      expect(await data.admin('list_workspace_requests', {}, workspaceRequestRow)).toMatchObject([
        { workspace_id: 'E0ORG', name: 'Initech' },
      ]);
      await data.admin(
        'decide_workspace_request',
        { platform: 'slack', workspace_id: 'E0ORG', tenant: 'default' },
        workspaceDecisionRow,
      );
      rig.h.llm.script({ text: 'Served by the org’s tenant.' });
      const q = mentionEvent({ ...org, teamId: 'T0INITECHWS' }, 'hello', 'C0INITECH');
      q.body.authorizations = [
        { enterprise_id: 'E0ORG', team_id: null, user_id: org.botUserId, is_bot: true, is_enterprise_install: true },
      ] as never;
      Object.assign(q.body, { enterprise_id: 'E0ORG' });
      await postEvent(`${rig.url}/slack/events`, q.body, sign());
      await slack.waitFor(() => delivered(rig) >= 1, 'the answer');
      expect(
        slack
          .threadReplies('C0INITECH', q.ts)
          .map((m) => m.text)
          .join(''),
      ).toContain('Served by the org’s tenant.');
    } finally {
      await rig.stop();
      await data.close();
      await slack.close();
    }
  });
});

describe('Slack OAuth over Socket Mode', () => {
  it('serves the install pages on the shared server and answers an installed workspace’s event with its token', async () => {
    const [slack, data] = await Promise.all([
      startFakeSlack({ socketMode: true }),
      openPgliteTestPort({ seedDemo: false }),
    ]);
    const { SLACK_SIGNING_SECRET: _http, ...socketEnv } = OAUTH_ENV;
    const h = await startHarness({
      data,
      env: { SLACK_API_URL: slack.url, ...socketEnv, SLACK_APP_TOKEN: slack.options.appToken },
    });
    const adapter = createSlackAdapter(h.sb, { writer: { updateIntervalMs: 300, streamFlushMs: 50 } })!;
    const server = await startHttpServer(
      createHttpApp({ agent: h.sb.agent, log: h.sb.log }),
      0,
      '127.0.0.1',
      adapter.routes,
    );
    const stopAdapter = await runAdapter(h.sb, adapter);
    const rig: Rig = {
      h,
      server,
      url: server.url,
      stop: async () => (await server.close(), await stopAdapter(), await h.close()),
    };
    try {
      expect(adapter.routes?.map((r) => r.prefix)).toEqual(['/slack/install', '/slack/oauth_redirect']);
      await install(rig, slack, acme);
      const acmeToken = [...slack.calls].reverse().find((c) => c.method === 'auth.test')!.token!;
      h.llm.script({ text: 'Hello over the socket.' });
      const q = mentionEvent(acme, 'hello', 'C0SOCKET');
      await slack.socket!.deliver('events_api', q.body);
      await slack.waitFor(() => delivered(rig) >= 1, 'the answer');
      const posted = slack.calls.filter((c) => c.args.channel === 'C0SOCKET' && c.method.startsWith('chat.'));
      expect(posted.length).toBeGreaterThan(0);
      expect(posted.every((c) => c.token === acmeToken)).toBe(true);
    } finally {
      await rig.stop();
      await data.close();
      await slack.close();
    }
  });
});

describe('configuration', () => {
  const base = { OPENAI_API_KEY: 'sk-x', SLACK_SIGNING_SECRET: 's' };
  it('OAuth settings come together, with a 64-hex key, and not with SLACK_BOT_TOKEN', () => {
    expect(() => parseConfig({ ...base, SLACK_CLIENT_ID: '1.2' })).toThrow(
      /SLACK_CLIENT_SECRET[\s\S]*SLACK_STATE_SECRET[\s\S]*SLACK_TOKEN_ENCRYPTION_KEY/,
    );
    expect(() => parseConfig({ ...base, ...OAUTH_ENV, SLACK_TOKEN_ENCRYPTION_KEY: 'short' })).toThrow(
      /SLACK_TOKEN_ENCRYPTION_KEY: is 32 bytes/,
    );
    expect(() => parseConfig({ ...base, ...OAUTH_ENV, SLACK_BOT_TOKEN: 'xoxb-1' })).toThrow(
      /SLACK_BOT_TOKEN: is for one workspace/,
    );
    expect(parseConfig({ ...base, ...OAUTH_ENV }).SLACK_CLIENT_ID).toBe('1111.2222');
  });
});
