import type { Config } from '../config.js';
import { createBudgets, type BudgetConfig } from './budget.js';
import { tenantFor } from '../data/index.js';
import type { DataPort, Tenant, TurnRecord } from '../contract/data.js';
import type { Logger } from '../logger.js';
import { fenceFlaggedMessage } from '../security/fence.js';
import type { Guard } from '../security/guard.js';
import { detectInjection } from '../security/injection.js';
import { createRateLimits, type RateLimits } from '../security/rate-limits.js';
import { clean } from '../security/sanitize.js';
import type { ToolRegistry } from './registry.js';
import { createEventChannel } from './event-channel.js';
import { trimCounted } from './history.js';
import { LlmError, type LlmClient, type ModelPricing } from '../contract/llm.js';
import { linkedSignal } from '../net/linked-signal.js';
import { ThreadLockTimeoutError } from './thread-lock.js';
import { runLoop } from './loop.js';
import { createTurnRecorder, failedOutcome, type TurnSummary } from './turn-record.js';
import { annotateTurn } from '../telemetry/genai.js';
import type {
  ActionHandler,
  ActionResult,
  AgentExtension,
  CommandHandler,
  ModeDefinition,
  TurnScope,
} from '../contract/extension.js';
import { systemPrompt } from './prompts.js';
import { threadKey, type ThreadState } from '../contract/thread-state.js';
import { UserFacingError, type IncomingMessage, type TurnEvent, type TurnFlag, type Usage } from '../contract/turn.js';

export interface ThreadStoreLike {
  load(key: string): Promise<ThreadState>;
  save(state: ThreadState): Promise<void>;
}
export interface ThreadLockLike {
  /** `fn` gets a signal that aborts if the lock is lost (another replica took the lease). */
  runExclusive<T>(key: string, fn: (lockLost: AbortSignal) => Promise<T>): Promise<T>;
}

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
    Partial<BudgetConfig>;
  llm: LlmClient;
  registry: ToolRegistry;
  data: DataPort;
  store: ThreadStoreLike;
  lock: ThreadLockLike;
  log: Logger;
  now?: () => Date;
  extensions?: AgentExtension[];
  /** Tool and message rate limits (default: in memory, seed 001's numbers, 20 messages a minute). */
  rateLimits?: RateLimits;
  /** Prices each turn for the ledger (default: none, every turn's cost is null). */
  pricing?: ModelPricing;
  /** The optional classifier model (`GUARD_MODEL`), asked beside the first step; fail-open. */
  guard?: Guard;
  /** TURN_LOG_HASH_KEY: the key of the turn record's thread and user hashes (default: random per process). */
  turnHashKey?: string;
  /** The id of the trace the turn runs in, when tracing is on (kept in the turn record for a link). */
  traceId?: () => string | undefined;
}

export interface Agent {
  /** Runs one turn; events stream as it works and end with `done` or `error`. */
  handle(message: IncomingMessage, signal?: AbortSignal): AsyncIterable<TurnEvent>;
  /** Whether a button's action id has a handler (an adapter need not mark a click it cannot answer). */
  handlesAction(actionId: string): boolean;
}

const MAX_TOOL_ERRORS = 3;

