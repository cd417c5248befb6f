/**
 * A tenant's MCP servers (issue 44), through the whole agent core over a zero-latency scripted LLM
 * (in process) and real MCP servers built with the SDK on loopback (Streamable HTTP):
 *
 *   1. CPU per turn: the same tenant's turns without MCP servers, then with 3 servers and 60 tools
 *      (lists cached; `find_tools` offered in their place). Target: ≤ 5 ms more.
 *   2. The first-turn prompt (messages + tools as JSON text) of the marketing team's campaign
 *      question with the 60 tools. Target: ≤ 1,500 tokens.
 *   3. One MCP call's time over the server's own (argument check, the SDK, HTTP on loopback, the
 *      output cut and screened). Target: ≤ 10 ms.
 *
 *   npx tsx bench/mcp.ts [turns=300] [calls=300]
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ChatMessage, Completion, CompletionRequest, LlmClient } from '../src/contract/llm.js';
import { countMessageTokens, countTokens } from '../src/contract/tokens.js';
import { newThreadState } from '../src/contract/thread-state.js';
import type { ToolContext } from '../src/contract/tool.js';
import { parseConfig } from '../src/config/index.js';
import type { AdminDataPort } from '../src/data/index.js';
import { addServer } from '../src/mcp/admin.js';
import { silentLogger } from '../src/telemetry/logger.js';
import { createSwitchboard } from '../src/wiring/app.js';
import { QUESTIONS } from './tokens/first-turn.js';
import { manyTools, startMcpServer, text } from '../test/helpers/mcp-servers.js';

const turns = Number(process.argv[2] ?? 300);
const calls = Number(process.argv[3] ?? 300);

/** Answers at once; remembers the last request (for the prompt count). */
class ScriptedLlm implements LlmClient {
  readonly model = 'scripted';
  last: CompletionRequest | undefined;
  async complete(req: CompletionRequest): Promise<Completion> {
    this.last = req;
    req.onText?.('Done.');
    return { content: 'Done.', toolCalls: [], finishReason: 'stop', usage: { promptTokens: 100, completionTokens: 2 } };
  }
  async embed(texts: string[]): Promise<number[][]> {
    return texts.map(() => Array.from({ length: 1536 }, () => 0));
  }
}

let serverMs = 0;
const servers = await Promise.all([
  startMcpServer({ tools: manyTools('invoice', 20, 'invoice') }),
  startMcpServer({ tools: manyTools('shipment', 20, 'shipment tracking') }),
  startMcpServer({
    tools: [
      ...manyTools('ticket', 19, 'support ticket'),
      {
        name: 'echo',
        annotations: { readOnlyHint: true },
        inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
        handler: (args) => {
          const t = performance.now();
          const out = text(`echo ${String(args.q)}`);
          serverMs += performance.now() - t;
          return out;
        },
      },
    ],
  }),
]);
const llm = new ScriptedLlm();
const config = parseConfig({
  OPENAI_API_KEY: 'sk-bench',
  LOG_LEVEL: 'silent',
  PGLITE_MEMORY: '1',
  MCP_ALLOW_LOOPBACK_HTTP: 'true',
  USER_MESSAGES_PER_MINUTE: '0',
});
const sb = await createSwitchboard(config, silentLogger(), { llm });
const tenant = await sb.data.defaultTenant();

let n = 0;
const turn = async (text = 'hello there', thread = `t-${++n % 50}`) => {
  for await (const _ of sb.agent.handle({
    platform: 'http',
    workspaceId: 'default',
    channelId: 'bench',
    threadId: thread,
    messageId: `m-${n}`,
    userId: `u-${n % 1000}`,
    role: 'member',
    isDirect: true,
    text,
  })) {
    // drain
  }
};
const cpuPerTurn = async () => {
  for (let i = 0; i < 50; i++) await turn(); // warm
  const start = process.cpuUsage();
  for (let i = 0; i < turns; i++) await turn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / turns;
};

