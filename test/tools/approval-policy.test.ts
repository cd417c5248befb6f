/**
 * Issue 43, step 1: tools declare an effect, and a tenant's approval policy per tool or family
 * (`auto` | `approve` | `off`) is set with `npm run tenants -- approvals`, the admin API, and shown
 * on the console's Tenants page. A tool that is `off` is not offered, and refused when called anyway.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../../src/adapters/http/app.js';
import { gateCall, parsePolicyList } from '../../src/contract/approvals.js';
import { tenantsCommand } from '../../src/data/cli/tenants.js';
import type { AdminDataPort } from '../../src/data/index.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { openPgliteTestPort } from '../helpers/db.js';
import { collect, message, sentToolNames, startHarness, type Harness } from '../helpers/harness.js';
import { toolResults } from './business/fixtures.js';
import { TEST_ADMIN_TOKEN } from '../helpers/tokens.js';

describe('the gate of one call', () => {
  const take = { name: 'take_message', family: 'business', effect: 'write' as const };
  const image = { name: 'generate_image', family: 'images', effect: 'spend' as const };
  const lookup = { name: 'get_faqs', family: 'business' };

  it('defaults: read runs, write waits, spend waits for guests only', () => {
    expect(gateCall(lookup, { role: 'guest' }, {}).gate).toBe('run');
    expect(gateCall(take, { role: 'member' }, {}).gate).toBe('approve');
    expect(gateCall(image, { role: 'member' }, {}).gate).toBe('run');
    expect(gateCall(image, { role: 'guest' }, {}).gate).toBe('approve');
  });

  it('the tool’s own entry wins over its family’s, which wins over the default', () => {
    const settings = { policy: { business: 'off' as const, take_message: 'auto' as const } };
    expect(gateCall(take, { role: 'member' }, settings)).toEqual({ gate: 'run', reason: 'policy' });
    expect(gateCall(lookup, { role: 'member' }, settings)).toEqual({ gate: 'off', reason: 'policy' });
  });

  it('a tainted turn makes write and spend wait even where the policy says auto, unless taint is off', () => {
    const auto = { policy: { take_message: 'auto' as const } };
    expect(gateCall(take, { role: 'member', tainted: true }, auto)).toEqual({ gate: 'approve', reason: 'taint' });
    expect(gateCall(image, { role: 'member', tainted: true }, {})).toEqual({ gate: 'approve', reason: 'taint' });
    expect(gateCall(lookup, { role: 'member', tainted: true }, {}).gate).toBe('run');
    expect(gateCall(take, { role: 'member', tainted: true }, { ...auto, taint: false }).gate).toBe('run');
    expect(gateCall(take, { role: 'member', tainted: true }, { policy: { take_message: 'off' } }).gate).toBe('off');
  });

  it('parses a CLI policy list', () => {
    expect(parsePolicyList('take_message=auto, images=approve')).toEqual({
      ok: true,
      policy: { take_message: 'auto', images: 'approve' },
    });
    expect(parsePolicyList('take_message=maybe').ok).toBe(false);
  });
});

describe('approval settings per tenant (PGlite, through the real app)', () => {
  let port: AdminDataPort;
  let llm: FakeOpenAI;
  let h: Harness;
  let n = 0;
  const cli = async (...argv: string[]) => {
    const lines: string[] = [];
    const code = await tenantsCommand(port, argv, (l) => lines.push(l));
    return { code, out: lines.join('\n') };
  };
  const offeredTo = async (workspaceId: string) => {
    const seen = llm.requestsTo('/chat/completions').length;
    llm.script({ text: 'ok' });
    await collect(h.sb.agent.handle(message('What can you do?', { workspaceId, threadId: `policy-${++n}` })));
    return sentToolNames(llm.requestsTo('/chat/completions')[seen]!.body);
  };

  beforeAll(async () => {
    port = await openPgliteTestPort();
    llm = await startFakeOpenAI();
    h = await startHarness({ llm, data: port });
  });
  afterAll(async () => {
    await h?.close();
    await llm?.close();
    await port?.close();
  });
  beforeEach(() => llm.reset());

  it('`npm run tenants -- approvals` shows, changes and resets a tenant’s settings; `off` withdraws the tool', async () => {
    expect(await cli('approvals', 'harbourside')).toEqual({
      code: 0,
      out: 'harbourside: policy default; taint on; approvers: the asker',
    });
    expect(await offeredTo('harbourside')).toContain('take_message');
    const set = await cli(
      'approvals',
      'harbourside',
      '--policy',
      'take_message=off,images=approve',
      '--taint',
      'off',
      '--approvers',
      'U1,U2',
      '--discord-role',
      '42',
    );
    expect(set).toEqual({
      code: 0,
      out:
        'harbourside: policy images=approve,take_message=off; taint off; approvers U1, U2, discord role 42\n' +
        'Running bots see the change within 10 seconds.',
    });
    expect(await offeredTo('harbourside')).not.toContain('take_message');

    // Called anyway: refused with a reason, logged.
    const seen = llm.requestsTo('/chat/completions').length;
    llm.script(
      { toolCalls: [{ name: 'take_message', arguments: { name: 'A', contact: 'a@b.c', message: 'hi' } }] },
      { text: 'Sorry.' },
    );
    await collect(h.sb.agent.handle(message('Take a message', { workspaceId: 'harbourside', threadId: 'policy-x' })));
    const second = llm.requestsTo('/chat/completions')[seen + 1];
    expect(toolResults(second).at(-1)).toBe(
      'Error: take_message is turned off in this workspace. Do not call it again; answer without it.',
    );
    expect(h.logs.lines).toContainEqual(
      expect.objectContaining({ tool: 'take_message', msg: 'model called a tool this tenant turned off; refused' }),
    );

    expect((await cli('approvals', 'harbourside', '--policy', 'take_message=sometimes')).code).toBe(2);
    expect((await cli('approvals', 'nobody')).code).toBe(1);
    expect(await cli('approvals', 'harbourside', 'reset')).toEqual({
      code: 0,
      out: 'harbourside: policy default; taint on; approvers: the asker\nRunning bots see the change within 10 seconds.',
    });
    expect(await offeredTo('harbourside')).toContain('take_message');
  });

  it('the admin API reads and sets approval settings (ADMIN_TOKEN), and refuses bad ones', async () => {
    const app = createHttpApp({ agent: h.sb.agent, log: h.sb.log, data: port, adminToken: TEST_ADMIN_TOKEN });
    const put = (slug: string, body: unknown, token = TEST_ADMIN_TOKEN) =>
      app.request(`/tts_admin/tenants/${slug}/approvals`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      });
    expect((await put('harbourside', { approvals: null }, 'wrong')).status).toBe(401);
    const approvals = { policy: { business: 'approve' }, approvers: { slackGroup: 'S123' } };
    const set = await put('harbourside', { approvals });
    expect({ status: set.status, body: await set.json() }).toEqual({
      status: 200,
      body: { status: 'ok', tenant: 'harbourside', approvals },
    });
    expect((await put('harbourside', { approvals: { policy: { take_message: 'yes' } } })).status).toBe(400);
    expect((await put('harbourside', { approvals: { who: 'anyone' } })).status).toBe(400);
    expect((await put('nobody', { approvals: null })).status).toBe(404);
    const listed = await app.request('/tts_admin/tenants/approvals', {
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    expect(((await listed.json()) as { tenants: unknown[] }).tenants).toContainEqual({
      slug: 'harbourside',
      name: 'Harbourside Physio',
      is_default: false,
      approvals,
    });
    expect((await put('harbourside', { approvals: null })).status).toBe(200);
  });
});
