import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTerminalSession } from '../../../src/adapters/terminal/session.js';
import { createHttpApp } from '../../../src/adapters/http/app.js';
import { startHttpServer, type RunningServer } from '../../../src/adapters/http/server.js';
import type { TurnEvent } from '../../../src/contract/turn.js';
import { createArtifactTools } from '../../../src/tools/artifacts/index.js';
import { collect, message, replyOf, startHarness, type Harness } from '../../helpers/harness.js';
import { unfence } from '../../helpers/fence.js';

let h: Harness;
let server: RunningServer;

beforeAll(async () => {
  h = await startHarness({ tools: createArtifactTools(undefined).tools });
  server = await startHttpServer(createHttpApp({ agent: h.sb.agent, log: h.sb.log }), 0, '127.0.0.1');
});
afterAll(async () => {
  await server.close();
  await h.close();
});
beforeEach(() => h.llm.reset());

const DIAGRAM = 'flowchart TD\n  Ask[User asks] --> Search[web_search]\n  Search --> Answer[Answer with citations]';
const scriptDiagram = () =>
  h.llm.script(
    {
      toolCalls: [
        {
          name: 'generate_artifact',
          arguments: { type: 'mermaid', title: 'Search flow', code: `\`\`\`mermaid\n${DIAGRAM}\n\`\`\`` },
        },
      ],
    },
    { text: 'Here is the flow as a Mermaid diagram.' },
  );
const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
type ToolResult = Extract<TurnEvent, { type: 'tool_result' }>;
const toolResults = (events: TurnEvent[]) => events.filter((e): e is ToolResult => e.type === 'tool_result');

describe('generate_artifact delivery', () => {
  it('returns the artifact as a base64 file with a preview over HTTP', async () => {
    scriptDiagram();
    const body = (await (await post({ message: 'Diagram the search flow' })).json()) as {
      response: string;
      blocks: unknown[];
    };
    expect(body.response).toBe('Here is the flow as a Mermaid diagram.');
    expect(body.blocks).toEqual([
      {
        type: 'file',
        file: {
          name: 'search-flow.mmd',
          mime: 'text/plain',
          title: 'Search flow',
          preview: DIAGRAM,
          size: DIAGRAM.length,
          base64: Buffer.from(DIAGRAM).toString('base64'),
        },
      },
    ]);
    const tool = (h.llm.requestsTo('/chat/completions')[1]!.body.messages as { role: string; content: string }[]).find(
      (m) => m.role === 'tool',
    );
    expect(unfence(tool?.content)).toBe(
      'Artifact "Search flow" (mermaid, 3 lines) delivered to the user as search-flow.mmd. Do not repeat its code; say in a sentence or two what it is and how to use it.',
    );
  });

  it('streams artifact_complete with the code before the reply', async () => {
    scriptDiagram();
    const text = await (await post({ message: 'Diagram the search flow' }, { accept: 'text/event-stream' })).text();
    const events = text
      .split('\n\n')
      .filter((c) => c.trim())
      .map((c) => ({
        event: /^event: (.*)$/m.exec(c)?.[1],
        data: JSON.parse(/^data: (.*)$/m.exec(c)?.[1] ?? 'null') as unknown,
      }));
    expect(events.map((e) => e.event).filter((n) => n !== 'text_delta')).toEqual([
      'thread',
      'status',
      'tool_call_start',
      'tool_result',
      'artifact_complete',
      'reply',
      'done',
    ]);
    expect(events.find((e) => e.event === 'artifact_complete')?.data).toEqual({
      artifact: {
        type: 'mermaid',
        title: 'Search flow',
        name: 'search-flow.mmd',
        mime: 'text/plain',
        size: DIAGRAM.length,
        lines: 3,
        code: DIAGRAM,
      },
    });
  });

  it('is saved to disk by the console, which prints the path and the preview', async () => {
    const filesDir = await mkdtemp(join(tmpdir(), 'sb-artifact-'));
    let out = '';
    const session = createTerminalSession(h.sb.agent, { write: (t) => (out += t) }, { filesDir });
    scriptDiagram();
    await session.send('Diagram the search flow');
    expect(out).toContain('⏳ Creating an artifact');
    expect(out).toContain('✓ generate_artifact: search-flow.mmd (3 lines)');
    const saved = /📎 Search flow saved to (\S+)/.exec(out)?.[1];
    expect(saved).toMatch(/search-flow\.mmd$/);
    expect(await readFile(saved!, 'utf8')).toBe(DIAGRAM);
    expect(out).toContain(`saved to ${saved}\n${DIAGRAM}`);
  });

  it('sends bad arguments and invalid code back to the model, which can fix them', async () => {
    h.llm.script(
      { toolCalls: [{ name: 'generate_artifact', arguments: { type: 'pdf', title: 'Report', code: '%PDF' } }] },
      {
        toolCalls: [
          { name: 'generate_artifact', arguments: { type: 'svg', title: 'Logo', code: '<svg><circle r="4"></svg>' } },
        ],
      },
      {
        toolCalls: [
          { name: 'generate_artifact', arguments: { type: 'svg', title: 'Logo', code: '<svg><circle r="4"/></svg>' } },
        ],
      },
      { text: 'Here is the logo.' },
    );
    const events = await collect(h.sb.agent.handle(message('Make a logo', { threadId: 'artifact-fix' })));
    const [unknownType, badSvg, fixed] = toolResults(events);
    expect(unknownType).toMatchObject({ ok: false, summary: expect.stringMatching(/^Invalid arguments: type: /) });
    expect(badSvg).toMatchObject({
      ok: false,
      summary:
        'Invalid svg artifact: svg tags do not match: <circle> closed by </svg>. Fix the code and call generate_artifact again.',
    });
    expect(fixed).toMatchObject({ ok: true, summary: 'logo.svg (1 line)' });
    const files = replyOf(events)!.blocks.filter((b) => b.type === 'file');
    expect(files).toHaveLength(1);
    expect(files[0]).toMatchObject({ file: { name: 'logo.svg', mime: 'image/svg+xml' } });
  });
});

