import { mkdtemp, readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTerminalSession } from '../../../src/adapters/terminal/session.js';
import { createHttpApp } from '../../../src/adapters/http/app.js';
import { startHttpServer, type RunningServer } from '../../../src/adapters/http/server.js';
import type { TurnEvent } from '../../../src/contract/turn.js';
import { parseConfig } from '../../../src/config/index.js';
import { createImageClient, createImageTools, imageParams, sniffImage } from '../../../src/tools/images/index.js';
import { toolParameters } from '../../../src/agent/json-schema.js';
import { startFakeOpenAI, TINY_PNG_BASE64, type FakeOpenAI } from '../../fakes/openai-server.js';
import { collect, message, startHarness, type Harness } from '../../helpers/harness.js';
import { geminiViolations, openAiStrictViolations } from '../../helpers/schema-rules.js';
import { unfence } from '../../helpers/fence.js';
import type { AdminDataPort } from '../../../src/data/index.js';
import { tenantApprovalsRow } from '../../../src/data/rows.js';

const PNG = Buffer.from(TINY_PNG_BASE64, 'base64');
let llm: FakeOpenAI;
let h: Harness;
let server: RunningServer;

const configFor = (url: string, extra: Record<string, string> = {}) =>
  parseConfig({
    OPENAI_API_KEY: 'sk-test-images-key',
    OPENAI_BASE_URL: url,
    OPENAI_MAX_RETRIES: '0',
    IMAGE_MODEL: 'gpt-image-1',
    ...extra,
  });

beforeAll(async () => {
  llm = await startFakeOpenAI();
  h = await startHarness({ llm, tools: createImageTools(configFor(llm.url)).tools });
  // The HTTP tests below call as an anonymous loopback client, a guest: a guest's image waits for
  // a person by default (issue 43, test/adapters/approvals-http.test.ts); here it runs at once.
  await (h.sb.data as AdminDataPort).admin(
    'set_tenant_approvals',
    { tenant: 'default', approvals: { policy: { generate_image: 'auto' } } },
    tenantApprovalsRow,
  );
  server = await startHttpServer(createHttpApp({ agent: h.sb.agent, log: h.sb.log }), 0, '127.0.0.1');
});
afterAll(async () => {
  await server.close();
  await h.close();
  await llm.close();
});
beforeEach(() => llm.reset());

const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
const scriptImageTurn = (args: Record<string, unknown> = { prompt: 'A lighthouse at dusk', style: 'watercolor' }) =>
  llm.script({ toolCalls: [{ name: 'generate_image', arguments: args }] }, { text: 'Here is your lighthouse.' });
type ToolResult = Extract<TurnEvent, { type: 'tool_result' }>;
const toolResults = (events: TurnEvent[]) => events.filter((e): e is ToolResult => e.type === 'tool_result');

