import type { LoopResult, TurnScope } from '../contract/extension.js';
import type { ChatMessage } from '../contract/llm.js';
import { getToolState, setToolState } from '../contract/thread-state.js';
import type { IncomingMessage, TurnEvent } from '../contract/turn.js';
import { tenantFallbacks } from '../contract/model-chain.js';
import type { AnswerDeps } from './answer.js';
import { decideApproval, PAUSED_STATE, pauseForApproval, type ApprovalDeps } from './approval-turn.js';
import { countAhead, trimCounted } from './history.js';
import { runLoop, type LoopInput } from './loop.js';
import { systemPrompt } from './prompts.js';

/** Where a paused step waits in the thread's state: its tool-calling message and the results it has so far. */
const PAUSED = PAUSED_STATE;
interface Paused {
  stepId?: string;
  messages: ChatMessage[];
  /** Who asked: the waiting calls run for them, never for whoever clicked. */
  asker?: Pick<IncomingMessage, 'userId' | 'role'>;
}

/**
 * A loop that ended with `approval`: the pending calls are recorded and the reply becomes the
 * approval message. The paused exchange (the tool-calling message and the results it has) is kept
 * in the thread's state, not its history (a history must never hold a call without its result);
 * the resumed turn puts it back. Returns what the history keeps of the turn.
 */
export async function holdForApproval(
  deps: ApprovalDeps,
  scope: TurnScope,
  threadKey: string,
  result: LoopResult,
  emit: (e: TurnEvent) => void,
): Promise<ChatMessage[]> {
  const at = result.added.findLastIndex((m) => m.role === 'assistant' && (m.tool_calls?.length ?? 0) > 0);
  const paused = at < 0 ? [] : result.added.slice(at);
  const message = await pauseForApproval(deps, scope, threadKey, result.pending ?? [], emit);
  const asker = { userId: scope.message.userId, role: scope.message.role };
  setToolState<Paused>(scope.state, PAUSED, { messages: paused, asker });
  result.text = message.text;
  result.blocks = [...result.blocks, ...message.blocks];
  return at < 0 ? result.added : result.added.slice(0, at);
}

/**
 * A decision (a click, `POST /api/approvals/{id}`, the console's y/n): decided once; when the
 * step's last call is decided, the approved calls run and the loop goes on from the thread's
 * history in the same thread. Returns the turn's result (its reply, usage and tool calls), or
 * `quiet` for the sweep's expiry entry of a step already decided (nothing to say).
 */
export async function resumeApproval(
  deps: ApprovalDeps,
  answerDeps: AnswerDeps & { canPause?: boolean },
  scope: TurnScope,
  threadKey: string,
  signal: AbortSignal,
  emit: (e: TurnEvent) => void,
): Promise<LoopResult | { refused: string } | { quiet: true }> {
  const { message, tenant, state, log, now } = scope;
  // The click's message is the approver's; the approved calls (take_message's sender, a budget's
  // failures) are the asker's, as they would have been had no approval been needed.
  const held = getToolState<Paused>(state, PAUSED, () => ({ messages: [] })).asker;
  const asker: IncomingMessage = held ? { ...message, ...held } : message;
  const base: LoopInput = {
    llm: answerDeps.llm,
    registry: answerDeps.registry,
    messages: [],
    ctx: {
      tenant,
      state,
      data: scope.data,
      log,
      message: asker,
      llm: answerDeps.llm,
      now,
      // A resumed turn read whatever its first half read: it stays tainted for its next calls.
      tainted: true,
      failures: answerDeps.rateLimits.failures({
        tenantId: tenant.id,
        platform: message.platform,
        userId: asker.userId,
      }),
    },
    rateLimits: answerDeps.rateLimits,
    limits: { ...answerDeps.limits, maxToolErrors: 3 },
    signal,
    emit,
    log,
    canPause: true,
    ...(tenantFallbacks(tenant.settings).fallbacks ? { fallbacks: tenantFallbacks(tenant.settings).fallbacks } : {}),
  };
  const decided = await decideApproval(deps, scope, threadKey, base, signal, emit);
  if (decided.kind === 'refused') return { refused: decided.text };
  if (decided.kind === 'quiet') return { quiet: true };
  if (decided.kind === 'answered') return quiet(decided.text);
  const paused = getToolState<Paused>(state, PAUSED, () => ({ messages: [] }));
  delete state.tools[PAUSED];
  const before = [...paused.messages, ...decided.results];
  emit({ type: 'status', text: 'Thinking…' });
  const result = await runLoop({
    ...base,
    messages: [
      { role: 'system', content: systemPrompt(tenant, message, now()) },
      ...trimCounted(state.history, answerDeps.historyMax, state.historyTokens).messages,
      ...before,
    ],
  });
  result.toolCalls = [...decided.toolCalls, ...result.toolCalls];
  let added = result.added;
  // A further call that waits is asked for, and owned by, the same asker.
  if (result.ended === 'approval')
    added = await holdForApproval(deps, { ...scope, message: asker }, threadKey, result, emit);
  await countAhead(added);
  const kept = trimCounted([...state.history, ...before, ...added], answerDeps.historyMax, state.historyTokens);
  state.history = kept.messages;
  state.historyTokens = kept.tokens;
  return result;
}

function quiet(text: string): LoopResult {
  return {
    text,
    blocks: [],
    data: {},
    toolCalls: [],
    usage: { promptTokens: 0, completionTokens: 0 },
    added: [],
    ended: 'answer',
  };
}
