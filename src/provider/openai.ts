import OpenAI, { type ClientOptions } from 'openai';
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import { requireLlm, type Config } from '../config/index.js';
import type { Logger } from '../telemetry/logger.js';
import { redact, toLlmError } from './llm-errors.js';
import { LlmError, type Completion, type CompletionRequest, type LlmClient } from '../contract/llm.js';
import { linkedSignal, type LinkedSignal } from '../net/linked-signal.js';
import { createHttpFetch } from './http-fetch.js';
import { StreamAssembler } from './stream-assembler.js';
import { createModelChain, type EndpointCall } from './model-chain.js';

export { toLlmError } from './llm-errors.js';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
/** Local servers (Ollama, vLLM, LM Studio) ignore the key, but the SDK insists on one. */
const PLACEHOLDER_API_KEY = 'not-needed';
/** Well under every provider's per-request input limit (Gemini's is 100). */
const EMBEDDING_BATCH_SIZE = 96;

type OpenAILogger = NonNullable<ClientOptions['logger']>;

/** One keep-alive fetch for every client this process makes (chat, embeddings, images). */
const httpFetch = createHttpFetch();

/**
 * The one place an OpenAI SDK client is made (chat, embeddings, images): the base URL and key
 * always explicit, so the SDK never falls back to process.env behind the config's back; a
 * placeholder key for local servers; its log lines through ours with the key scrubbed, or off.
 */
export function openAIClient(opts: {
  apiKey?: string;
  baseURL?: string;
  timeoutMs: number;
  maxRetries: number;
  /** Where the SDK's warnings go; without it the SDK is silent (the caller maps and logs failures). */
  log?: Logger;
}): { openai: OpenAI; apiKey: string; baseURL: string; fail: (err: unknown) => LlmError } {
  const apiKey = opts.apiKey ?? PLACEHOLDER_API_KEY;
  const baseURL = opts.baseURL ?? OPENAI_DEFAULT_BASE_URL;
  const openai = new OpenAI({
    apiKey,
    baseURL,
    timeout: opts.timeoutMs,
    maxRetries: opts.maxRetries,
    fetch: httpFetch,
    ...(opts.log ? { logger: sdkLogger(opts.log, apiKey), logLevel: 'warn' as const } : { logLevel: 'off' as const }),
  });
  return { openai, apiKey, baseURL, fail: (err) => toLlmError(err, { apiKey, baseURL }) };
}

/**
 * An OpenAI-compatible chat and embeddings client: chat through the endpoint chain (the main
 * endpoint, then MODEL_FALLBACKS, each behind its breaker: model-chain.ts), embeddings from the
 * main endpoint. Throws a ConfigError when no LLM is configured or a fallback's key variable is unset.
 */
export function createLlmClient(config: Config, log: Logger, env: NodeJS.ProcessEnv = process.env): LlmClient {
  requireLlm(config);
  const llmLog = log.child({ component: 'llm' });
  const { openai, fail } = openAIClient({
    apiKey: config.OPENAI_API_KEY,
    baseURL: config.OPENAI_BASE_URL,
    timeoutMs: config.OPENAI_TIMEOUT_MS,
    maxRetries: config.OPENAI_MAX_RETRIES,
    log: llmLog,
  });
  const embedder = new Embedder(openai, config, fail);
  const chain = createModelChain(config, llmLog, env, {
    connect: (baseUrl, apiKey) =>
      openAIClient({
        apiKey,
        baseURL: baseUrl,
        timeoutMs: config.OPENAI_TIMEOUT_MS,
        maxRetries: config.OPENAI_MAX_RETRIES,
        log: llmLog,
      }).openai,
    complete: (openai, call, req) => completeOn({ openai, ...call }, req, llmLog),
  });
  return {
    model: config.OPENAI_MODEL,
    complete: (req) => chain.complete(req),
    embed: (texts, signal) => embedder.embed(texts, signal),
  };
}

/** One endpoint as a streamed chat call needs it: its client, model, idle timeout and base URL (for messages). */
export interface ChatEndpoint extends EndpointCall {
  openai: OpenAI;
}

/**
 * One streamed completion from one endpoint, every failure an LlmError but the caller's own (its
 * onText throwing), handed back as it was. `req.model`, when set, replaces the endpoint's.
 */
export async function completeOn(endpoint: ChatEndpoint, req: CompletionRequest, log: Logger): Promise<Completion> {
  try {
    return await streamCompletion(endpoint, req);
  } catch (err) {
    // The caller's own onText failed: not an LLM problem, so hand it back untouched.
    if (err instanceof CallbackError) throw err.cause;
    // The operator's problem, not the user's: say at warn what came back and which setting to check.
    if (err instanceof NotAStreamError) log.warn({ code: 'llm_not_a_stream', body: err.body }, err.message);
    // Once the caller has cancelled, whatever broke on the way out is just the cancellation.
    if (req.signal?.aborted) throw new LlmError('aborted', 'the LLM request was cancelled', undefined, { cause: err });
    throw toLlmError(err, { apiKey: endpoint.openai.apiKey ?? '', baseURL: endpoint.baseUrl });
  }
}

