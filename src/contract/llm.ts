import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { Usage } from './turn.js';

export type ChatMessage = ChatCompletionMessageParam;
export type ToolSpec = ChatCompletionTool;

export interface AssembledToolCall {
  id: string;
  name: string;
  /** The raw JSON text the model produced; parsed and validated by the loop. */
  arguments: string;
  /** Provider data sent back with the call on the next request (Gemini's thought signature). */
  extraContent?: Record<string, unknown>;
}

/**
 * The model's reasoning for one completion and the field it came in. Never shown to users.
 * `reasoning_content` (DeepSeek, xAI, Qwen, Moonshot) is echoed on the assistant message of a
 * tool-call step within the turn (DeepSeek's thinking mode answers 400 without it); `reasoning`
 * (Groq) and Mistral's `thinking` parts are not sent back.
 */
export interface Reasoning {
  text: string;
  field: 'reasoning_content' | 'reasoning' | 'thinking';
}

/** One streamed completion, put back together. */
export interface Completion {
  content: string;
  refusal?: string;
  toolCalls: AssembledToolCall[];
  finishReason: 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'function_call' | 'unknown';
  usage?: Usage;
  reasoning?: Reasoning;
  /** What the stream said about itself (for traces): the model that answered, the completion id, ms to its first chunk. */
  response?: { model?: string; id?: string; firstChunkMs?: number };
  /** The endpoint of the chain that answered (MODEL_FALLBACKS): its model as configured and its label. */
  answeredBy?: AnsweredBy;
}

/** One endpoint of a model chain (`MODEL_FALLBACKS`, a tenant's `settings.model_fallbacks`). */
export interface ModelEndpoint {
  /** The OpenAI-compatible API's base URL (usually ending in /v1). */
  baseUrl: string;
  model: string;
  /** The environment variable holding its key; none for a local server. */
  apiKeyEnv?: string;
}

/** Which endpoint answered a completion: `endpoint` is `model@host` (a metric label, never a key or path). */
export interface AnsweredBy {
  model: string;
  endpoint: string;
}

/**
 * Set (not enumerable, so never sent) on an assistant message the loop builds from a completion:
 * which endpoint wrote it. Its provider's own fields (reasoning_content, a call's extra_content)
 * are sent back only to that endpoint, never to another one the chain fails over to.
 */
export const ANSWERED_BY: unique symbol = Symbol('switchboard.answeredBy');

export interface CompletionRequest {
  /** Another model on the same endpoint (e.g. REWRITE_MODEL); default the client's. */
  model?: string;
  /** The SDK's retries for this request (default OPENAI_MAX_RETRIES); 0 when the caller retries itself. */
  maxRetries?: number;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  /** `none` asks for a final answer without tools. */
  toolChoice?: 'auto' | 'none' | 'required';
  temperature?: number;
  maxTokens?: number;
  signal?: AbortSignal;
  /** Called with each piece of visible text as it streams. */
  onText?: (delta: string) => void;
  /** Called as the model reasons (progress only: the reasoning is never shown). */
  onReasoning?: (delta: string) => void;
  /** The tenant's own fallback endpoints, in place of MODEL_FALLBACKS (an empty list: none). */
  fallbacks?: readonly ModelEndpoint[];
  /**
   * `model` is the turn's own (a channel's or the tenant's setting, issue 46): it heads the chain on
   * the main endpoint and the fallbacks follow. Without it another model (REWRITE_MODEL) is asked alone.
   */
  headsChain?: boolean;
}

export interface LlmClient {
  readonly model: string;
  /** Streams a chat completion and assembles it; throws LlmError on failure. */
  complete(req: CompletionRequest): Promise<Completion>;
  /** Embeddings from the configured endpoint; throws LlmError when unavailable. */
  embed(texts: string[], signal?: AbortSignal): Promise<number[][]>;
}

/** Prices and context windows of models, from the bundled catalogue and MODEL_PRICES. */
export interface ModelPricing {
  /** The USD cost of `usage` on `model`; null when no price is known for it (said once in the log). */
  cost(model: string, usage: Usage): number | null;
  /** The model's context window in tokens, when known. */
  contextWindow(model: string): number | undefined;
}

export class LlmError extends Error {
  constructor(
    readonly kind: 'unreachable' | 'auth' | 'rate_limited' | 'bad_request' | 'server' | 'timeout' | 'aborted',
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'LlmError';
  }
}