export function createAgent(deps: AgentDeps): Agent {
  const { config, llm, registry, data, store, lock, log } = deps;
  /** Set from the model's context window by the composition root when the setting is unset. */
  const historyMax = config.HISTORY_MAX_TOKENS ?? 6_000;
  const now = deps.now ?? (() => new Date());
  const ext = mergeExtensions(deps.extensions ?? []);
  ext.commands.ask ??= async (options) => ({ message: options.question ?? options.text ?? '' });
  ext.actions.suggest ??= async (action) => ({ message: action.value ?? '' });
  const budgets = createBudgets(data, config, log, now);
  const rateLimits = deps.rateLimits ?? createRateLimits({ log });
  const turnRecord = createTurnRecorder({
    ...(deps.turnHashKey ? { hashKey: deps.turnHashKey } : {}),
    ...(deps.traceId ? { traceId: deps.traceId } : {}),
  });

  /**
   * The turn's ledger row (when it used the model) and its turn record, in one statement; a failed
   * write never fails the turn.
   */
  async function recordUsage(
    message: IncomingMessage,
    tenant: Pick<Tenant, 'id'>,
    usage: Usage,
    toolCalls: number,
    turn: TurnRecord,
  ): Promise<void> {
    let costUsd: number | null = null;
    try {
      if (usage.promptTokens + usage.completionTokens > 0) costUsd = deps.pricing?.cost(llm.model, usage) ?? null;
    } catch (err) {
      log.warn({ err, model: llm.model }, 'could not price a turn; its ledger row has no cost');
    }
    await data
      .recordUsage({
        turn,
        tenantId: tenant.id,
        platform: message.platform,
        channelId: message.channelId,
        threadId: message.threadId,
        userId: message.userId,
        model: llm.model,
        promptTokens: usage.promptTokens,
        completionTokens: usage.completionTokens,
        cachedPromptTokens: usage.cachedPromptTokens ?? 0,
        reasoningTokens: usage.reasoningTokens ?? 0,
        costUsd,
        toolCalls,
      })
      .catch((err: unknown) => log.warn({ err, tenant: tenant.id }, 'could not write the token ledger row for a turn'));
  }

  async function tenantOf(message: IncomingMessage): Promise<Tenant> {
    const tenant = await tenantFor(
      data,
      config.TENANT_MODE,
      message.platform,
      message.workspaceId,
      message.orgId,
      message.tenant,
    );
    if (tenant) return tenant;
    const place = message.platform === 'discord' ? 'server' : 'workspace';
    throw new UserFacingError(
      'tenant_not_configured',
      `This ${place} is not set up for Switchboard yet. Ask your Switchboard admin to add it.`,
    );
  }

  /** `turnSignal` reports the signal the turn ran under, so a timeout can be told from other aborts. */
  async function turn(
    message: IncomingMessage,
    emit: (e: TurnEvent) => void,
    outer: AbortSignal | undefined,
    turnSignal: (s: AbortSignal) => void,
    seen: TurnSummary,
  ): Promise<void> {
    const tenant = await tenantOf(message);
    seen.tenant = tenant.slug ?? tenant.id;
    seen.tenantId = tenant.id;
    // Structural: every adapter's turn passes here, so no call site can forget the limits or the budget.
    const flood = await rateLimits.message({ tenantId: tenant.id, platform: message.platform, userId: message.userId });
    if (!flood.ok) {
      throw new UserFacingError(
        'rate_limited',
        `You are sending messages faster than I can answer (${flood.limit} a minute). I skipped the last ones; try again in ${flood.retryAfterSeconds} s.`,
        { resetAt: flood.resetAt, limit: flood.limit, remaining: 0, notify: flood.notify },
      );
    }
    await budgets.check(message, tenant);
    const key = threadKey(message, tenant.id);
    // The turn's span (tracing on): whose turn, and which conversation (hashed: no channel or user id leaves).
    annotateTurn(tenant.id, key);
    const turnLog = log.child({ thread: key, platform: message.platform, messageId: message.messageId });
    await lock.runExclusive(key, async (lockLost) => {
      // The turn's clock starts once it holds the thread: waiting behind an earlier turn is not its time.
      const link = linkedSignal([lockLost, outer], config.TURN_TIMEOUT_MS);
      const signal = link.signal;
      turnSignal(signal);
      const state = await store.load(key).catch((err: unknown) => {
        link.dispose();
        throw err;
      });
      // Tools, actions and commands see the database through the tenant's port only.
      const tenantData = data.forTenant(tenant);
      const scope: TurnScope = { message, tenant, state, data: tenantData, llm, log: turnLog, now };
      let saving: Promise<void> | undefined;
      const save = () => (saving ??= store.save(state));
      try {
        const resolved = await resolveText(message, scope, emit, async () => {
          const turn = turnRecord(message, tenant.id, seen, { outcome: 'answered', flags: [], tools: [] });
          seen.recorded = true;
          await recordUsage(message, tenant, { promptTokens: 0, completionTokens: 0 }, 0, turn);
        });
        if (resolved === undefined) return; // answered directly (paging)
        // A flagged message is still answered, but the model reads it fenced as untrusted (and so does the history).
        const verdict = detectInjection(resolved);
        const flags: TurnFlag[] = verdict.flagged ? ['prompt_injection'] : [];
        seen.flags = flags;
        if (verdict.flagged)
          turnLog.warn(
            {
              flags,
              score: verdict.score,
              modelScore: verdict.modelScore,
              families: verdict.families,
              userId: message.userId,
            },
            'message flagged as a prompt injection; answered fenced',
          );
        let text = verdict.flagged ? fenceFlaggedMessage(resolved) : resolved;
        // The classifier model, if any, runs beside the first step (the turn does not wait for it
        // to start answering); its verdict is awaited, within its budget, before the turn is recorded.
        const guarded = deps.guard?.check(resolved, turnLog);
        let mode = state.mode ? ext.modes[state.mode.name] : undefined;
        const loopIn = (m: ModeDefinition | undefined) =>
          runLoop({
            llm,
            registry,
            messages: [
              { role: 'system', content: m ? m.system(scope) : systemPrompt(tenant, message, now()) },
              ...trimCounted(state.history, historyMax, state.historyTokens).messages,
              { role: 'user', content: text },
            ],
            ctx: {
              tenant,
              state,
              data: tenantData,
              log: turnLog,
              message,
              llm,
              now,
              // Bound to the turn's user here: a tool counts failures for this user only.
              failures: rateLimits.failures({
                tenantId: tenant.id,
                platform: message.platform,
                userId: message.userId,
              }),
            },
            rateLimits,
            limits: {
              maxSteps: m?.maxSteps ?? config.AGENT_MAX_STEPS,
              maxToolCalls: m?.maxToolCalls ?? config.AGENT_MAX_TOOL_CALLS,
              toolTimeoutMs: config.TOOL_TIMEOUT_MS,
              maxToolErrors: MAX_TOOL_ERRORS,
            },
            signal,
            emit,
            log: turnLog,
            only: m?.tools,
            requireTerminal: m?.requireTerminal,
          });
        emit({ type: 'status', text: 'Thinking…' });
        let result = await loopIn(mode);
        // A terminal tool entered a mode (e.g. `start_quote`): the same message continues in it.
        const entered = !mode && result.ended === 'terminal' && state.mode ? ext.modes[state.mode.name] : undefined;
        if (entered) {
          const routing = result;
          mode = entered;
          result = await loopIn(entered);
          result.usage = {
            promptTokens: routing.usage.promptTokens + result.usage.promptTokens,
            completionTokens: routing.usage.completionTokens + result.usage.completionTokens,
          };
          result.toolCalls = [...routing.toolCalls, ...result.toolCalls];
          result.data = { ...routing.data, ...result.data };
        }
        if (result.ended === 'no_terminal' && mode?.requireTerminal) result.text = mode.requireTerminal.giveUp;
        const guardVerdict = await guarded;
        if (guardVerdict?.flagged && !verdict.flagged) {
          // Too late to fence this step's input, but the turn is flagged and the history keeps it
          // fenced, so every later turn reads it as untrusted.
          flags.push('prompt_injection');
          text = fenceFlaggedMessage(resolved);
          turnLog.warn(
            {
              flags,
              guardLabel: guardVerdict.label,
              score: verdict.score,
              modelScore: verdict.modelScore,
              userId: message.userId,
            },
            'message flagged as a prompt injection by GUARD_MODEL; kept fenced in the history',
          );
        }
        await mode?.after?.(result, scope);
        const kept = trimCounted(
          [...state.history, { role: 'user', content: text }, ...result.added],
          historyMax,
          state.historyTokens,
        );
        state.history = kept.messages;
        state.historyTokens = kept.tokens;
        emit({ type: 'reply', reply: { text: result.text, blocks: result.blocks } });
        // The turn's two durable writes run side by side (on Postgres and Redis, two round trips
        // become one wait); `done` follows the ledger row, and a failed save surfaces below, as before.
        save().catch(() => {});
        const turn = turnRecord(message, tenant.id, seen, {
          outcome: 'answered',
          flags: [...flags],
          tools: result.toolCalls.map((c) => ({ tool: c.tool, ok: c.ok })),
        });
        seen.recorded = true;
        await recordUsage(message, tenant, result.usage, result.toolCalls.length, turn);
        emit({
          type: 'done',
          usage: result.usage,
          toolCalls: result.toolCalls,
          data: result.data,
          ...(flags.length ? { flags } : {}),
        });
      } finally {
        // Tool state gathered before a failure is kept ("nothing lost").
        try {
          await save();
        } finally {
          link.dispose();
        }
      }
    });
  }

  async function resolveText(
    message: IncomingMessage,
    scope: TurnScope,
    emit: (e: TurnEvent) => void,
    /** Writes the turn record of a turn answered without the model (before its `done`). */
    answeredDirectly: () => Promise<void>,
  ): Promise<string | undefined> {
    let outcome: ActionResult = { message: message.text };
    if (message.action) {
      const handler = ownEntry(ext.actions, message.action.id.split('.', 1)[0] ?? '');
      if (!handler)
        throw new UserFacingError('bad_request', 'That button is no longer available. Ask me again in the thread.');
      outcome = await handler(message.action, scope);
    } else if (message.command) {
      const handler = ownEntry(ext.commands, message.command.name);
      if (!handler) throw new UserFacingError('bad_request', `Unknown command /${message.command.name}.`);
      outcome = await handler(message.command.options, scope);
    }
    if ('reply' in outcome) {
      emit({ type: 'reply', reply: outcome.reply });
      await answeredDirectly();
      emit({ type: 'done', usage: { promptTokens: 0, completionTokens: 0 }, toolCalls: [], data: {} });
      return undefined;
    }
    const text = outcome.message.trim();
    if (!text) throw new UserFacingError('bad_request', 'Your message was empty. What would you like to know?');
    return text;
  }

  return {
    handlesAction: (actionId) => ownEntry(ext.actions, actionId.split('.', 1)[0] ?? '') !== undefined,
    handle(raw, outer) {
      // Invisible characters and compatibility forms are gone before anything (tools, the model, the history) reads the text.
      const message = sanitizeMessage(raw);
      const channel = createEventChannel<TurnEvent>();
      let signal: AbortSignal | undefined;
      const started = performance.now();
      const seen: TurnSummary = { outcome: 'answered', toolResults: [], started };
      turn(
        message,
        (e) => {
          if (e.type === 'done') {
            seen.usage = e.usage;
            seen.tools = e.toolCalls.length;
          } else if (e.type === 'tool_result') seen.toolResults.push({ tool: e.tool, ok: e.ok });
          channel.push(e);
        },
        outer,
        (s) => (signal = s),
        seen,
      )
        .catch(async (err: unknown) => {
          const safe = toUserError(err, signal);
          seen.outcome = safe.code;
          const level = safe.code === 'internal' ? 'error' : 'warn';
          log[level]({ err, code: safe.code, platform: message.platform, messageId: message.messageId }, 'turn failed');
          // A turn the bot declined or could not finish is recorded too (the console's failures);
          // its tokens are not known here, so it has no ledger row. Before the error event, as
          // an answered turn's record comes before its `done`.
          if (seen.tenantId && !seen.recorded) {
            const turn = turnRecord(message, seen.tenantId, seen, {
              outcome: failedOutcome(safe.code),
              errorCode: safe.code,
              flags: [...(seen.flags ?? [])],
              tools: seen.toolResults,
            });
            await recordUsage(message, { id: seen.tenantId }, { promptTokens: 0, completionTokens: 0 }, 0, turn);
          }
          channel.push({
            type: 'error',
            code: safe.code,
            message: safe.message,
            ...safe.details,
            ...(safe.notify ? {} : { notify: false }),
          });
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
            },
            'turn',
          );
          channel.close();
        });
      return channel;
    },
  };
}