export function buildChatParams(model: string, req: CompletionRequest): ChatCompletionCreateParamsStreaming {
  const params: ChatCompletionCreateParamsStreaming = {
    model,
    messages: req.messages,
    stream: true,
    stream_options: { include_usage: true },
  };
  // Several providers reject an empty `tools` array, and `tool_choice` without tools.
  if (req.tools && req.tools.length > 0) {
    params.tools = req.tools;
    params.tool_choice = req.toolChoice ?? 'auto';
  }
  if (req.temperature !== undefined) params.temperature = req.temperature;
  // `max_tokens`, not `max_completion_tokens`: compatible endpoints mostly know only the former.
  if (req.maxTokens !== undefined) params.max_tokens = req.maxTokens;
  return params;
}

async function streamCompletion(endpoint: ChatEndpoint, req: CompletionRequest): Promise<Completion> {
  const { openai, timeoutMs } = endpoint;
  if (req.signal?.aborted) throw new LlmError('aborted', 'the LLM request was cancelled');
  // The SDK's timeout stops at the response headers; this one also covers a stream that stalls.
  // One signal for both, detached from the caller's when the call ends: the SDK adds an abort
  // listener to it and never removes it, and Node keeps an `AbortSignal.any` signal with a
  // listener alive until it aborts, so every call would have left its signal, the SDK's
  // controller and their closures behind for good (about 1 KB a call).
  const link = linkedSignal([req.signal]);
  const idle = new IdleTimer(timeoutMs, link);
  const { signal } = link;
  const requested = performance.now();
  const seen: NonNullable<Completion['response']> = {};
  try {
    const { data: stream, response } = await openai.chat.completions
      .create(buildChatParams(req.model ?? endpoint.model, req), {
        signal,
        ...(req.maxRetries !== undefined ? { maxRetries: req.maxRetries } : {}),
      })
      .withResponse();
    const notAStream = notAnEventStream(response.headers.get('content-type'));
    if (notAStream) throw new NotAStreamError(notAStream, endpoint.baseUrl);
    const assembler = new StreamAssembler(
      req.onText && guardCallback(req.onText),
      req.onReasoning && guardCallback(req.onReasoning),
    );
    idle.start();
    for await (const chunk of stream) {
      idle.start();
      seen.firstChunkMs ??= performance.now() - requested;
      seen.model ||= chunk.model || undefined;
      seen.id ||= chunk.id || undefined;
      assembler.push(chunk);
    }
    // The SDK ends the iteration quietly when its signal fires, so look for the reason here.
    if (req.signal?.aborted) throw new LlmError('aborted', 'the LLM request was cancelled');
    if (idle.fired) throw stalledError(timeoutMs);
    return { ...assembler.result(), response: seen };
  } catch (err) {
    if (idle.fired && !req.signal?.aborted) throw stalledError(timeoutMs);
    throw err;
  } finally {
    idle.stop();
    link.dispose();
  }
}

/**
 * A 200 answer that is not the event stream we asked for: a proxy's or captive portal's sign-in
 * page, a website at OPENAI_BASE_URL, or a server that ignores `stream: true`. The SDK would
 * read it as an empty stream and the user would get "I could not come up with an answer".
 */
class NotAStreamError extends LlmError {
  constructor(
    readonly body: 'an HTML page' | 'a non-stream JSON body' | 'a body of another type',
    baseUrl: string,
  ) {
    super(
      'server',
      `OPENAI_BASE_URL (${new URL(baseUrl).origin}) answered a streamed chat completion with ${body} instead of an event stream: ` +
        'check that it is the API’s base URL (usually ending in /v1) and that the server supports stream: true',
    );
  }
}

/** What came back instead of `text/event-stream`, or undefined when it is one (or says nothing). */
function notAnEventStream(contentType: string | null): NotAStreamError['body'] | undefined {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  if (!type || type === 'text/event-stream') return undefined;
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'an HTML page';
  if (type === 'application/json' || type.endsWith('+json')) return 'a non-stream JSON body';
  // Some compatible servers label their event stream text/plain or octet-stream: let the SDK read it.
  if (type === 'text/plain' || type === 'application/octet-stream') return undefined;
  return 'a body of another type';
}

/** Marks an exception thrown by the caller's callback, so it is not mistaken for an LLM failure. */
class CallbackError extends Error {
  constructor(cause: unknown) {
    super('onText failed', { cause });
  }
}

