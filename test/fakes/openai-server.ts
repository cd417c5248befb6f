/**
 * A loopback stand-in for an OpenAI-compatible API, scripted per test.
 *
 *   const fake = await startFakeOpenAI();
 *   fake.script({ text: 'Hello!' }, { toolCalls: [{ name: 'search', arguments: { q: 'x' } }] });
 *   // point OPENAI_BASE_URL at fake.url, run the code under test …
 *   expect(fake.lastRequest()?.body.model).toBe('gpt-4o-mini');
 *   await fake.close();
 *
 * Chat answers stream like the real API: text split into word deltas, tool arguments split into
 * fragments, `data: [DONE]` at the end, and a usage-only chunk when `stream_options.include_usage`
 * is set. Error responses carry `retry-after-ms: 1` so the SDK's retries cost no wall time.
 *
 * The fake is strict, like the Agents SDK's scripted model: a chat call past the script and a
 * scripted step left unused are test failures. A call past the script is answered with a 400
 * (which the SDK does not retry) and recorded; `verify()` throws for what it recorded and for unused
 * steps, and then forgets them. Every open fake is verified after each test (test/helpers/
 * strict-fakes.ts, a vitest setup file), by `reset()` and by `close()`, so a turn that calls the
 * model too often or too rarely fails the test that ran it, not an "I could not answer" nobody
 * reads. A test that means to leave steps unused (a turn cut short on purpose) says so with
 * `allowUnused()`; a fake started with `{ lenient: true }` forgives both for its whole life.
 * A `failNext(n)` left unspent at `verify()` fails too (it would fail the next test's first request,
 * embeddings included: every endpoint spends it), whatever `allowUnused()` or `lenient` say.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { assembleChunks, type ChunkLike } from '../../src/provider/stream-assembler.js';

export interface FakeToolCall {
  name: string;
  /** An object is JSON-encoded; a string is sent as is (to test malformed arguments). */
  arguments: Record<string, unknown> | string;
  id?: string;
}

interface Pacing {
  /** Wait this long before answering at all (before the response headers). */
  delayMs?: number;
  /** Wait this long between streamed chunks. */
  chunkDelayMs?: number;
  /** Send this many SSE events, then go silent with the connection left open. */
  stallAfterChunks?: number;
  /** Send this many SSE events, then cut the connection mid-stream (a provider or proxy dying). */
  dropAfterChunks?: number;
}

interface Ending {
  /** Defaults to `tool_calls` when there are tool calls, else `stop`. */
  finishReason?: string;
  /**
   * Defaults to a rough estimate (4 characters a token). Any other field (`prompt_tokens_details`,
   * `completion_tokens_details`, DeepSeek's `prompt_cache_hit_tokens`, a `total_tokens` of its own…)
   * is sent as given in the final usage chunk.
   */
  usage?: { prompt_tokens: number; completion_tokens: number; [detail: string]: unknown };
}

export type FakeTextResponse = { text: string; toolCalls?: undefined } & Pacing & Ending;
export type FakeToolCallResponse = { toolCalls: FakeToolCall[]; text?: string } & Pacing & Ending;
/** Raw SSE text (e.g. a recorded fixture) replayed verbatim. */
export type FakeSseResponse = { sse: string } & Pacing;
export type FakeErrorResponse = {
  status: number;
  /** Defaults to an OpenAI-shaped `{ error: { message, type, code } }`. */
  body?: object;
  headers?: Record<string, string>;
  delayMs?: number;
};
/** Never answers; the client must time out or abort. */
export type FakeHangResponse = { hang: true };

export type FakeResponse =
  FakeTextResponse | FakeToolCallResponse | FakeSseResponse | FakeErrorResponse | FakeHangResponse;

export type FakeResponder = (request: RecordedRequest) => FakeResponse | Promise<FakeResponse>;

export interface RecordedRequest {
  method: string;
  /** As received, e.g. `/v1/chat/completions`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (`{}` for bodiless requests). */
  body: Record<string, unknown>;
  /** When the request arrived and when its answer was over (performance.now()), to check timing. */
  at: number;
  endedAt?: number;
}

export interface FakeOpenAIOptions {
  /** When set, any other bearer token gets a 401 (whose message echoes the token, as careless servers do). */
  apiKey?: string;
  /** Replaces the hash-based vectors, e.g. to control similarity in retrieval tests. */
  embed?: (text: string, dimensions: number) => number[];
  /**
   * Forgives calls past the script (answered with NO_SCRIPT_TEXT) and unused steps, for a peer
   * whose call count is not what a test is about (a benchmark, a load run). Tests leave it off.
   */
  lenient?: boolean;
}