describe('generate_artifact written by ARTIFACT_MODEL', () => {
  let local: Harness;
  let localServer: RunningServer;
  beforeAll(async () => {
    local = await startHarness({ tools: createArtifactTools({ ARTIFACT_MODEL: 'gpt-artifact-writer' }).tools });
    localServer = await startHttpServer(createHttpApp({ agent: local.sb.agent, log: local.sb.log }), 0, '127.0.0.1');
  });
  afterAll(async () => {
    await localServer.close();
    await local.close();
  });

  it('streams the code over SSE as it is written, before the tool result, then delivers the checked file and counts its tokens', async () => {
    local.llm.script(
      {
        toolCalls: [
          {
            name: 'generate_artifact',
            arguments: { type: 'mermaid', title: 'Search flow', request: 'The web search flow: ask, search, answer.' },
          },
        ],
      },
      { text: `\`\`\`mermaid\n${DIAGRAM}\n\`\`\`` },
      { text: 'Here is the flow.' },
    );
    const res = await fetch(`${localServer.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ message: 'Diagram the search flow' }),
    });
    const events = [...(await res.text()).matchAll(/event: (\S+)\ndata: (.*)\n/g)].map((m) => ({
      event: m[1]!,
      data: JSON.parse(m[2]!) as Record<string, unknown>,
    }));
    const names = events.map((e) => e.event);
    const deltas = events.filter((e) => e.event === 'artifact_delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((d) => d.data.delta).join('')).toBe(`\`\`\`mermaid\n${DIAGRAM}\n\`\`\``);
    expect(names.indexOf('artifact_delta')).toBeLessThan(names.indexOf('tool_result'));
    expect(names.indexOf('tool_result')).toBeLessThan(names.indexOf('artifact_complete'));
    const writer = local.llm.requestsTo('/chat/completions')[1]!.body;
    expect(writer).toMatchObject({ model: 'gpt-artifact-writer', stream: true });
    expect(JSON.stringify(writer.messages)).toContain('The web search flow: ask, search, answer.');
    expect(events.find((e) => e.event === 'artifact_complete')?.data).toMatchObject({
      artifact: { type: 'mermaid', code: DIAGRAM, name: 'search-flow.mmd' },
    });
    const reply = events.find((e) => e.event === 'reply')!.data as {
      blocks: { type: string; file?: { base64: string } }[];
    };
    expect(reply.blocks[0]?.file?.base64).toBe(Buffer.from(DIAGRAM).toString('base64'));
    // The writer's tokens are the turn's too (three completions).
    const done = events.find((e) => e.event === 'done')!.data as { usage: { completionTokens: number } };
    const perCall = local.llm.requestsTo('/chat/completions').length;
    expect(perCall).toBe(3);
    expect(done.usage.completionTokens).toBeGreaterThan(0);
  });

  it('refuses a call with neither request nor code, and a written artifact that does not check out', async () => {
    local.llm.script(
      { toolCalls: [{ name: 'generate_artifact', arguments: { type: 'svg', title: 'Logo' } }] },
      {
        toolCalls: [{ name: 'generate_artifact', arguments: { type: 'svg', title: 'Logo', request: 'A round logo' } }],
      },
      { text: 'not an svg at all' },
      { text: 'Sorry.' },
    );
    const events = await collect(local.sb.agent.handle(message('Make a logo', { threadId: 'artifact-writer-bad' })));
    const results = events.filter((e): e is Extract<TurnEvent, { type: 'tool_result' }> => e.type === 'tool_result');
    expect(results.map((r) => r.ok)).toEqual([false, false]);
    expect(results[0]!.summary).toMatch(/Give `request` \(what to build\) or `code`/);
    expect(results[1]!.summary).toMatch(/^Invalid svg artifact/);
  });
});
