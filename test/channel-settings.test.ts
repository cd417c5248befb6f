/**
 * Settings per channel (issue 46, item 3) off the chat platforms: the precedence rules, the CLI
 * (`npm run tenants -- channel …`), the admin API, the console (the tenants page's section and the
 * turns page's sources), the cache, and a channel's model at the head of the failover chain.
 * The Slack and Discord ends are in test/adapters/{slack,discord}/channel-settings.test.ts.
 */
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountConsole } from '../src/adapters/http/admin-console/index.js';
import { createHttpApp } from '../src/adapters/http/app.js';
import { appliedSettings, patchFromWords, settingSources } from '../src/contract/channel-settings.js';
import { tenantsCommand } from '../src/data/cli/tenants.js';
import { createChannelSettingsLookup } from '../src/data/channel-settings.js';
import type { AdminDataPort } from '../src/data/index.js';
import { importRows } from '../src/data/import/run.js';
import { turnListRow } from '../src/data/rows.js';
import type { IncomingMessage } from '../src/contract/turn.js';
import { collect, replyOf, startHarness, type Harness } from './helpers/harness.js';
import { peer } from './helpers/peer.js';
import { TEST_ADMIN_TOKEN } from './helpers/tokens.js';
import { startChainRig, type ChainRig } from './provider/failover-helpers.js';

let n = 0;
/** A Slack mention in `channelId` of workspace T0ANY (unmapped: the default tenant in open mode). */
const inChannel = (channelId: string, text = 'hi'): IncomingMessage => ({
  platform: 'slack',
  workspaceId: 'T0ANY',
  channelId,
  threadId: `t-${++n}`,
  messageId: `m-${n}`,
  userId: 'U1',
  role: 'member',
  isDirect: false,
  text,
});

describe('precedence and the words people type', () => {
  const tenant = { settings: { model: 'gpt-tenant', ai_config: { language: 'de' }, tools: ['web'] } };

  it('channel over tenant over the defaults, key by key, and a record of where each came from', () => {
    const applied = appliedSettings(tenant, { language: 'da', reply_mode: 'all' }, 'gpt-default');
    expect(applied.model).toEqual({ value: 'gpt-tenant', from: 'tenant' });
    expect(applied.language).toEqual({ value: 'da', from: 'channel' });
    expect(applied.tools).toEqual({ value: ['web'], from: 'tenant' });
    expect(applied.replyMode).toEqual({ value: 'all', from: 'channel' });
    expect(applied.instructions).toEqual({ from: 'default' });
    expect(settingSources(appliedSettings({ settings: {} }, undefined, 'gpt-default'))).toEqual({
      model: 'default',
      fallbacks: 'default',
      instructions: 'default',
      tools: 'default',
      reply_mode: 'default',
      language: 'default',
    });
    // A bad stored value is the tenant's, not a broken turn.
    expect(appliedSettings({ settings: { reply_mode: 'sometimes' } }, undefined, 'm').replyMode).toEqual({
      value: 'mention',
      from: 'default',
    });
  });

  it('refuses what would not work, naming the setting; `default` clears one', () => {
    expect(patchFromWords({ replyMode: 'always' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^reply mode: /),
    });
    expect(patchFromWords({ toolsets: 'web,telepathy' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^toolsets/),
    });
    expect(patchFromWords({ language: 'Danish' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^language: /),
    });
    expect(patchFromWords({ fallbacks: '[{' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^fallbacks: expected JSON/),
    });
    expect(patchFromWords({ fallbacks: '[{"baseUrl": "ftp://x", "model": "m"}]' })).toMatchObject({ ok: false });
    expect(patchFromWords({ model: 'default', toolsets: 'none', replyMode: 'ALL' })).toEqual({
      ok: true,
      patch: { model: null, tools: [], reply_mode: 'all' },
    });
  });
});