export interface FakeOpenAI {
  /** Base URL including `/v1`, ready for OPENAI_BASE_URL. */
  readonly url: string;
  /** Every request received, in order, including failed and unauthorised ones. */
  readonly requests: RecordedRequest[];
  /** Queues chat answers, consumed one per chat request. */
  script(...responses: Array<FakeResponse | FakeResponder>): void;
  /**
   * The next `count` requests (any endpoint: chat, embeddings, images) fail with `status`, without
   * consuming the script. Failures not spent by the next `verify()` fail it.
   */
  failNext(count: number, status?: number, body?: object): void;
  /** The latest request, optionally only among those whose path ends with `pathSuffix`. */
  lastRequest(pathSuffix?: string): RecordedRequest | undefined;
  /** Requests whose path ends with `pathSuffix`, e.g. `/chat/completions`. */
  requestsTo(pathSuffix: string): RecordedRequest[];
  /** Scripted chat answers not yet consumed. */
  remaining(): number;
  /**
   * Throws if a chat call came past the script, scripted steps are left unused (unless
   * `allowUnused()` was called since the last check) or `failNext` failures are left unspent, then
   * forgets all three so the next test starts clean.
   */
  verify(): void;
  /** Steps left unused at the next `verify()` are expected (a turn cut short on purpose): no failure. */
  allowUnused(): void;
  /** Verifies (see `verify()`), then forgets requests, script and pending failures. */
  reset(): void;
  /** Stops the server, then verifies: a test that closes its fake still fails on a broken script. */
  close(): Promise<void>;
}

/** The fakes not yet closed, verified after every test by test/helpers/strict-fakes.ts. */
const openFakes: Set<FakeOpenAI> = ((globalThis as Record<symbol, unknown>)[Symbol.for('switchboard.openFakes')] ??=
  new Set<FakeOpenAI>()) as Set<FakeOpenAI>;

/** Verifies every open fake; throws one error listing all that failed. */
export function verifyOpenFakes(): void {
  const problems: string[] = [];
  for (const fake of openFakes) {
    try {
      fake.verify();
    } catch (err) {
      problems.push(err instanceof Error ? err.message : String(err));
    }
  }
  if (problems.length > 0) throw new Error(problems.join('\n'));
}

export const NO_SCRIPT_TEXT = '(no scripted response)';
export const DEFAULT_EMBEDDING_DIMENSIONS = 8;
/** A valid 1×1 transparent PNG. */
export const TINY_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const state = new FakeState(options);
  const server = createServer((req, res) => {
    state.handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, errorBody(`fake server bug: ${String(err)}`, 'server_error'));
      else res.destroy();
    });
  });
  // Longer than any client's idle keep-alive (undici: 4 s), so the client always drops an idle
  // socket first. With Node's 5 s default, a test pausing about 5 s on a busy machine had its next
  // request sent on a socket the server was closing: ECONNRESET, "can't reach the model".
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const fake: FakeOpenAI = {
    url: `http://127.0.0.1:${port}/v1`,
    requests: state.requests,
    script: (...responses) => state.queue.push(...responses),
    failNext: (count, status = 500, body) => {
      state.failures = { count, status, body };
    },
    lastRequest: (suffix) => state.matching(suffix).at(-1),
    requestsTo: (suffix) => state.matching(suffix),
    remaining: () => state.queue.length,
    verify: () => state.verify(),
    allowUnused: () => {
      state.unusedAllowed = true;
    },
    reset: () => {
      try {
        state.verify();
      } finally {
        state.reset();
      }
    },
    close: async () => {
      openFakes.delete(fake);
      await new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // Hanging and stalled responses would otherwise keep close() waiting forever.
        server.closeAllConnections();
      });
      state.verify();
    },
  };
  openFakes.add(fake);
  return fake;
}

class FakeState {
  readonly requests: RecordedRequest[] = [];
  queue: Array<FakeResponse | FakeResponder> = [];
  failures: { count: number; status: number; body?: object } = { count: 0, status: 500 };
  unusedAllowed = false;
  /** Chat calls that came past the script since the last verify(), described for the failure message. */
  private unscripted: string[] = [];
  private sequence = 0;

  constructor(private readonly options: FakeOpenAIOptions) {}

  matching(suffix?: string): RecordedRequest[] {
    return suffix ? this.requests.filter((r) => r.path.endsWith(suffix)) : [...this.requests];
  }

  reset(): void {
    this.requests.length = 0;
    this.queue = [];
    this.failures = { count: 0, status: 500 };
    this.unscripted = [];
    this.unusedAllowed = false;
  }

