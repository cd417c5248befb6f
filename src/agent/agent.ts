import { randomBytes, randomUUID } from 'node:crypto';
import { createFeedbackRecorder, withFeedback } from './feedback.js';
import type { FeedbackResult, FeedbackVote } from '../contract/feedback.js';
import type { Config } from '../config/index.js';
import { createBudgets, type BudgetConfig } from './budget.js';
import type { DataPort } from '../contract/data.js';
import type { Logger } from '../telemetry/logger.js';
import type { Guard } from '../security/guard.js';
import { createRateLimits, type RateLimits } from '../security/rate-limits.js';
import type { ToolRegistry } from './registry.js';
import { createEventChannel } from './event-channel.js';
import type { LlmClient, ModelPricing } from '../contract/llm.js';
import { failedOutcome, type TurnSummary } from './turn-record.js';
import { annotateTurn } from '../telemetry/genai.js';
import type { AgentExtension, TurnScope } from '../contract/extension.js';
import { threadKey } from '../contract/thread-state.js';
import type { IncomingMessage, TurnEvent, TurnOptions } from '../contract/turn.js';
import { actionHandler, agentExtensions, resolveText } from './extensions.js';
import { recallNotes } from './recall.js';
import { admitTurn, resolveTenant } from './admission.js';
import { inThread, type ThreadLockLike, type ThreadStoreLike } from './thread-session.js';
import { applyGuardVerdict, screenMessage } from './screening.js';
import { answer, keepHistory } from './answer.js';
import { afterReply, settleSave } from './after-reply.js';
import { createTurnLedger } from './turn-ledger.js';
import type { UsageJournal } from './usage-journal.js';
import { isStorageUnreachable, toUserError, UNAVAILABLE_TEXT } from './turn-errors.js';
import { lostThreadLock } from './thread-lock.js';
import { sanitizeMessage } from './sanitize-message.js';
import { gatherThreadContext, type ThreadContextSettings } from './thread-context.js';
import { historyText, readTurnFiles, withFileProblems, type TurnFilesSettings } from './turn-files.js';
import { attachmentSettings } from '../config/attachments.js';
import { isApprovalAction, type ApprovalDeps } from './approval-turn.js';
import { holdForApproval, resumeApproval } from './approval-resume.js';
import { createApprovalStore } from '../data/approvals.js';
import { isAdminPort } from '../data/rpc-port.js';
import { sharedChannelSettings, type ChannelSettingsLookup } from '../data/channel-settings.js';
import { settingsForTurn } from './channel-turn.js';
import { createServedTools, type ServedTools } from './served-tools.js';

export type { ThreadLockLike, ThreadStoreLike } from './thread-session.js';

export interface AgentDeps {
  config: Pick<
    Config,
    | 'AGENT_MAX_STEPS'
    | 'AGENT_MAX_TOOL_CALLS'
    | 'TOOL_TIMEOUT_MS'
    | 'TURN_TIMEOUT_MS'
    | 'HISTORY_MAX_TOKENS'
    | 'TENANT_MODE'
  > &
    Partial<BudgetConfig> &
    Partial<ThreadContextSettings> &
    Partial<Pick<Config, 'APPROVAL_TIMEOUT' | 'FEEDBACK'>>;
  llm: LlmClient;
  registry: ToolRegistry;
  data: DataPort;
  store: ThreadStoreLike;
  lock: ThreadLockLike;
  log: Logger;
  now?: () => Date;
  extensions?: AgentExtension[];
  /** Tool and message rate limits (default: in memory, 20 messages a minute). */
  rateLimits?: RateLimits;
  /** Prices each turn for the ledger (default: none, every turn's cost is null). */
  pricing?: ModelPricing;
  /** The optional classifier model (`GUARD_MODEL`), asked beside the first step; fail-open. */
  guard?: Guard;
  /** TURN_LOG_HASH_KEY: the key of the turn record's thread and user hashes (default: random per process). */
  turnHashKey?: string;
  /** The id of the trace the turn runs in, when tracing is on (kept in the turn record for a link). */
  traceId?: () => string | undefined;
  /** Keeps usage rows the database cannot take now (issue 41, item 3); budgets count what it holds. */
  usageJournal?: UsageJournal;
  /** Files shared with a message (ATTACHMENT_* and whether the model takes images); default: the settings' defaults, no images. */
  files?: TurnFilesSettings;
  /** Settings per channel (issue 46), cached like tenants; default: read through `data`, cached 10 s. */
  channels?: ChannelSettingsLookup;
}

