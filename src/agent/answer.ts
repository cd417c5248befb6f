import type { LoopResult, ModeDefinition, TurnScope } from '../contract/extension.js';
import type { ChatMessage, LlmClient } from '../contract/llm.js';
import type { ThreadState } from '../contract/thread-state.js';
import type { TurnEvent } from '../contract/turn.js';
import type { RateLimits } from '../security/rate-limits.js';
import { trimCounted } from './history.js';
import { runLoop, type LoopInput } from './loop.js';
import { systemPrompt } from './prompts.js';
import type { ToolRegistry } from './registry.js';

const MAX_TOOL_ERRORS = 3;

export interface AnswerDeps {
  llm: LlmClient;
  registry: ToolRegistry;
  rateLimits: RateLimits;
  modes: Record<string, ModeDefinition>;
  /** The loop's caps outside a mode (a mode may set its own steps and tool calls). */
  limits: { maxSteps: number; maxToolCalls: number; toolTimeoutMs: number };
  /** The history's token budget in each request. */
  historyMax: number;
}

export interface AnswerInput {
  scope: TurnScope;
  /** The user's text as the model reads it (fenced when flagged). */
  text: string;
  signal: AbortSignal;
  emit: (e: TurnEvent) => void;
}

export interface Answer {
  result: LoopResult;
  /** The mode the answer ended in (the thread's, or one a terminal tool entered), if any. */
  mode: ModeDefinition | undefined;
}

/**
 * The model's answer to the user's text: the loop runs in the thread's mode, if any; when a
 * terminal tool enters a mode (e.g. `start_quote`), the same message continues in it and the two
 * loops' usage, tool calls and data are summed.
 */
export async function answer(deps: AnswerDeps, input: AnswerInput): Promise<Answer> {
  const { state } = input.scope;
  let mode = state.mode ? deps.modes[state.mode.name] : undefined;
  input.emit({ type: 'status', text: 'Thinking…' });
  let result = await runLoop(loopInput(deps, input, mode));
  const entered = !mode && result.ended === 'terminal' && state.mode ? deps.modes[state.mode.name] : undefined;
  if (entered) {
    const routing = result;
    mode = entered;
    result = await runLoop(loopInput(deps, input, entered));
    result.usage = {
      promptTokens: routing.usage.promptTokens + result.usage.promptTokens,
      completionTokens: routing.usage.completionTokens + result.usage.completionTokens,
    };
    result.toolCalls = [...routing.toolCalls, ...result.toolCalls];
    result.data = { ...routing.data, ...result.data };
  }
  if (result.ended === 'no_terminal' && mode?.requireTerminal) result.text = mode.requireTerminal.giveUp;
  return { result, mode };
}

/** The thread's history after the turn: the user's text and what the turn added, trimmed to its budget. */
export function keepHistory(state: ThreadState, text: string, added: ChatMessage[], historyMax: number): void {
  const kept = trimCounted(
    [...state.history, { role: 'user', content: text }, ...added],
    historyMax,
    state.historyTokens,
  );
  state.history = kept.messages;
  state.historyTokens = kept.tokens;
}

/** One loop's request (system prompt, trimmed history, the user's text), tools' context and caps. */
function loopInput(deps: AnswerDeps, input: AnswerInput, mode: ModeDefinition | undefined): LoopInput {
  const { scope, text, signal, emit } = input;
  const { message, tenant, state, log, now } = scope;
  return {
    llm: deps.llm,
    registry: deps.registry,
    messages: [
      { role: 'system', content: mode ? mode.system(scope) : systemPrompt(tenant, message, now()) },
      ...trimCounted(state.history, deps.historyMax, state.historyTokens).messages,
      { role: 'user', content: text },
    ],
    ctx: {
      tenant,
      state,
      data: scope.data,
      log,
      message,
      llm: deps.llm,
      now,
      // Bound to the turn's user here: a tool counts failures for this user only.
      failures: deps.rateLimits.failures({ tenantId: tenant.id, platform: message.platform, userId: message.userId }),
    },
    rateLimits: deps.rateLimits,
    limits: {
      maxSteps: mode?.maxSteps ?? deps.limits.maxSteps,
      maxToolCalls: mode?.maxToolCalls ?? deps.limits.maxToolCalls,
      toolTimeoutMs: deps.limits.toolTimeoutMs,
      maxToolErrors: MAX_TOOL_ERRORS,
    },
    signal,
    emit,
    log,
    only: mode?.tools,
    requireTerminal: mode?.requireTerminal,
  };
}