const promptTokens = async () => {
  await turn(QUESTIONS.default![0]!, `first-${++n}`);
  const req = llm.last!;
  return {
    tokens: countMessageTokens(req.messages as ChatMessage[]) + countTokens(JSON.stringify(req.tools ?? [])),
    tools: req.tools?.length ?? 0,
    detail: process.env.BENCH_DETAIL
      ? `${countMessageTokens(req.messages as ChatMessage[])} msgs; ${(req.tools ?? []).map((t) => `${t.type === 'function' ? t.function.name : '?'} ${countTokens(JSON.stringify(t))}`).join(', ')}`
      : '',
  };
};
const promptWithout = await promptTokens();
const without = await cpuPerTurn();
for (const [i, name] of ['billing', 'shipping', 'support'].entries()) {
  const added = await addServer(sb.mcp!, config, tenant.id, { name, url: servers[i]!.url });
  if (!added.ok) throw new Error(added.error);
}
await sb.mcp!.hub.listings(tenant.id);
const withMcp = await cpuPerTurn();
console.log(
  `CPU per turn over ${turns} turns: ${without.toFixed(2)} ms without MCP servers, ${withMcp.toFixed(2)} ms with 3 servers and 60 tools (+${(withMcp - without).toFixed(2)} ms; target ≤ 5) ${withMcp - without <= 5 ? 'OK' : 'MISSED'}`,
);

const { tokens: prompt, tools: offered, detail } = await promptTokens();
if (detail) console.log(`without: ${promptWithout.detail}\nwith: ${detail}`);
console.log(
  `first-turn prompt of a campaign question with 60 MCP tools: ${prompt} tokens (messages + tools as JSON; ${offered} tools offered; ${promptWithout.tokens} without MCP servers; target ≤ 1,500) ${prompt <= 1500 ? 'OK' : 'MISSED'}`,
);

// One call: the tool as the registry offers it (find_tools would offer it by name; the hub's list has it).
await (sb.data as AdminDataPort).admin(
  'set_tenant_tools',
  { tenant: 'default', tools: [] },
  (await import('zod')).z.unknown(),
);
const state = newThreadState('bench');
state.tools.mcp = { found: ['support__echo'] };
const ctx = {
  tenant,
  state,
  data: (sb.data as AdminDataPort).forTenant(tenant),
  log: silentLogger(),
  signal: new AbortController().signal,
  now: () => new Date(),
  emit: () => {},
} as unknown as ToolContext;
const echo = (await sb.mcp!.hub.tools(ctx)).find((t) => t.name === 'support__echo');
if (!echo) throw new Error('support__echo is not offered');
// A bare SDK client on the same server, call for call alternated with ours: what the SDK and loopback HTTP cost alone.
const bare = new Client({ name: 'bench', version: '1' });
await bare.connect(new StreamableHTTPClientTransport(new URL(servers[2]!.url)));
const ours: number[] = [];
const sdk: number[] = [];
for (let i = 0; i < calls + 50; i++) {
  serverMs = 0;
  let t = performance.now();
  await bare.callTool({ name: 'echo', arguments: { q: `x${i}` } });
  if (i >= 50) sdk.push(performance.now() - t - serverMs);
  serverMs = 0;
  t = performance.now();
  await echo.run(echo.input.parse({ q: `x${i}` }), ctx);
  if (i >= 50) ours.push(performance.now() - t - serverMs);
}
await bare.close();
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
console.log(
  `one MCP call over the server's own time, ${calls} calls on loopback: p50 ${pct(ours, 50).toFixed(2)} ms, p99 ${pct(ours, 99).toFixed(2)} ms (a bare SDK client: p50 ${pct(sdk, 50).toFixed(2)} ms; target ≤ 10) ${pct(ours, 50) <= 10 ? 'OK' : 'MISSED'}`,
);
await sb.close();
await Promise.all(servers.map((s) => s.close()));
