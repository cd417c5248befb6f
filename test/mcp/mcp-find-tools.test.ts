/**
 * Issue 44: token economy and misbehaving servers, through the real app on PGlite against real MCP
 * servers on loopback. A tenant with 60 enabled MCP tools (3 servers) is offered `find_tools`
 * instead, its first-turn prompt stays within 1,500 tokens, and the matches of a search are
 * offered from the next step on and can be called. A huge result is cut to
 * MCP_OUTPUT_MAX_TOKENS; a tool whose schema does not compile is left out (its siblings stay);
 * a server answering 500s is left out without failing the turn.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ChatMessage } from '../../src/contract/llm.js';
import { countMessageTokens, countTokens } from '../../src/contract/tokens.js';
import type { AdminDataPort } from '../../src/data/index.js';
import { tenantsCommand } from '../../src/data/cli/tenants.js';
import { QUESTIONS } from '../../bench/tokens/first-turn.js';
import {
  collect,
  message,
  replyOf,
  sentMessages,
  sentToolNames,
  startHarness,
  type Harness,
} from '../helpers/harness.js';
import { manyTools, startMcpServer, text, type TestMcpServer } from '../helpers/mcp-servers.js';

let h: Harness;
let port: AdminDataPort;
const servers: TestMcpServer[] = [];
let n = 0;
/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const anyRow = z.unknown();
const chats = () => h.llm.requestsTo('/chat/completions');
const cli = async (...argv: string[]) => {
  const lines: string[] = [];
  const code = await tenantsCommand(port, argv, (l) => lines.push(l), { config: h.config, log: h.sb.log });
  return { code, out: lines.join('\n') };
};
const turn = (text: string, workspaceId = 'default') =>
  collect(h.sb.agent.handle(message(text, { workspaceId, threadId: `ft-${++n}` })));

beforeAll(async () => {
  h = await startHarness({
    env: {
      MCP_ALLOW_LOOPBACK_HTTP: 'true',
      MCP_OUTPUT_MAX_TOKENS: '200',
      MODEL_INPUT_IMAGES: 'on',
      // Seed 001's per-tool limits apply by the namespaced name.
      TOOL_RATE_LIMITS: JSON.stringify({ shipping__shipment_5: { guest: 0, member: 1, windowHours: 1 } }),
    },
  });
  port = h.sb.data as AdminDataPort;
  for (const [name, prefix, theme] of [
    ['billing', 'invoice', 'invoice'],
    ['shipping', 'shipment', 'shipment tracking'],
    ['support', 'ticket', 'support ticket'],
  ] as const) {
    const server = await startMcpServer({ tools: manyTools(prefix, 20, theme) });
    servers.push(server);
    expect((await cli('mcp', 'add', 'default', name, server.url)).code).toBe(0);
  }
}, 60_000);
afterAll(async () => {
  await h?.close();
  await Promise.all(servers.map((s) => s.close()));
});
beforeEach(() => h.llm.reset());

describe('60 MCP tools: find_tools', () => {
  it('offers find_tools instead of 60 tools; the first-turn prompt stays within 1,500 tokens', async () => {
    h.llm.script({ text: 'ok' });
    await turn(QUESTIONS.default![0]!);
    const body = chats()[0]!.body;
    const names = sentToolNames(body);
    expect(names).toContain('find_tools');
    expect(names.filter((t) => t.includes('__'))).toEqual([]);
    const tokens = countMessageTokens(body.messages as ChatMessage[]) + countTokens(JSON.stringify(body.tools));
    expect(tokens).toBeLessThanOrEqual(1_500);
  });

  it('a search offers its matches from the next step on, and one of them is called', async () => {
    h.llm.script(
      { toolCalls: [{ name: 'find_tools', arguments: { query: 'shipment tracking 3' } }] },
      { toolCalls: [{ name: 'shipping__shipment_3', arguments: { id: 'S-9' } }] },
      { text: 'It is on its way.' },
    );
    const events = await turn('Where is shipment S-9?');
    expect(replyOf(events)?.text).toBe('It is on its way.');
    const second = sentToolNames(chats()[1]!.body).filter((t) => t.includes('__'));
    expect(second.length).toBeGreaterThan(0);
    expect(second.length).toBeLessThanOrEqual(8);
    expect(second.every((t) => t.startsWith('shipping__'))).toBe(true);
    expect(servers[1]!.calls).toEqual([{ name: 'shipment_3', args: { id: 'S-9' } }]);
    const found = sentMessages(chats()[1]!.body).find((m) => m.role === 'tool');
    expect(String(found?.content)).toContain('shipping__shipment_3');
  });
});

describe('rate limits', () => {
  it('TOOL_RATE_LIMITS applies by the namespaced name', async () => {
    const before = servers[1]!.calls.length;
    h.llm.script(
      { toolCalls: [{ name: 'find_tools', arguments: { query: 'shipment 5' } }] },
      { toolCalls: [{ name: 'shipping__shipment_5', arguments: { id: 'A' } }] },
      { toolCalls: [{ name: 'shipping__shipment_5', arguments: { id: 'B' } }] },
      { text: 'Limited.' },
    );
    await turn('Track A then B');
    expect(servers[1]!.calls.slice(before)).toEqual([{ name: 'shipment_5', args: { id: 'A' } }]);
    const refused = sentMessages(chats()[3]!.body)
      .filter((m) => m.role === 'tool')
      .at(-1);
    expect(String(refused?.content)).toContain('Rate limit reached: shipping__shipment_5 allows 1 call');
  });
});

describe('misbehaving servers', () => {
  let odd: TestMcpServer;
  let flaky: TestMcpServer;
  beforeAll(async () => {
    await port.admin('set_tenant_tools', { tenant: 'harbourside', tools: [] }, anyRow);
    odd = await startMcpServer({
      tools: [
        {
          name: 'huge',
          annotations: { readOnlyHint: true },
          handler: () => text('word '.repeat(200_000)),
        },
        {
          name: 'chart',
          annotations: { readOnlyHint: true },
          handler: () => ({
            content: [
              { type: 'text', text: 'Sales chart:' },
              { type: 'image', mimeType: 'image/png', data: PNG },
            ],
          }),
        },
        {
          name: 'broken_schema',
          annotations: { readOnlyHint: true },
          inputSchema: { type: 'object', properties: { a: { type: 'no-such-type' } } },
        },
        {
          name: 'free_form',
          description: 'Takes any fields.',
          annotations: { readOnlyHint: true },
          inputSchema: { type: 'object', additionalProperties: { type: 'string' } },
          handler: (args) => text(`got ${Object.keys(args).join(',')}`),
        },
      ],
    });
    flaky = await startMcpServer({ tools: [{ name: 'maybe', annotations: { readOnlyHint: true } }] });
    servers.push(odd, flaky);
    expect((await cli('mcp', 'add', 'harbourside', 'odd', odd.url)).code).toBe(0);
    expect((await cli('mcp', 'add', 'harbourside', 'flaky', flaky.url)).code).toBe(0);
  }, 60_000);

  it('a huge result is cut to MCP_OUTPUT_MAX_TOKENS; a schema that does not compile leaves only that tool out; a free-form schema is offered non-strict', async () => {
    h.llm.script({ toolCalls: [{ name: 'odd__huge', arguments: {} }] }, { text: 'Long.' });
    const events = await turn('Go', 'harbourside');
    expect(replyOf(events)?.text).toBe('Long.');
    const offered = (chats()[0]!.body.tools ?? []) as { function: { name: string; strict?: boolean } }[];
    const names = offered.map((t) => t.function.name);
    expect(names).toEqual(expect.arrayContaining(['odd__huge', 'odd__free_form', 'flaky__maybe']));
    expect(names).not.toContain('odd__broken_schema');
    expect(offered.find((t) => t.function.name === 'odd__free_form')?.function.strict).toBe(false);
    expect(offered.find((t) => t.function.name === 'odd__huge')?.function.strict).toBe(true);
    const result = String(sentMessages(chats()[1]!.body).find((m) => m.role === 'tool')?.content);
    expect(result).toContain('[output cut at 200 tokens]');
    expect(countTokens(result)).toBeLessThan(260);
  });

  it('an image a tool returns is shown to a model that takes images, and not kept in the history', async () => {
    h.llm.script({ toolCalls: [{ name: 'odd__chart', arguments: {} }] }, { text: 'A rising line.' }, { text: 'ok' });
    const thread = `img-${++n}`;
    await collect(h.sb.agent.handle(message('Show sales', { workspaceId: 'harbourside', threadId: thread })));
    const shown = JSON.stringify(sentMessages(chats()[1]!.body));
    expect(shown).toContain(`data:image/png;base64,${PNG}`);
    expect(String(sentMessages(chats()[1]!.body).find((m) => m.role === 'tool')?.content)).toContain(
      '[image 1: image/png',
    );
    await collect(h.sb.agent.handle(message('And now?', { workspaceId: 'harbourside', threadId: thread })));
    expect(JSON.stringify(sentMessages(chats()[2]!.body))).not.toContain('base64');
  });

  it('a server answering 500s is left out; the turn answers', async () => {
    flaky.failWith = 500;
    h.sb.mcp!.hub.invalidate((await port.tenantBySlug('harbourside'))!.id);
    h.llm.script({ toolCalls: [{ name: 'flaky__maybe', arguments: {} }] }, { text: 'Could not reach it.' });
    const events = await turn('Try it', 'harbourside');
    expect(replyOf(events)?.text).toBe('Could not reach it.');
    h.llm.reset();
    h.llm.script({ text: 'ok' });
    await turn('Again', 'harbourside');
    expect(sentToolNames(chats()[0]!.body)).not.toContain('flaky__maybe');
    expect(sentToolNames(chats()[0]!.body)).toContain('odd__huge');
    expect(h.sb.mcp!.hub.health().find((s) => s.server === 'flaky')).toMatchObject({ state: 'failing' });
  });
});