describe('generate_image', () => {
  it('calls the configured images endpoint and returns the PNG as a base64 file over HTTP', async () => {
    scriptImageTurn();
    const res = await post({ message: 'Draw a lighthouse at dusk in watercolor' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { response: string; blocks: unknown[] };
    expect(body.response).toBe('Here is your lighthouse.');
    expect(body.blocks).toEqual([
      {
        type: 'file',
        file: {
          name: 'a-lighthouse-at-dusk.png',
          mime: 'image/png',
          title: 'A lighthouse at dusk',
          preview: 'A lighthouse at dusk Style: watercolor',
          size: PNG.byteLength,
          base64: TINY_PNG_BASE64,
        },
      },
    ]);
    const request = llm.lastRequest('/images/generations')!;
    expect(request.headers.authorization).toBe('Bearer sk-test-images-key');
    expect(request.body).toEqual({ model: 'gpt-image-1', prompt: 'A lighthouse at dusk\n\nStyle: watercolor', n: 1 });
  });

  it('streams image_complete between tool_call_start and the reply that carries the file', async () => {
    scriptImageTurn({ prompt: 'A red bicycle' });
    const res = await post({ message: 'Draw a red bicycle' }, { accept: 'text/event-stream' });
    const events = (await res.text())
      .split('\n\n')
      .filter((c) => c.trim())
      .map((c) => ({
        event: /^event: (.*)$/m.exec(c)?.[1],
        data: JSON.parse(/^data: (.*)$/m.exec(c)?.[1] ?? 'null') as unknown,
      }));
    const names = events.map((e) => e.event).filter((n) => n !== 'text_delta');
    expect(names).toEqual(['thread', 'status', 'tool_call_start', 'tool_result', 'image_complete', 'reply', 'done']);
    expect(events.find((e) => e.event === 'image_complete')?.data).toEqual({
      image: {
        name: 'a-red-bicycle.png',
        mime: 'image/png',
        size: PNG.byteLength,
        title: 'A red bicycle',
        prompt: 'A red bicycle',
        revisedPrompt: 'A red bicycle',
      },
    });
    expect(events.find((e) => e.event === 'reply')?.data).toMatchObject({
      blocks: [{ type: 'file', file: { base64: TINY_PNG_BASE64 } }],
    });
  });

  it('is saved to disk by the console, which prints the path', async () => {
    const filesDir = await mkdtemp(join(tmpdir(), 'sb-img-'));
    let out = '';
    const session = createTerminalSession(h.sb.agent, { write: (t) => (out += t) }, { filesDir });
    scriptImageTurn();
    await session.send('Draw a lighthouse at dusk in watercolor');
    expect(out).toContain('⏳ Generating an image');
    expect(out).toContain('Here is your lighthouse.');
    const saved = /📎 A lighthouse at dusk saved to (\S+)/.exec(out)?.[1];
    expect(saved).toMatch(/a-lighthouse-at-dusk\.png$/);
    expect(await readFile(saved!)).toEqual(PNG);
  });

  it('tells the model the image is attached, so it does not invent a link', async () => {
    scriptImageTurn({ prompt: 'A red bicycle' });
    await collect(h.sb.agent.handle(message('Draw a red bicycle', { threadId: 'img-content' })));
    const tool = (llm.requestsTo('/chat/completions')[1]!.body.messages as { role: string; content: string }[]).find(
      (m) => m.role === 'tool',
    );
    expect(unfence(tool?.content)).toMatch(
      /^Image generated and attached for the user as a-red-bicycle\.png \(image\/png, \d+ bytes\)\..*Do not add a link/,
    );
  });

  it('rejects an empty prompt as a fixable error without calling the images endpoint', async () => {
    llm.script(
      { toolCalls: [{ name: 'generate_image', arguments: { prompt: '  ', style: null } }] },
      { text: 'What should I draw?' },
    );
    const events = await collect(h.sb.agent.handle(message('draw', { threadId: 'img-empty' })));
    expect(toolResults(events)[0]).toMatchObject({
      ok: false,
      summary: expect.stringMatching(/prompt: describe the image to generate/),
    });
    expect(llm.requestsTo('/images/generations')).toHaveLength(0);
  });

  it('turns a content-policy refusal into a fixable error and an outage into a clear one, both logged', async () => {
    const refusal = {
      error: {
        message: 'Your request was rejected by our safety system.',
        type: 'image_generation_user_error',
        code: 'content_policy_violation',
      },
    };
    llm.script(
      () => {
        llm.failNext(1, 400, refusal); // the images request that this tool call makes
        return { toolCalls: [{ name: 'generate_image', arguments: { prompt: 'something disallowed' } }] };
      },
      () => {
        llm.failNext(1, 503);
        return { toolCalls: [{ name: 'generate_image', arguments: { prompt: 'a calm lake' } }] };
      },
      { text: 'Sorry, no image today.' },
    );
    const events = await collect(h.sb.agent.handle(message('draw', { threadId: 'img-fail' })));
    const [refused, down] = toolResults(events);
    expect(refused).toMatchObject({ ok: false, summary: expect.stringMatching(/content policy\. Rephrase/) });
    expect(down).toMatchObject({
      ok: false,
      summary: expect.stringMatching(/Image generation is unavailable right now/),
    });
    const warnings = h.logs.lines.filter((l) => l.msg === 'image generation failed');
    expect(warnings.map((l) => [l.level, l.kind])).toEqual([
      [40, 'refused'],
      [40, 'unavailable'],
    ]);
    expect(h.logs.text()).not.toContain('sk-test-images-key');
  });

  it('asks DALL·E and compatible endpoints for base64, and downloads a URL answer when that is all it gets', async () => {
    expect(imageParams('dall-e-3', 'x')).toEqual({ model: 'dall-e-3', prompt: 'x', n: 1, response_format: 'b64_json' });
    expect(imageParams('gpt-image-1', 'x')).toEqual({ model: 'gpt-image-1', prompt: 'x', n: 1 });
    // A provider that ignores response_format and answers with a link to the file.
    const provider = createServer((req, res) => {
      if (req.url === '/v1/images/generations') {
        const { port } = provider.address() as AddressInfo;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ created: 0, data: [{ url: `http://127.0.0.1:${port}/files/img.png` }] }));
      } else {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end(PNG);
      }
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    const { port } = provider.address() as AddressInfo;
    const client = createImageClient({ ...configFor(`http://127.0.0.1:${port}/v1`), IMAGE_MODEL: 'dall-e-3' });
    const image = await client.generate('a cat', new AbortController().signal);
    provider.close();
    expect(image).toMatchObject({ mime: 'image/png', ext: 'png' });
    expect(Buffer.from(image.data)).toEqual(PNG);
  });

  it('recognises image formats by their bytes', () => {
    expect(sniffImage(PNG)).toEqual({ mime: 'image/png', ext: 'png' });
    expect(sniffImage(Uint8Array.from([0xff, 0xd8, 0xff, 0xe0]))).toEqual({ mime: 'image/jpeg', ext: 'jpg' });
    expect(sniffImage(new TextEncoder().encode('RIFF....WEBPVP8 '))).toEqual({ mime: 'image/webp', ext: 'webp' });
    expect(sniffImage(new TextEncoder().encode('<html>nope</html>'))).toBeUndefined();
  });

  it('is not offered without IMAGE_MODEL', () => {
    expect(createImageTools(parseConfig({ OPENAI_API_KEY: 'sk-x' })).tools).toEqual([]);
  });

  it('exports a schema valid for OpenAI strict mode and for Gemini', () => {
    const [tool] = createImageTools(configFor(llm.url)).tools;
    expect(openAiStrictViolations(toolParameters(tool!.input, 'openai'))).toEqual([]);
    expect(geminiViolations(toolParameters(tool!.input, 'gemini'))).toEqual([]);
  });
});

describe('generate_image on its own provider (IMAGE_BASE_URL, IMAGE_API_KEY)', () => {
  let imageProvider: FakeOpenAI;
  beforeAll(async () => {
    imageProvider = await startFakeOpenAI();
  });
  afterAll(() => imageProvider.close());
  beforeEach(() => imageProvider.reset());

  const runWith = async (env: Record<string, string>) => {
    const local = await startHarness({
      llm,
      tools: createImageTools(configFor(llm.url, { IMAGE_BASE_URL: imageProvider.url, ...env })).tools,
    });
    try {
      scriptImageTurn({ prompt: 'A red bicycle' });
      const events = await collect(
        local.sb.agent.handle(message('Draw a red bicycle', { threadId: `img-provider-${Math.random()}` })),
      );
      return events.find((e) => e.type === 'reply');
    } finally {
      await local.close();
    }
  };

  it('asks an image-output chat model (OpenRouter style) with its own key, and attaches the PNG', async () => {
    // The image model's one chat call (answered with the fake's PNG in `message.images`).
    imageProvider.script({ text: 'Here is the image.' });
    const reply = await runWith({
      IMAGE_API_KEY: 'sk-or-image-key',
      IMAGE_MODEL: 'google/gemini-2.5-flash-image',
      IMAGE_API: 'auto',
    });
    const request = imageProvider.lastRequest('/chat/completions')!;
    expect(request.headers.authorization).toBe('Bearer sk-or-image-key');
    expect(request.body).toMatchObject({
      model: 'google/gemini-2.5-flash-image',
      modalities: ['image', 'text'],
      stream: false,
      messages: [{ role: 'user', content: 'A red bicycle' }],
    });
    expect(reply?.type === 'reply' && reply.reply.blocks).toEqual([
      expect.objectContaining({
        type: 'file',
        file: expect.objectContaining({ mime: 'image/png', data: new Uint8Array(PNG) }),
      }),
    ]);
    // The chat endpoint made no image request, and the chat key never left for the image provider.
    expect(llm.requestsTo('/images/generations')).toHaveLength(0);
    expect(JSON.stringify(imageProvider.requests.map((r) => r.headers))).not.toContain('sk-test-images-key');
  });

  it('uses /images/generations there when told (IMAGE_API=images), without sending the chat key when it has none', async () => {
    await runWith({ IMAGE_API: 'images' });
    const request = imageProvider.lastRequest('/images/generations')!;
    expect(request.body).toMatchObject({ model: 'gpt-image-1', n: 1 });
    expect(request.headers.authorization).not.toContain('sk-test-images-key');
  });

  it('says clearly when the chat model returned no image', async () => {
    const client = createImageClient({ ...configFor(llm.url, { IMAGE_API: 'chat' }), IMAGE_MODEL: 'text-only-model' });
    llm.script({
      status: 200,
      body: {
        id: 'x',
        object: 'chat.completion',
        created: 0,
        model: 'm',
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'no' } }],
      },
    });
    await expect(client.generate('a cat', new AbortController().signal)).rejects.toThrow(
      /returned no image \(is IMAGE_MODEL an image-output model\?\)/,
    );
  });
});