function toUserError(err: unknown, signal: AbortSignal | undefined): UserFacingError {
  if (err instanceof UserFacingError) return err;
  if (signal?.aborted && signal.reason instanceof DOMException && signal.reason.name === 'TimeoutError') {
    return new UserFacingError(
      'turn_timeout',
      'That took too long and I stopped working on it. Try a narrower question.',
    );
  }
  if (err instanceof ThreadLockTimeoutError) {
    return new UserFacingError(
      'turn_timeout',
      'I am still working on an earlier message in this thread. Please wait for that answer and try again.',
    );
  }
  if (err instanceof LlmError) {
    if (err.kind === 'unreachable' || err.kind === 'timeout' || err.kind === 'server') {
      return new UserFacingError(
        'llm_unavailable',
        'I can’t reach the language model right now. Please try again in a minute.',
      );
    }
    if (err.kind === 'rate_limited')
      return new UserFacingError(
        'llm_unavailable',
        'The language model is rate-limiting us. Please try again in a minute.',
      );
    if (err.kind === 'auth')
      return new UserFacingError(
        'llm_error',
        'The language model rejected our credentials. An admin needs to check OPENAI_API_KEY.',
      );
    if (err.kind === 'aborted')
      return new UserFacingError('turn_timeout', 'This request was cancelled before it finished.');
    return new UserFacingError('llm_error', 'The language model could not handle that request. Try rephrasing it.');
  }
  return new UserFacingError('internal', 'Something went wrong on my side while answering. The error has been logged.');
}