function guardCallback(onText: (delta: string) => void): (delta: string) => void {
  return (delta) => {
    try {
      onText(delta);
    } catch (err) {
      throw new CallbackError(err);
    }
  };
}

function stalledError(ms: number): LlmError {
  return new LlmError('timeout', `the LLM stream sent nothing for ${ms} ms`);
}

/** Aborts `target` when `start()` is not called again within `ms`. */
class IdleTimer {
  private timer: NodeJS.Timeout | undefined;
  fired = false;

  constructor(
    private readonly ms: number,
    private readonly target: Pick<LinkedSignal, 'abort'>,
  ) {}

  start(): void {
    this.stop();
    this.timer = setTimeout(() => {
      this.fired = true;
      this.target.abort(undefined);
    }, this.ms);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/**
 * Embeddings alone, for the CLIs (`db:embed`, `import`): the same batching, `dimensions`
 * fallback and shape checks as the running app's client. Null when EMBEDDING_MODEL is unset or
 * no endpoint is configured.
 */
export function createEmbedder(
  config: Config,
): ((texts: string[], signal?: AbortSignal) => Promise<number[][]>) | null {
  if (!config.EMBEDDING_MODEL || (!config.OPENAI_API_KEY && !config.OPENAI_BASE_URL)) return null;
  const { openai, fail } = openAIClient({
    apiKey: config.OPENAI_API_KEY,
    baseURL: config.OPENAI_BASE_URL,
    timeoutMs: config.OPENAI_TIMEOUT_MS,
    maxRetries: config.OPENAI_MAX_RETRIES,
  });
  const embedder = new Embedder(openai, config, fail);
  return (texts, signal) => embedder.embed(texts, signal);
}

/** Batches of at most EMBEDDING_BATCH_SIZE; `dimensions` sent until an endpoint refuses it; every vector checked. */
class Embedder {
  /** Cleared once an endpoint says it does not take `dimensions` (e.g. text-embedding-ada-002). */
  private sendDimensions = true;

  constructor(
    private readonly openai: OpenAI,
    private readonly config: Config,
    private readonly fail: (err: unknown) => LlmError,
  ) {}

  async embed(texts: string[], signal?: AbortSignal): Promise<number[][]> {
    const model = this.config.EMBEDDING_MODEL;
    if (!model) throw new LlmError('bad_request', 'EMBEDDING_MODEL is not set');
    const vectors: number[][] = [];
    for (let i = 0; i < texts.length; i += EMBEDDING_BATCH_SIZE) {
      vectors.push(...(await this.embedBatch(model, texts.slice(i, i + EMBEDDING_BATCH_SIZE), signal)));
    }
    return vectors;
  }

  private async embedBatch(model: string, texts: string[], signal?: AbortSignal): Promise<number[][]> {
    let vectors: number[][];
    try {
      vectors = await this.request(model, texts, signal);
    } catch (err) {
      const error = this.fail(err);
      if (!(this.sendDimensions && error.kind === 'bad_request' && /dimension/i.test(error.message))) throw error;
      this.sendDimensions = false;
      vectors = await this.request(model, texts, signal).catch((retryErr: unknown) => {
        throw this.fail(retryErr);
      });
    }
    this.checkShape(vectors, texts.length);
    return vectors;
  }

  private async request(model: string, texts: string[], signal?: AbortSignal): Promise<number[][]> {
    const response = await this.openai.embeddings.create(
      {
        model,
        // OpenAI rejects an empty string outright, failing the whole batch.
        input: texts.map((t) => (t.trim() === '' ? ' ' : t)),
        ...(this.sendDimensions ? { dimensions: this.config.EMBEDDING_DIMENSIONS } : {}),
        // Without it the SDK asks for base64, which several compatible endpoints ignore.
        encoding_format: 'float',
      },
      { signal },
    );
    return [...response.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
  }

  /** A wrong vector size would only fail later, inside the database; say so now. */
  private checkShape(vectors: number[][], expected: number): void {
    if (vectors.length !== expected) {
      throw new LlmError('server', `the embeddings endpoint returned ${vectors.length} vectors for ${expected} inputs`);
    }
    const wanted = this.config.EMBEDDING_DIMENSIONS;
    const wrong = vectors.find((v) => v.length !== wanted);
    if (wrong) {
      throw new LlmError(
        'bad_request',
        `${this.config.EMBEDDING_MODEL} returned ${wrong.length}-dimensional vectors but EMBEDDING_DIMENSIONS is ${wanted}`,
      );
    }
  }
}

/** Routes the SDK's own warnings into our logger instead of the console. */
function sdkLogger(log: Logger, apiKey: string): OpenAILogger {
  const at =
    (level: 'error' | 'warn' | 'info' | 'debug') =>
    (message: string): void =>
      log[level](redact(message, apiKey));
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}
