import type { AssembledToolCall, Completion } from '../contract/llm.js';
import type { Usage } from '../contract/turn.js';

/**
 * The parts of a `chat.completion.chunk` we read, typed loosely on purpose: OpenAI-compatible
 * providers omit fields the official types mark as required (a tool call's `index`, for one).
 * The SDK's `ChatCompletionChunk` is assignable to it.
 */
export interface ChunkLike {
  choices?: ChoiceLike[] | null;
  usage?: UsageLike | null;
  /** Groq's older layout carries usage only here. */
  x_groq?: { usage?: UsageLike | null } | null;
}

export interface ChoiceLike {
  index?: number | null;
  delta?: DeltaLike | null;
  finish_reason?: string | null;
}

export interface DeltaLike {
  /** A string, or (Mistral's reasoning models) an array of typed parts: `text` and `thinking`. */
  content?: string | ContentPartLike[] | null;
  refusal?: string | null;
  /** Reasoning text: DeepSeek, xAI, Qwen/Alibaba, Moonshot (`reasoning_content`); Groq, OpenRouter (`reasoning`). */
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: ToolCallDeltaLike[] | null;
}

export interface ContentPartLike {
  type?: string;
  text?: string | null;
  /** Mistral: `thinking` holds its own parts (or, in some versions, a string). */
  thinking?: string | ContentPartLike[] | null;
}

export interface ToolCallDeltaLike {
  index?: number | null;
  id?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
  /** Provider data that must travel back with the call (Gemini: `{ google: { thought_signature } }`). */
  extra_content?: Record<string, unknown> | null;
}

export interface UsageLike {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  total_tokens?: number | null;
  /** OpenAI, OpenRouter, xAI, Groq, Anthropic's and Gemini's OpenAI-compatible endpoints. */
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
  /** DeepSeek: the prompt's cache hits and misses (together, `prompt_tokens`). */
  prompt_cache_hit_tokens?: number | null;
  prompt_cache_miss_tokens?: number | null;
  /** Moonshot (Kimi). */
  cached_tokens?: number | null;
}

interface ToolCallSlot {
  id?: string;
  name: string;
  arguments: string;
  extra?: Record<string, unknown>;
}

/**
 * Puts a streamed chat completion back together, one chunk at a time.
 *
 * Only choice 0 is read: we never ask for `n > 1`.
 */
export class StreamAssembler {
  private content = '';
  private refusal = '';
  private reasoning = '';
  /** Which field carried the reasoning: a provider that sends `reasoning_content` wants it back on tool-call turns. */
  private reasoningField: 'reasoning_content' | 'reasoning' | 'thinking' | undefined;
  private finishReason: Completion['finishReason'] = 'unknown';
  private usage: Usage | undefined;
  private readonly calls: ToolCallSlot[] = [];
  /** The most recent slot seen for each wire `index`; a later call may reuse an index (see `slotFor`). */
  private readonly byIndex = new Map<number, ToolCallSlot>();

  constructor(
    private readonly onText?: (delta: string) => void,
    /** Called with each piece of reasoning (never shown to users; progress only). */
    private readonly onReasoning?: (delta: string) => void,
  ) {}

  push(chunk: ChunkLike): void {
    // Usage can come on any chunk (some providers repeat a running total), so the last one wins.
    const usage = chunk.usage ?? chunk.x_groq?.usage;
    if (usage) this.usage = toUsage(usage);
    const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
    if (!choice) return;
    if (choice.delta) this.applyDelta(choice.delta);
    if (choice.finish_reason) this.finishReason = normaliseFinishReason(choice.finish_reason);
  }

  /** The completion so far; call once the stream has ended. */
  result(): Completion {
    const completion: Completion = {
      content: this.content,
      toolCalls: this.calls.map((slot, i) => finishToolCall(slot, i)),
      finishReason: this.finishReason,
    };
    if (this.refusal) completion.refusal = this.refusal;
    if (this.usage) completion.usage = this.usage;
    if (this.reasoning && this.reasoningField)
      completion.reasoning = { text: this.reasoning, field: this.reasoningField };
    return completion;
  }

  private applyDelta(delta: DeltaLike): void {
    if (typeof delta.content === 'string') this.addText(delta.content);
    else if (Array.isArray(delta.content)) {
      for (const part of delta.content) {
        if (part.type === 'thinking') this.addReasoning(partText(part.thinking), 'thinking');
        else if (part.type === 'text' || part.type === undefined) this.addText(part.text ?? '');
      }
    }
    if (delta.reasoning_content) this.addReasoning(delta.reasoning_content, 'reasoning_content');
    if (delta.reasoning) this.addReasoning(delta.reasoning, 'reasoning');
    if (delta.refusal) this.refusal += delta.refusal;
    for (const toolDelta of delta.tool_calls ?? []) this.applyToolDelta(toolDelta);
  }

  private addText(text: string): void {
    if (!text) return;
    this.content += text;
    this.onText?.(text);
  }

  private addReasoning(text: string, field: 'reasoning_content' | 'reasoning' | 'thinking'): void {
    if (!text) return;
    this.reasoning += text;
    this.reasoningField ??= field;
    this.onReasoning?.(text);
  }

