import type { LoopResult, ModeDefinition, TurnScope } from '../contract/extension.js';
import type { ChatMessage, LlmClient } from '../contract/llm.js';
import type { ThreadState } from '../contract/thread-state.js';
import type { TurnEvent } from '../contract/turn.js';
import type { RateLimits } from '../security/rate-limits.js';
import type { ReadFiles } from '../attachments/read.js';
import { countAhead, trimCounted } from './history.js';
import { userMessage } from './turn-files.js';
import { runLoop, type LoopInput } from './loop.js';
import { systemPrompt } from './prompts.js';
import type { ToolRegistry } from './registry.js';
import { tenantFallbacks } from '../contract/model-chain.js';
import { turnModel } from '../contract/channel-settings.js';
import type { Tenant } from '../contract/data.js';
import type { Logger } from '../telemetry/logger.js';

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
  /** Calls that need a person's OK can wait for one (issue 43: the agent records pending approvals). */
  canPause?: boolean;
  /** The model takes image parts (MODEL_INPUT_IMAGES): tools' images are shown to it (issue 44). */
  images?: boolean;
}

export interface AnswerInput {
  scope: TurnScope;
  /** The user's text as the model reads it (fenced when flagged). */
  text: string;
  /** The thread before the message, fenced (src/agent/thread-context.ts): placed after the history, before `text`. */
  context?: ChatMessage;
  /** The message's files, read (src/agent/turn-files.ts): their text after `text`, images as image parts. */
  files?: ReadFiles;
  /** Recalled long-term memory (issue 45): trailing system notes, after the cacheable prefix, not kept in history. */
  notes?: string[];
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
  // What the turn added (a long answer) is counted now, in slices, so keeping it blocks nothing.
  await countAhead(result.added);
  return { result, mode };
}

/** The thread's history after the turn: the user's text and what the turn added, trimmed to its budget. */
export function keepHistory(
  state: ThreadState,
  text: string,
  added: ChatMessage[],
  historyMax: number,
  context?: ChatMessage,
): void {
  // The thread context stays where the request had it, so the next request starts with this one.
  const kept = trimCounted(
    [...state.history, ...(context ? [context] : []), { role: 'user', content: text }, ...added],
    historyMax,
    state.historyTokens,
  );
  state.history = kept.messages;
  state.historyTokens = kept.tokens;
}

/** One loop's request (system prompt, trimmed history, the user's text), tools' context and caps. */
function loopInput(deps: AnswerDeps, input: AnswerInput, mode: ModeDefinition | undefined): LoopInput {
  const { scope, text, signal, emit, context } = input;
  const { message, tenant, state, log, now } = scope;
  return {
    llm: deps.llm,
    registry: deps.registry,
    messages: [
      { role: 'system', content: mode ? mode.system(scope) : systemPrompt(tenant, message, now()) },
      ...trimCounted(state.history, deps.historyMax, state.historyTokens).messages,
      // After the conversation: the cacheable prefix (system, tools, earlier turns) stays byte-identical.
      ...(context ? [context] : []),
      userMessage(text, input.files),
    ],
    ctx: {
      tenant,
      state,
      data: scope.data,
      log,
      message,
      llm: deps.llm,
      now,
      ...(scope.tainted ? { tainted: true } : {}),
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
    ...(input.notes ? { notes: input.notes } : {}),
    ...(deps.canPause ? { canPause: true } : {}),
    ...(deps.images ? { images: true } : {}),
    ...fallbacksOf(tenant, log),
    ...modelOf(tenant),
  };
}

/** The turn's model: a channel's or the tenant's `model` setting (issue 46); none, OPENAI_MODEL. */
function modelOf(tenant: Tenant): { model?: string } {
  const model = turnModel(tenant);
  return model ? { model } : {};
}

/** Tenants' settings whose model_fallbacks did not parse, already said in the log (said once each). */
const badFallbacksSaid = new WeakSet<object>();

/** The tenant's own model fallbacks (`settings.model_fallbacks`); a bad stored value leaves the deployment's. */
function fallbacksOf(tenant: Tenant, log: Logger): { fallbacks?: LoopInput['fallbacks'] } {
  const { fallbacks, invalid } = tenantFallbacks(tenant.settings);
  if (invalid && !badFallbacksSaid.has(tenant.settings)) {
    badFallbacksSaid.add(tenant.settings);
    log.warn(
      { code: 'tenant_model_fallbacks_invalid', tenant: tenant.slug ?? tenant.id },
      `the tenant's settings.model_fallbacks is not valid (${invalid}): MODEL_FALLBACKS applies`,
    );
  }
  return fallbacks ? { fallbacks } : {};
}