/** The message with its text, command options and action value sanitized (ids are left as the platform sent them). */
function sanitizeMessage(message: IncomingMessage): IncomingMessage {
  const out: IncomingMessage = { ...message, text: clean(message.text) };
  if (message.command) {
    const options: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const [k, v] of Object.entries(message.command.options)) options[k] = clean(v);
    out.command = { name: message.command.name, options };
  }
  if (message.action)
    out.action = {
      id: message.action.id,
      ...(message.action.value !== undefined ? { value: clean(message.action.value) } : {}),
    };
  return out;
}

/** A handler registered under exactly this name, never one inherited from Object.prototype. */
function ownEntry<T>(map: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(map, key) ? map[key] : undefined;
}

function mergeExtensions(list: AgentExtension[]): Required<AgentExtension> {
  // Null-prototype maps: an action id or command name like `__proto__` or `toString` finds nothing.
  const out: Required<AgentExtension> = {
    actions: Object.create(null) as Record<string, ActionHandler>,
    commands: Object.create(null) as Record<string, CommandHandler>,
    modes: Object.create(null) as Record<string, ModeDefinition>,
  };
  for (const e of list) {
    Object.assign(out.actions, e.actions);
    Object.assign(out.commands, e.commands);
    Object.assign(out.modes, e.modes);
  }
  return out;
}
