/**
 * Issue 44 on Slack and Discord: a tenant's MCP tool called from a Slack mention (signed Events API
 * over HTTP, the fake Slack) and from a Discord slash command (the fake gateway and REST), through
 * the real app on PGlite, against a real MCP server on loopback. Its progress notifications become
 * the turn's status events, its output reaches the model fenced, and its write tool waits behind the
 * same Approve / Deny buttons as our own tools.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDiscordAdapter } from '../../src/adapters/discord/index.js';
import type { AdminDataPort } from '../../src/data/index.js';
import { tenantsCommand } from '../../src/data/cli/tenants.js';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.js';
import { openPgliteTestPort } from '../helpers/db.js';
import { collect, message, runAdapter, sentMessages, startHarness, type Harness } from '../helpers/harness.js';
import { sleep, startMcpServer, text, type TestMcpServer } from '../helpers/mcp-servers.js';
import { eventBody, mention, postEvent, sign, startSlackRig, type SlackRig } from '../adapters/slack/setup.js';
import { approvalOf } from '../adapters/discord/approval-helpers.js';
import { interactionAnswer } from '../adapters/discord/helpers.js';

const MCP_ENV = { MCP_ALLOW_LOOPBACK_HTTP: 'true' };
let crm: TestMcpServer;

const add = async (port: AdminDataPort, h: Harness) => {
  const lines: string[] = [];
  const code = await tenantsCommand(port, ['mcp', 'add', 'default', 'crm', crm.url], (l) => lines.push(l), {
    config: h.config,
    log: h.sb.log,
  });
  expect(code, lines.join('\n')).toBe(0);
  expect(
    await tenantsCommand(port, ['mcp', 'enable', 'default', 'crm', 'create_ticket'], () => {}, {
      config: h.config,
      log: h.sb.log,
    }),
  ).toBe(0);
};

beforeAll(async () => {
  crm = await startMcpServer({
    tools: [
      {
        name: 'lookup_customer',
        description: 'Look up a customer by id.',
        inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        annotations: { readOnlyHint: true },
        handler: async (args, extra) => {
          await extra.progress(1, 2, 'searching the CRM');
          await sleep(150);
          return text(`Customer ${String(args.id)}: Ana Silva, gold tier.`);
        },
      },
      {
        name: 'create_ticket',
        inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
        handler: (args) => text(`Ticket "${String(args.title)}" created.`),
      },
    ],
  });
}, 60_000);
afterAll(async () => {
  await crm?.close();
});

describe('MCP tools from Slack', () => {
  let port: AdminDataPort;
  let rig: SlackRig;
  beforeAll(async () => {
    port = await openPgliteTestPort();
    rig = await startSlackRig({ mode: 'http', data: port, env: MCP_ENV });
    await add(port, rig.h);
  }, 60_000);
  afterAll(async () => {
    await rig?.close();
    await port?.close();
  });

  it('a mention calls the MCP tool; the answer is posted in the thread', async () => {
    const before = rig.deliveredCount();
    rig.llm.script(
      { toolCalls: [{ name: 'crm__lookup_customer', arguments: { id: '42' } }] },
      { text: 'Ana Silva is a gold customer.' },
    );
    const post = mention('who is customer 42?');
    await postEvent(rig.eventsUrl, eventBody(post), sign());
    await rig.delivered(before + 1);
    expect(crm.calls.at(-1)).toEqual({ name: 'lookup_customer', args: { id: '42' } });
    expect(
      rig.slack
        .threadReplies('C0CHAN1', post.ts)
        .map((m) => m.text)
        .join('\n'),
    ).toContain('Ana Silva is a gold customer.');
    const toolMessage = sentMessages(rig.llm.requestsTo('/chat/completions').at(-1)!.body).find(
      (m) => m.role === 'tool',
    );
    expect(String(toolMessage?.content)).toContain('<tool_output tool="crm__lookup_customer">');
    // The server's progress shows on the running tool's task in the streamed message.
    const tasks = rig.slack
      .threadReplies('C0CHAN1', post.ts)
      .flatMap((m) => m.stream?.chunks ?? [])
      .filter((c) => c.type === 'task_update');
    expect(tasks.map((c) => [c.status, c.output ?? null])).toEqual([
      ['in_progress', null],
      ['in_progress', 'crm: searching the CRM 50%'],
      ['complete', expect.any(String)],
    ]);
  });

  it('the server’s progress notifications become the turn’s status events', async () => {
    rig.llm.script({ toolCalls: [{ name: 'crm__lookup_customer', arguments: { id: '9' } }] }, { text: 'Found.' });
    const events = await collect(rig.h.sb.agent.handle(message('who is 9?', { workspaceId: 'default' })));
    const statuses = events.filter((e) => e.type === 'status').map((e) => (e as { text: string }).text);
    expect(statuses).toContain('crm: searching the CRM 50%');
  });

  it('an MCP write tool waits behind Approve / Deny', async () => {
    const before = rig.deliveredCount();
    const calls = crm.calls.length;
    rig.llm.script({ toolCalls: [{ name: 'crm__create_ticket', arguments: { title: 'Refund' } }] });
    const post = mention('open a ticket: Refund');
    await postEvent(rig.eventsUrl, eventBody(post), sign());
    await rig.delivered(before + 1);
    const reply = rig.slack.threadReplies('C0CHAN1', post.ts).at(-1)!;
    expect(reply.text).toContain('I need an OK before I go on');
    expect(JSON.stringify(reply.blocks)).toContain('approval.approve');
    expect(crm.calls.length).toBe(calls);
  });
});

describe('MCP tools from Discord', () => {
  let discord: FakeDiscord;
  let data: AdminDataPort;
  let h: Harness;
  let stop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    [discord, data] = await Promise.all([startFakeDiscord(), openPgliteTestPort({ seedDemo: false })]);
    h = await startHarness({ env: { ...discord.env(), ...MCP_ENV }, data });
    stop = await runAdapter(h.sb, createDiscordAdapter(h.sb)!);
    await add(data, h);
  }, 60_000);
  afterAll(async () => {
    await stop?.();
    await h?.close();
    await data?.close();
    await discord?.close();
  });

  it('/ask calls the MCP tool and answers', async () => {
    h.llm.script(
      { toolCalls: [{ name: 'crm__lookup_customer', arguments: { id: '7' } }] },
      { text: 'Customer 7 is Ana Silva.' },
    );
    const ask = discord.command('ask', { question: 'who is customer 7?' });
    const answers = await interactionAnswer(discord, ask.payload.token);
    expect(answers.map((m) => m.content).join('\n')).toContain('Customer 7 is Ana Silva.');
    expect(crm.calls.at(-1)).toEqual({ name: 'lookup_customer', args: { id: '7' } });
  });

  it('an MCP write tool waits behind Approve / Deny', async () => {
    const calls = crm.calls.length;
    h.llm.script({ toolCalls: [{ name: 'crm__create_ticket', arguments: { title: 'Refund' } }] });
    const ask = discord.command('ask', { question: 'open a ticket' });
    const { approval } = await approvalOf(discord, ask);
    expect(approval.content).toContain('I need an OK before I go on');
    expect(crm.calls.length).toBe(calls);
  });
});
