import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { Usage } from './types.js';

export type ChatMessage = ChatCompletionMessageParam;
export type ToolSpec = ChatCompletionTool;

export interface AssembledToolCall {
  id: string;
  name: string;
  /** The raw JSON text the model produced; parsed and validated by the loop. */
  arguments: string;
}

/** One streamed completion, put back together. */
export interface Completion {
  content: string;
  refusal?: string;
  toolCalls: AssembledToolCall[];
  finishReason: 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'function_call' | 'unknown';
  usage?: Usage;
}

export interface CompletionRequest {
  messages: ChatMessage[];
  tools?: ToolSpec[];
  /** `none` asks for a final answer without tools. */
  toolChoice?: 'auto' | 'none' | 'required';
  temperature?: number;
  maxTokens?: number;
  signal?: AbortSignal;
  /** Called with each piece of visible text as it streams. */
  onText?: (delta: string) => void;
}

export interface LlmClient {
  readonly model: string;
  /** Streams a chat completion and assembles it; throws LlmError on failure. */
  complete(req: CompletionRequest): Promise<Completion>;
  /** Embeddings from the configured endpoint; throws LlmError when unavailable. */
  embed(texts: string[], signal?: AbortSignal): Promise<number[][]>;
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