describe('the CLI, the admin API, the console and the cache', () => {
  let h: Harness;
  let data: AdminDataPort;
  let api: Hono;
  let console_: Hono;
  const cli = async (...argv: string[]) => {
    const lines: string[] = [];
    const code = await tenantsCommand(data, argv, (l) => lines.push(l));
    return { code, out: lines.join('\n') };
  };
  const admin = (method: string, path: string, body?: unknown) =>
    api.request(
      `/tts_admin${path}`,
      {
        method,
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      },
      peer(),
    );

  beforeAll(async () => {
    h = await startHarness();
    data = h.sb.data as AdminDataPort;
    await importRows(data, 'tenants', (await data.defaultTenant()).id, [{ slug: 'globex', name: 'Globex' }]);
    api = createHttpApp({ agent: h.sb.agent, log: h.sb.log, data, adminToken: TEST_ADMIN_TOKEN });
    console_ = new Hono();
    mountConsole(console_, {
      adminToken: TEST_ADMIN_TOKEN,
      data,
      kv: h.sb.kv,
      inbox: h.sb.inbox,
      adapters: [],
      log: h.sb.log,
      config: { TRUST_PROXY: 0 },
      signInDelayMs: 0,
    });
  });
  afterAll(() => h?.close());

  it('`channel set|show|list|clear`: merges, shows the sources, clears; refuses bad input with exit 2', async () => {
    expect(await cli('channel', 'set', 'default', 'C0CLI', '--model', 'gpt-a', '--reply-mode', 'all')).toMatchObject({
      code: 0,
      out: expect.stringContaining('model="gpt-a" reply_mode="all"'),
    });
    // A second set keeps what it does not name; `default` clears one setting.
    const second = await cli('channel', 'set', 'default', 'C0CLI', '--language', 'da', '--model', 'default');
    expect(second.out).toContain('reply_mode="all" language="da"');
    expect(second.out).not.toContain('gpt-a');
    const show = await cli('channel', 'show', 'default', 'C0CLI');
    expect(show.out).toMatch(/Reply mode\s+every message\s+\(channel\)/);
    expect(show.out).toMatch(/Model\s+OPENAI_MODEL\s+\(default\)/);
    expect((await cli('channel', 'list')).out).toMatch(/default\s+C0CLI\s+reply_mode="all" language="da"/);

    const bad = await cli('channel', 'set', 'default', 'C0CLI', '--reply-mode', 'sometimes');
    expect(bad.code).toBe(2);
    expect(bad.out).toContain('reply mode: expected mention or all');
    expect((await cli('channel', 'set', 'default', 'C0CLI')).code).toBe(2);
    expect(await cli('channel', 'set', 'nobody', 'C0CLI', '--language', 'da')).toMatchObject({
      code: 1,
      out: expect.stringContaining("unknown tenant 'nobody'"),
    });
    expect((await cli('channel', 'clear', 'default', 'C0CLI')).out).toContain('its settings are cleared');
    expect((await cli('channel', 'list', 'default')).out).toBe(
      'Tenant default has no channel with settings of its own.',
    );
  });

  it('the admin API sets, reads and clears a channel’s settings, and this replica’s next turn uses them at once', async () => {
    h.llm.script({ text: 'before' });
    await collect(h.sb.agent.handle(inChannel('C0API')));
    expect(h.llm.lastRequest('/chat/completions')!.body.model).toBe('gpt-test');

    const patched = await admin('PATCH', '/tenants/default/channels/C0API', {
      model: 'gpt-api',
      instructions: 'Answer like a pirate.',
    });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({
      status: 'ok',
      channelId: 'C0API',
      settings: { model: 'gpt-api', instructions: 'Answer like a pirate.' },
    });
    // The cached "no settings" was forgotten: the next turn in the channel has the new model.
    h.llm.script({ text: 'Arr.' });
    expect(replyOf(await collect(h.sb.agent.handle(inChannel('C0API'))))?.text).toBe('Arr.');
    const req = h.llm.lastRequest('/chat/completions')!;
    expect(req.body.model).toBe('gpt-api');
    expect(JSON.stringify(req.body.messages)).toContain('Answer like a pirate.');

    expect(await (await admin('GET', '/tenants/default/channels')).json()).toMatchObject({
      channels: [{ channelId: 'C0API', settings: { model: 'gpt-api' } }],
    });
    const refused = await admin('PATCH', '/tenants/default/channels/C0API', { reply_mode: 'sometimes' });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { code: 'validation_failed', message: /^reply_mode: / } });
    expect((await admin('PATCH', '/tenants/default/channels/C0API', { tenant: 'globex' })).status).toBe(400);
    expect((await admin('PATCH', '/tenants/nobody/channels/C0API', { model: 'x' })).status).toBe(404);
    expect((await admin('GET', '/tenants/nobody/channels')).status).toBe(404);
    expect(await (await admin('DELETE', '/tenants/default/channels/C0API')).json()).toMatchObject({ cleared: true });
    expect(await (await admin('GET', '/tenants/default/channels/C0API')).json()).toMatchObject({ settings: {} });
    const stranger = await api.request('/tts_admin/tenants/default/channels', {}, peer());
    expect(stranger.status).toBe(401);
  });

  it('the console: the tenants page lists and saves channel settings; the turns page says where each setting came from', async () => {
    const jar = new Map<string, string>();
    const cookie = () => ({ cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') });
    const take = (res: Response) => {
      for (const c of res.headers.getSetCookie()) {
        const [name, value] = c.split(';')[0]!.split('=') as [string, string];
        jar.set(name, value);
      }
    };
    const csrfIn = (page: string) => /name="csrf"\s+value="([^"]+)"/.exec(page)?.[1] ?? '';
    const post = async (path: string, fields: Record<string, string>) => {
      const res = await console_.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...cookie() },
        body: new URLSearchParams(fields).toString(),
      });
      take(res);
      return res;
    };
    const login = await console_.request('/admin/login');
    take(login);
    await post('/admin/login', { token: TEST_ADMIN_TOKEN, csrf: csrfIn(await login.text()) });
    const page = await console_.request('/admin/tenants', { headers: cookie() });
    const html = await page.text();
    expect(html).toContain('Settings per channel');
    expect(html).toContain('No channel has settings of its own.');
    const csrf = csrfIn(html);

    const bad = await post('/admin/channels', { csrf, tenant: 'globex', channel: 'C0WEB', reply_mode: 'sometimes' });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('reply mode: expected mention or all');
    const saved = await post('/admin/channels', {
      csrf,
      tenant: 'default',
      channel: 'C0WEB',
      model: 'gpt-console',
      language: 'fr',
      reply_mode: '',
      toolsets: '',
    });
    expect(saved.status).toBe(303);
    const after = await (await console_.request('/admin/tenants', { headers: cookie() })).text();
    expect(after).toMatch(/data-channel="default:C0WEB"[\s\S]*gpt-console[\s\S]*fr/);

    // A turn in that channel: the turns page names the model and where each setting came from.
    h.llm.script({ text: 'Bonjour.' });
    await collect(h.sb.agent.handle(inChannel('C0WEB')));
    const [turn] = await data.admin('list_turns', { limit: 1 }, turnListRow);
    expect(turn!.model).toBe('gpt-console');
    const turns = await (await console_.request('/admin/turns', { headers: cookie() })).text();
    const row = new RegExp(`data-turn="${turn!.id}"[\\s\\S]*?</tr>`).exec(turns)![0];
    expect(row).toContain('<code>gpt-console</code>');
    expect(row).toContain('data-setting="model" data-from="channel"');
    expect(row).toContain('data-setting="language" data-from="channel"');
    expect(row).not.toContain('data-setting="instructions"');

    const cleared = await post('/admin/channels/clear', { csrf, tenant: 'default', channel: 'C0WEB' });
    expect(cleared.status).toBe(303);
    expect(await (await console_.request('/admin/tenants', { headers: cookie() })).text()).toContain(
      'No channel has settings of its own.',
    );
  });

  it('the lookup is cached like tenants: one read per channel per TTL, a change seen once it expires', async () => {
    let reads = 0;
    const counting = {
      ...data,
      forTenant: (t: { id: string }) => {
        const port = data.forTenant(t);
        return {
          ...port,
          call: ((fn, args, row) => {
            if (fn === 'channel_settings_for') reads++;
            return port.call(fn, args, row);
          }) as typeof port.call,
        };
      },
    } as AdminDataPort;
    let now = 0;
    const realNow = performance.now.bind(performance);
    const lookup = createChannelSettingsLookup(counting, { ttlMs: 10_000 });
    const tenant = await data.defaultTenant();
    await cli('channel', 'set', 'default', 'C0CACHE', '--language', 'da');
    performance.now = () => realNow() + now;
    try {
      expect(await lookup.get(tenant, 'C0CACHE')).toEqual({ language: 'da' });
      await Promise.all([lookup.get(tenant, 'C0CACHE'), lookup.get(tenant, 'C0CACHE')]);
      expect(reads).toBe(1);
      await cli('channel', 'set', 'default', 'C0CACHE', '--language', 'sv');
      expect(await lookup.get(tenant, 'C0CACHE')).toEqual({ language: 'da' });
      now += 10_001;
      expect(await lookup.get(tenant, 'C0CACHE')).toEqual({ language: 'sv' });
      expect(reads).toBe(2);
    } finally {
      performance.now = realNow;
    }
  });
});