  private applyToolDelta(delta: ToolCallDeltaLike): void {
    const slot = this.slotFor(delta);
    const name = delta.function?.name;
    // Most providers send the name once; some repeat it on every delta, a few split it up.
    if (name && name !== slot.name) slot.name += name;
    const args = delta.function?.arguments;
    if (args) slot.arguments += args;
    if (delta.extra_content && typeof delta.extra_content === 'object')
      slot.extra = { ...slot.extra, ...delta.extra_content };
  }

  /** Finds the call a delta belongs to, or starts a new one. */
  private slotFor(delta: ToolCallDeltaLike): ToolCallSlot {
    const id = delta.id || undefined;
    if (typeof delta.index === 'number') {
      const existing = this.byIndex.get(delta.index);
      // A call never changes id, so a new id on a known index is a new call
      // (providers that send every complete call as index 0 do this).
      if (existing && (!id || !existing.id || existing.id === id)) {
        existing.id ??= id;
        return existing;
      }
      const slot = this.newSlot(id);
      this.byIndex.set(delta.index, slot);
      return slot;
    }
    if (id) return this.calls.find((c) => c.id === id) ?? this.newSlot(id);
    // Neither index nor id: the continuation of whatever call came last.
    return this.calls.at(-1) ?? this.newSlot(undefined);
  }

  private newSlot(id: string | undefined): ToolCallSlot {
    const slot: ToolCallSlot = { id, name: '', arguments: '' };
    this.calls.push(slot);
    return slot;
  }
}

/** Assembles a whole stream at once; handy for tests and non-streaming replays. */
export function assembleChunks(
  chunks: Iterable<ChunkLike>,
  onText?: (delta: string) => void,
  onReasoning?: (delta: string) => void,
): Completion {
  const assembler = new StreamAssembler(onText, onReasoning);
  for (const chunk of chunks) assembler.push(chunk);
  return assembler.result();
}

function finishToolCall(slot: ToolCallSlot, position: number): AssembledToolCall {
  return {
    // Some providers never send an id, yet the tool result message must quote one.
    id: slot.id ?? `call_${position}`,
    name: slot.name,
    arguments: normaliseArguments(slot.arguments),
    ...(slot.extra ? { extraContent: slot.extra } : {}),
  };
}

/** Mistral's `thinking` is a list of text parts (or a plain string). */
function partText(thinking: ContentPartLike['thinking']): string {
  if (typeof thinking === 'string') return thinking;
  return (thinking ?? []).map((p) => (typeof p.text === 'string' ? p.text : '')).join('');
}

/**
 * Some providers open with `{}` and then send the real arguments, giving `{}{"city":…}`;
 * others send nothing at all for a call without parameters. Both become valid JSON here.
 */
export function normaliseArguments(raw: string): string {
  const trimmed = raw.trim();
  if (trimmed === '') return '{}';
  const leadingEmpty = /^\{\s*\}\s*(?=\S)/.exec(trimmed);
  return leadingEmpty ? trimmed.slice(leadingEmpty[0].length) : trimmed;
}

const FINISH_REASONS: Record<string, Completion['finishReason']> = {
  stop: 'stop',
  // Non-OpenAI spellings seen behind "compatible" endpoints.
  eos: 'stop',
  end_turn: 'stop',
  stop_sequence: 'stop',
  length: 'length',
  max_tokens: 'length',
  tool_calls: 'tool_calls',
  tool_use: 'tool_calls',
  content_filter: 'content_filter',
  function_call: 'function_call',
};

function normaliseFinishReason(reason: string): Completion['finishReason'] {
  return FINISH_REASONS[reason.toLowerCase()] ?? 'unknown';
}

/**
 * Our usage from the provider's. Cached prompt tokens and reasoning tokens come under several
 * names; both are parts of the prompt and completion counts, never added to them, except where
 * a provider leaves reasoning out of `completion_tokens` (Gemini's OpenAI-compatible endpoint):
 * there `total_tokens` is prompt + completion + reasoning, and the reasoning, billed as output,
 * is added to the completion count.
 */
export function toUsage(usage: UsageLike): Usage {
  const num = (v: number | null | undefined) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);
  const prompt = num(usage.prompt_tokens);
  let completion = num(usage.completion_tokens);
  const cached = num(
    usage.prompt_tokens_details?.cached_tokens ??
      usage.prompt_cache_hit_tokens ??
      usage.cached_tokens ??
      // DeepSeek without the hit count: what missed is all that was not cached.
      (usage.prompt_cache_miss_tokens != null ? prompt - num(usage.prompt_cache_miss_tokens) : 0),
  );
  const reasoning = num(usage.completion_tokens_details?.reasoning_tokens);
  if (reasoning > 0 && num(usage.total_tokens) === prompt + completion + reasoning) completion += reasoning;
  const result: Usage = { promptTokens: prompt, completionTokens: completion };
  if (cached > 0) result.cachedPromptTokens = Math.min(cached, prompt);
  if (reasoning > 0) result.reasoningTokens = Math.min(reasoning, completion);
  return result;
}