/** The ATTACHMENT_* defaults, for an agent built without the settings (tests, benches). */
const DEFAULT_FILES: TurnFilesSettings = { ...attachmentSettings.parse({}), images: false };

export interface Agent {
  /** Runs one turn; events stream as it works and end with `done` or `error`. */
  handle(message: IncomingMessage, signal?: AbortSignal, options?: TurnOptions): AsyncIterable<TurnEvent>;
  /** Whether a button's action id has a handler (an adapter need not mark a click it cannot answer). */
  handlesAction(actionId: string): boolean;
  /** The tenant's read tools for MCP clients (`/mcp`, issue 44): same registry, limits, budgets and turn record. */
  served: ServedTools;
  /** Records a vote on an answer (issue 47): the voter's tenant from the platform, one vote per person per answer. */
  feedback(vote: FeedbackVote): Promise<FeedbackResult>;
}

const NO_USAGE = { promptTokens: 0, completionTokens: 0 };

export function createAgent(deps: AgentDeps): Agent {
  const { config, llm, registry, data, store, lock, log } = deps;
  /** Set from the model's context window by the composition root when the setting is unset. */
  const historyMax = config.HISTORY_MAX_TOKENS ?? 6_000;
  const now = deps.now ?? (() => new Date());
  const ext = agentExtensions(deps.extensions ?? []);
  const channels = deps.channels ?? sharedChannelSettings(data, { log });
  const budgets = createBudgets(data, config, log, now, deps.usageJournal);
  const rateLimits = deps.rateLimits ?? createRateLimits({ log });
  const turnHashKey = deps.turnHashKey ?? randomBytes(32).toString('hex');
  const feedback = createFeedbackRecorder({ data, tenantMode: config.TENANT_MODE, hashKey: turnHashKey, log });
  // FEEDBACK (default on in the settings); an agent built without the settings (tests, benches) asks for none.
  const askFeedback = config.FEEDBACK === 'on';
  const ledger = createTurnLedger({
    data,
    llm,
    log,
    ...(deps.pricing ? { pricing: deps.pricing } : {}),
    // One key for the record's user hashes and its approvers' (issue 43): equal people, equal hashes.
    hashKey: turnHashKey,
    ...(deps.traceId ? { traceId: deps.traceId } : {}),
    ...(deps.usageJournal ? { journal: deps.usageJournal } : {}),
  });
  const contextSettings: ThreadContextSettings = {
    THREAD_CONTEXT: config.THREAD_CONTEXT ?? 'on',
    THREAD_CONTEXT_MAX_MESSAGES: config.THREAD_CONTEXT_MAX_MESSAGES ?? 50,
    THREAD_CONTEXT_MAX_TOKENS: config.THREAD_CONTEXT_MAX_TOKENS ?? 3_000,
  };
  // Pending approvals live in the database (issue 43); without an admin port no call can wait, so none runs that needs to.
  const approvals: ApprovalDeps | undefined = isAdminPort(data)
    ? {
        store: createApprovalStore(data),
        timeoutMs: config.APPROVAL_TIMEOUT ?? 15 * 60_000,
        hashKey: turnHashKey,
      }
    : undefined;
  const answerDeps = {
    canPause: approvals !== undefined,
    images: deps.files?.images === true,
    llm,
    registry,
    rateLimits,
    modes: ext.modes,
    limits: {
      maxSteps: config.AGENT_MAX_STEPS,
      maxToolCalls: config.AGENT_MAX_TOOL_CALLS,
      toolTimeoutMs: config.TOOL_TIMEOUT_MS,
    },
    historyMax,
  };

  /**
   * One turn, stage by stage: tenant, limits, the thread (lock and state), the text, screening,
   * the answer, the reply, and what follows it. `turnSignal` reports the signal the turn ran
   * under, so a timeout can be told from other aborts.
   */
  async function turn(
    message: IncomingMessage,
    emit: (e: TurnEvent) => void,
    outer: AbortSignal | undefined,
    turnSignal: (s: AbortSignal) => void,
    seen: TurnSummary,
    options: TurnOptions | undefined,
  ): Promise<void> {
    const base = await resolveTenant(data, config.TENANT_MODE, message);
    seen.tenant = base.slug ?? base.id;
    seen.tenantId = base.id;
    // The channel's settings over the tenant's (issue 46): the rest of the turn reads the merged tenant.
    const settings = await settingsForTurn(channels, base, message, llm.model);
    const tenant = settings.tenant;
    seen.settings = settings.sources;
    // Structural: every adapter's turn passes here, so no call site can forget the limits or the budget.
    await admitTurn({ rateLimits, budgets }, message, tenant, options?.replay === true);
    const key = threadKey(message, tenant.id);
    // The turn's span (tracing on): whose turn, and which conversation (hashed: no channel or user id leaves).
    annotateTurn(tenant.id, key);
    const turnLog = log.child({ thread: key, platform: message.platform, messageId: message.messageId });
    const session = { outer, timeoutMs: config.TURN_TIMEOUT_MS, onSignal: turnSignal };
    await inThread({ lock, store }, key, session, async ({ state, signal, save }) => {
      // Another run of this entry held the thread and answered it: nothing left to do here.
      if (options?.stillToDo && !(await options.stillToDo())) {
        seen.outcome = 'already_answered';
        return;
      }
      // Tools, actions and commands see the database through the tenant's port only.
      const scope: TurnScope = { message, tenant, state, data: data.forTenant(tenant), llm, log: turnLog, now };
      if (approvals && isApprovalAction(message.action)) {
        // A decision on a paused step: the turn resumes from the thread's state (issue 43).
        const resumed = await resumeApproval(approvals, answerDeps, scope, key, signal, emit);
        // The sweep's expiry entry for a step already decided: nothing happened, nothing to say or record.
        if ('quiet' in resumed) return;
        if ('refused' in resumed) {
          const refused = { outcome: 'refused' as const, errorCode: 'bad_request', flags: [], tools: [] };
          await ledger.record(message, tenant.id, seen, refused, NO_USAGE, 0);
          emit({ type: 'error', code: 'bad_request', message: resumed.refused, private: true });
          return;
        }
        emit({
          type: 'reply',
          reply: { text: resumed.text, blocks: withFeedback(resumed.blocks, seen.id, askFeedback) },
        });
        await afterReply({
          message,
          tenantId: tenant.id,
          seen,
          flags: [],
          result: resumed,
          save,
          ledger,
          emit,
          log: turnLog,
        });
        return;
      }
      const resolved = await resolveText(ext, message, scope, emit, () =>
        ledger.record(message, tenant.id, seen, { outcome: 'answered', flags: [], tools: [] }, NO_USAGE, 0),
      );
      if (resolved === undefined) return settleSave(save, turnLog); // answered directly (paging)
      const screened = screenMessage(resolved, message, turnLog);
      seen.flags = screened.flags;
      // Text the injection detector flagged taints the turn: a write or spend waits for a person (issue 43).
      if (screened.verdict.flagged) {
        scope.tainted = true;
        scope.taintedBy = [...(scope.taintedBy ?? []), 'flagged_message'];
      }
      // The classifier model, if any, runs beside the first step (the turn does not wait for it
      // to start answering); its verdict is awaited, within its budget, before the turn is recorded.
      const guarded = deps.guard?.check(resolved, turnLog);
      // The thread before the message (fetched at most once, only what is new): data, fenced; it taints the turn.
      const context = await gatherThreadContext({
        source: message.threadContext,
        state,
        tenant,
        settings: contextSettings,
        log: turnLog,
        signal,
        platform: message.platform,
      });
      if (context.message) {
        scope.tainted = true;
        scope.taintedBy = [...(scope.taintedBy ?? []), 'thread_context'];
      }
      if (context.flagged) screened.flags.push('context_injection');
      // The message's files, read one at a time: their text fenced as data, images for a model that takes them.
      const files = await readTurnFiles(scope, deps.files ?? DEFAULT_FILES, screened.flags, signal);
      // Long-term memory the turn may see (issue 45): after the cacheable prefix, counted in the record.
      const notes = await recallNotes(ext.recall, scope, resolved, signal, seen);
      const { result, mode } = await answer(answerDeps, {
        scope,
        text: screened.text,
        signal,
        emit,
        ...(context.message ? { context: context.message } : {}),
        ...(files ? { files } : {}),
        ...(notes ? { notes } : {}),
      });
      applyGuardVerdict(screened, await guarded, message, turnLog);
      await mode?.after?.(result, scope);
      const added =
        approvals && result.ended === 'approval'
          ? await holdForApproval(approvals, scope, key, result, emit)
          : result.added;
      keepHistory(state, historyText(screened.text, files), added, historyMax, context.message);
      // A final answer asks for a vote (issue 47); a step that waits for a person is not one yet.
      const final = withFeedback(
        withFileProblems(result.blocks, files),
        seen.id,
        askFeedback && result.ended !== 'approval',
      );
      emit({ type: 'reply', reply: { text: result.text, blocks: final } });
      await afterReply({
        message,
        tenantId: tenant.id,
        seen,
        flags: screened.flags,
        result,
        save,
        ledger,
        emit,
        log: turnLog,
      });
    });
  }

  /**
   * A failed turn: the user's error event (a safe message, never the error's text), its log
   * line, and its turn record. A turn the bot declined or could not finish is recorded too (the
   * console's failures); its tokens are not known here, so it has no ledger row. The record
   * comes before the error event, as an answered turn's record comes before its `done`.
   */
  async function failTurn(
    err: unknown,
    message: IncomingMessage,
    signal: AbortSignal | undefined,
    seen: TurnSummary,
    emit: (e: TurnEvent) => void,
  ): Promise<void> {
    const safe = toUserError(err, signal);
    seen.outcome = safe.code;
    const level = safe.code === 'internal' ? 'error' : 'warn';
    log[level]({ err, code: safe.code, platform: message.platform, messageId: message.messageId }, 'turn failed');
    if (seen.tenantId && !seen.recorded) {
      const outcome = {
        outcome: failedOutcome(safe.code),
        errorCode: safe.code,
        flags: [...(seen.flags ?? [])],
        tools: seen.toolResults,
      };
      await ledger.record(message, seen.tenantId, seen, outcome, NO_USAGE, 0);
    }
    emit({
      type: 'error',
      code: safe.code,
      message: safe.message,
      ...safe.details,
      ...(safe.notify ? {} : { notify: false }),
    });
  }

  const served = createServedTools({ config, registry, data, llm, log, now, rateLimits, budgets, ledger });

  return {
    served,
    feedback,
    handlesAction: (actionId) =>
      actionHandler(ext, actionId) !== undefined || (approvals !== undefined && isApprovalAction({ id: actionId })),
    handle(raw, outer, options) {
      // Invisible characters and compatibility forms are gone before anything (tools, the model, the history) reads the text.
      const message = sanitizeMessage(raw);
      const channel = createEventChannel<TurnEvent>();
      let signal: AbortSignal | undefined;
      const started = performance.now();
      const seen: TurnSummary = { outcome: 'answered', toolResults: [], started, id: randomUUID() };
      let answered = false;
      /** Something beyond a status reached the user: a retry would show it twice. */
      let shown = false;
      const emit = (e: TurnEvent) => {
        if (e.type !== 'status' && e.type !== 'reasoning_status') shown = true;
        if (e.type === 'done') {
          answered = true;
          seen.usage = e.usage;
          seen.tools = e.toolCalls.length;
        } else if (e.type === 'tool_result') seen.toolResults.push({ tool: e.tool, ok: e.ok });
        channel.push(e);
      };
      turn(message, emit, outer, (s) => (signal = s), seen, options)
        .catch((err: unknown) => {
          // A turn that has answered stays answered: no `error` ever follows `done` (the user
          // would read "Something went wrong" under the answer). What failed is logged instead.
          if (answered) {
            log.error(
              { err, event: 'failed_after_done', platform: message.platform, messageId: message.messageId },
              'a turn failed after its reply; the user was answered and not told',
            );
            return;
          }
          // Redis or Postgres away before anything was shown: the inbox runs the turn again later
          // (its own line tells the outage once); nothing is recorded or shown for this run.
          // So does a turn whose thread lock another run took (this process stalled past its lease).
          if (options?.retryable && !shown && (isStorageUnreachable(err) || lostThreadLock(signal))) {
            seen.outcome = 'retried';
            log.debug(
              { err, platform: message.platform, messageId: message.messageId },
              lostThreadLock(signal)
                ? 'turn lost its thread lock before showing anything; it runs again later'
                : 'turn could not reach Redis or Postgres; it runs again later',
            );
            channel.push({ type: 'error', code: 'unavailable', message: UNAVAILABLE_TEXT, retry: true });
            return;
          }
          return failTurn(err, message, signal, seen, (e) => channel.push(e));
        })
        .finally(() => {
          // The one info line of a turn; its steps, tool calls and deliveries are at debug.
          log.info(
            {
              platform: message.platform,
              tenant: seen.tenant,
              outcome: seen.outcome,
              ms: Math.round(performance.now() - started),
              promptTokens: seen.usage?.promptTokens ?? 0,
              completionTokens: seen.usage?.completionTokens ?? 0,
              tools: seen.tools ?? 0,
              ...(seen.memories ? { memories: seen.memories } : {}),
            },
            'turn',
          );
          channel.close();
        });
      return channel;
    },
  };
}