  verify(): void {
    const problems: string[] = [];
    if (this.unscripted.length > 0) {
      problems.push(
        `${this.unscripted.length} chat call(s) past the script:\n${this.unscripted.map((c) => `  - ${c}`).join('\n')}`,
      );
    }
    const unused = this.queue.length;
    if (unused > 0 && !this.unusedAllowed && !this.options.lenient) {
      const shown = this.queue.slice(0, 5).map(describeStep).join(', ');
      const more = unused > 5 ? `, and ${unused - 5} more` : '';
      problems.push(`${unused} scripted step(s) left unused: ${shown}${more}`);
    }
    // Never forgiven: a leftover failure is not a step the test chose to skip but a trap for the next test.
    if (this.failures.count > 0) {
      problems.push(
        `${this.failures.count} failNext(${this.failures.status}) failure(s) left unspent (no request came to fail)`,
      );
    }
    this.unscripted = [];
    this.unusedAllowed = false;
    if (unused > 0) this.queue = [];
    this.failures = { count: 0, status: 500 };
    if (problems.length > 0) throw new Error(`fake OpenAI: ${problems.join('; ')}`);
  }

  nextId(prefix: string): string {
    this.sequence += 1;
    return `${prefix}${this.sequence}`;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    let body: Record<string, unknown>;
    try {
      body = await readJson(req);
    } catch {
      sendJson(res, 400, errorBody('We could not parse the JSON body of your request.', 'invalid_request_error'));
      return;
    }
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path,
      headers: req.headers,
      body,
      at: performance.now(),
    };
    res.once('close', () => (recorded.endedAt = performance.now()));
    this.requests.push(recorded);