describe('a channel’s model heads the failover chain', () => {
  let rig: ChainRig;
  beforeAll(async () => {
    rig = await startChainRig();
    const data = rig.h.sb.data as AdminDataPort;
    const lines: string[] = [];
    expect(
      await tenantsCommand(data, ['channel', 'set', 'default', 'C0FAST', '--model', 'gpt-channel'], (l) =>
        lines.push(l),
      ),
    ).toBe(0);
  });
  afterAll(() => rig?.close());

  it('asks the main endpoint for the channel’s model, then fails over to MODEL_FALLBACKS with their own model', async () => {
    rig.primary.script({ text: 'From the channel’s model.' });
    const events = await collect(rig.h.sb.agent.handle(inChannel('C0FAST')));
    expect(replyOf(events)?.text).toBe('From the channel’s model.');
    expect(rig.primary.lastRequest('/chat/completions')!.body.model).toBe('gpt-channel');
    expect(events.find((e) => e.type === 'done')).toMatchObject({ model: 'gpt-channel' });

    rig.primary.script({ status: 503 });
    rig.fallback.script({ text: 'From the fallback.' });
    const failed = await collect(rig.h.sb.agent.handle(inChannel('C0FAST')));
    expect(replyOf(failed)?.text).toBe('From the fallback.');
    expect(rig.fallback.lastRequest('/chat/completions')!.body.model).toBe('gpt-fallback');
    expect(failed.find((e) => e.type === 'done')).toMatchObject({ model: 'gpt-fallback' });
  });
});