    const authProblem = this.checkAuth(req.headers.authorization);
    if (authProblem) {
      sendJson(res, 401, errorBody(authProblem, 'invalid_request_error', 'invalid_api_key'));
      return;
    }
    if (this.failures.count > 0) {
      this.failures.count -= 1;
      await sendError(res, { status: this.failures.status, body: this.failures.body });
      return;
    }
    await this.route(recorded, res);
  }

  private checkAuth(header: string | undefined): string | undefined {
    const token = /^Bearer\s+(\S+)$/i.exec(header ?? '')?.[1];
    if (!token) return "You didn't provide an API key. Use the Authorization header (Bearer).";
    if (this.options.apiKey !== undefined && token !== this.options.apiKey) {
      return `Incorrect API key provided: ${token}.`;
    }
    return undefined;
  }

  private async route(request: RecordedRequest, res: ServerResponse): Promise<void> {
    const { method, path } = request;
    if (method === 'POST' && path === '/v1/chat/completions') return this.chat(request, res);
    if (method === 'POST' && path === '/v1/embeddings') return this.embeddings(request.body, res);
    if (method === 'POST' && path === '/v1/images/generations') return images(request.body, res);
    if (method === 'GET' && path === '/v1/models') return models(res);
    sendJson(res, 404, errorBody(`Unknown request URL: ${method} ${path}`, 'invalid_request_error', 'unknown_url'));
  }

  private async chat(request: RecordedRequest, res: ServerResponse): Promise<void> {
    const next = this.queue.shift() ?? this.pastScript(request);
    const response = typeof next === 'function' ? await next(request) : next;
    if ('hang' in response) return; // the socket stays open until the client gives up or close()
    if (response.delayMs) await sleep(response.delayMs);
    if ('status' in response) return sendError(res, response);
    // Image output in chat completions, as OpenRouter and Vercel's AI Gateway answer it (Gemini 2.5 Flash Image):
    // `modalities: ["image", "text"]`, the images as data URLs in `message.images`.
    const modalities = request.body.modalities;
    if (Array.isArray(modalities) && modalities.includes('image') && request.body.stream !== true) {
      return sendJson(res, 200, {
        id: this.nextId('gen-fake'),
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: String(request.body.model),
        choices: [
          {
            index: 0,
            finish_reason: 'stop',
            message: {
              role: 'assistant',
              content:
                'text' in response && response.text !== undefined && response.text !== NO_SCRIPT_TEXT
                  ? response.text
                  : 'Here is the image.',
              images: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${TINY_PNG_BASE64}` } }],
            },
          },
        ],
        usage: { prompt_tokens: 12, completion_tokens: 1290, total_tokens: 1302 },
      });
    }
    const stream = request.body.stream === true;
    if ('sse' in response) {
      if (stream) return writeEvents(res, splitSse(response.sse), response);
      return sendJson(res, 200, completionFromChunks(parseSse(response.sse), String(request.body.model)));
    }
    const chunks = this.chunksFor(response, request.body);
    if (stream) return writeEvents(res, [...chunks.map(sseEvent), 'data: [DONE]\n\n'], response);
    sendJson(res, 200, completionFromChunks(chunks, String(request.body.model)));
  }

  /** The answer to a call past the script: recorded as a failure unless lenient, answered with a 400. */
  private pastScript(request: RecordedRequest): FakeResponse {
    if (this.options.lenient) return { text: NO_SCRIPT_TEXT };
    const messages = Array.isArray(request.body.messages) ? (request.body.messages as { content?: unknown }[]) : [];
    const last = messages.at(-1)?.content;
    const text = typeof last === 'string' ? last : JSON.stringify(last ?? null);
    this.unscripted.push(`last message ${JSON.stringify(text.slice(0, 120))}`);
    return {
      status: 400,
      body: errorBody('fake OpenAI: this chat call is past the script', 'invalid_request_error', 'unscripted_call'),
    };
  }

  /** The answer as the chunks the real API would stream. */
  private chunksFor(response: FakeTextResponse | FakeToolCallResponse, body: Record<string, unknown>): object[] {
    const base = {
      id: this.nextId('chatcmpl-fake'),
      object: 'chat.completion.chunk',
      created: Math.floor(Date.now() / 1000),
      model: typeof body.model === 'string' ? body.model : 'fake-model',
      system_fingerprint: 'fp_fake',
    };
    const chunk = (delta: object, finishReason: string | null = null) => ({
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    });
    const calls = response.toolCalls ?? [];
    const text = response.text ?? '';
    const chunks: object[] = [chunk({ role: 'assistant', content: calls.length > 0 && !text ? null : '' })];
    for (const piece of splitText(text)) chunks.push(chunk({ content: piece }));
    calls.forEach((call, index) => {
      for (const delta of this.toolCallDeltas(call, index)) chunks.push(chunk({ tool_calls: [delta] }));
    });
    chunks.push(chunk({}, response.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop')));
    const streamOptions = body.stream_options as { include_usage?: unknown } | undefined;
    if (body.stream !== true || streamOptions?.include_usage === true) {
      chunks.push({ ...base, choices: [], usage: usageFor(response, body) });
    }
    return chunks;
  }

  /** Name and id first with empty arguments, then the arguments in fragments, as OpenAI does. */
  private toolCallDeltas(call: FakeToolCall, index: number): object[] {
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
    const id = call.id ?? this.nextId('call_fake');
    return [
      { index, id, type: 'function', function: { name: call.name, arguments: '' } },
      ...splitEvery(args, 7).map((fragment) => ({ index, function: { arguments: fragment } })),
    ];
  }

  private embeddings(body: Record<string, unknown>, res: ServerResponse): void {
    const inputs = Array.isArray(body.input) ? body.input : [body.input];
    const dimensions = typeof body.dimensions === 'number' ? body.dimensions : DEFAULT_EMBEDDING_DIMENSIONS;
    const embed = this.options.embed ?? hashEmbedding;
    const base64 = body.encoding_format === 'base64';
    const data = inputs.map((input, index) => {
      const text = typeof input === 'string' ? input : JSON.stringify(input);
      const vector = embed(text, dimensions);
      const embedding = base64 ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
      return { object: 'embedding', index, embedding };
    });
    const tokens = inputs.reduce<number>((sum, input) => sum + estimateTokens(JSON.stringify(input)), 0);
    sendJson(res, 200, {
      object: 'list',
      data,
      model: body.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  }
}

function describeStep(step: FakeResponse | FakeResponder): string {
  if (typeof step === 'function') return 'a responder function';
  if ('toolCalls' in step && step.toolCalls) return `tool calls ${step.toolCalls.map((c) => c.name).join('+')}`;
  if ('text' in step) return `text ${JSON.stringify(step.text.slice(0, 40))}`;
  if ('status' in step) return `error ${step.status}`;
  if ('sse' in step) return 'raw SSE';
  return 'a hang';
}

function images(body: Record<string, unknown>, res: ServerResponse): void {
  const n = typeof body.n === 'number' ? body.n : 1;
  const data = Array.from({ length: n }, () => ({ b64_json: TINY_PNG_BASE64, revised_prompt: body.prompt }));
  sendJson(res, 200, { created: Math.floor(Date.now() / 1000), data });
}

function models(res: ServerResponse): void {
  sendJson(res, 200, { object: 'list', data: [{ id: 'fake-model', object: 'model', created: 0, owned_by: 'fake' }] });
}

/** Deterministic unit vectors: the same text always maps to the same point. */
export function hashEmbedding(text: string, dimensions: number): number[] {
  const values: number[] = [];
  for (let block = 0; values.length < dimensions; block += 1) {
    const digest = createHash('sha256').update(`${block}\u0000${text}`).digest();
    for (let i = 0; i + 4 <= digest.length && values.length < dimensions; i += 4) {
      values.push((digest.readUInt32BE(i) / 0xffffffff) * 2 - 1);
    }
  }
  const norm = Math.sqrt(values.reduce((sum, v) => sum + v * v, 0)) || 1;
  return values.map((v) => v / norm);
}

function usageFor(response: Ending & { text?: string; toolCalls?: FakeToolCall[] }, body: Record<string, unknown>) {
  const prompt = response.usage?.prompt_tokens ?? estimateTokens(JSON.stringify(body.messages ?? []));
  const completion =
    response.usage?.completion_tokens ??
    estimateTokens((response.text ?? '') + JSON.stringify(response.toolCalls ?? []));
  return { total_tokens: prompt + completion, ...response.usage, prompt_tokens: prompt, completion_tokens: completion };
}

function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/**
 * Word-sized deltas with their leading whitespace, like the real API's token stream. A run without
 * spaces (CJK, a long URL, 100,000 `[`) comes in pieces of at most 32 code points, as a real
 * provider's tokens do, never as one huge delta.
 */
function splitText(text: string): string[] {
  const words = text.match(/\s*\S+|\s+/g) ?? [];
  return words.flatMap((word) => (word.length > 32 ? splitEvery(word, 32) : [word]));
}

/** Splits by code point so a fragment never ends inside a surrogate pair. */
function splitEvery(text: string, size: number): string[] {
  const points = Array.from(text);
  const parts: string[] = [];
  for (let i = 0; i < points.length; i += size) parts.push(points.slice(i, i + size).join(''));
  return parts;
}

function sseEvent(data: object): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

/** Splits raw SSE text into events, each keeping its blank-line terminator. */
function splitSse(sse: string): string[] {
  return sse.match(/[\s\S]*?(?:\r?\n\r?\n|$)/g)?.filter((event) => event !== '') ?? [];
}

function parseSse(sse: string): ChunkLike[] {
  return sse
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice('data:'.length).trim())
    .filter((data) => data !== '[DONE]')
    .map((data) => JSON.parse(data) as ChunkLike);
}

/** The non-streaming answer, built from the same chunks the stream would carry. */
function completionFromChunks(chunks: object[], model: string): object {
  const chunkList = chunks as ChunkLike[];
  const assembled = assembleChunks(chunkList);
  const usage = chunkList.findLast((c) => c.usage)?.usage;
  const toolCalls = assembled.toolCalls.map((c) => ({
    id: c.id,
    type: 'function',
    function: { name: c.name, arguments: c.arguments },
  }));
  const finish = chunkList.flatMap((c) => c.choices ?? []).findLast((c) => c.finish_reason)?.finish_reason;
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: toolCalls.length > 0 && !assembled.content ? null : assembled.content,
          refusal: assembled.refusal ?? null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: finish ?? 'stop',
      },
    ],
    ...(usage ? { usage } : {}),
  };
}

async function writeEvents(res: ServerResponse, events: string[], pacing: Pacing): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  // Flush the headers now, as a real server does, so the client's connect timeout is satisfied.
  res.flushHeaders();
  for (const [i, event] of events.entries()) {
    if (pacing.stallAfterChunks !== undefined && i >= pacing.stallAfterChunks) return;
    if (pacing.dropAfterChunks !== undefined && i >= pacing.dropAfterChunks) {
      res.destroy();
      return;
    }
    if (res.destroyed) return; // the client went away (abort)
    if (i > 0 && pacing.chunkDelayMs) await sleep(pacing.chunkDelayMs);
    // Before a cut, each event is flushed first: what was sent reaches the client, then the break.
    if (pacing.dropAfterChunks !== undefined) await new Promise<void>((resolve) => res.write(event, () => resolve()));
    else res.write(event);
  }
  res.end();
}

function sendError(res: ServerResponse, response: FakeErrorResponse): void {
  const body = response.body ?? errorBody(`fake error ${response.status}`, errorType(response.status));
  sendJson(res, response.status, body, { 'retry-after-ms': '1', ...response.headers });
}

function errorType(status: number): string {
  if (status === 429) return 'rate_limit_exceeded';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function errorBody(message: string, type: string, code: string | null = null): object {
  return { error: { message, type, param: null, code } };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  const text = Buffer.concat(parts).toString('utf8');
  if (text.trim() === '') return {};
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not a JSON object');
  return parsed as Record<string, unknown>;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
