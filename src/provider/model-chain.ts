import type { CircuitBreakerPolicy } from 'cockatiel';
import { BrokenCircuitError, CircuitState, circuitBreaker, handleWhen, type IBreaker } from 'cockatiel';
import { ConfigError, type Config } from '../config/index.js';
import {
  ANSWERED_BY,
  LlmError,
  type AnsweredBy,
  type ChatMessage,
  type Completion,
  type CompletionRequest,
  type ModelEndpoint,
} from '../contract/llm.js';
import { tenantMayUseKey } from '../contract/model-chain.js';
import type { Logger } from '../telemetry/logger.js';
import { metrics } from '../telemetry/metrics.js';

/**
 * The chat endpoints a call may use, in order: the main one (OPENAI_BASE_URL, OPENAI_MODEL), then
 * MODEL_FALLBACKS (or the tenant's own list). A call moves on when an endpoint refuses the
 * connection, times out, answers 429 or 5xx, or its stream breaks, as long as no text has reached
 * the user; after that the failure is the turn's (the user never reads a sentence twice). The
 * step starts again on the next endpoint with the same request: nothing of the failed attempt
 * (partial text, reasoning, tool-call fragments) is carried over.
 *
 * In a chain of two or more, each endpoint has a breaker (cockatiel's CircuitBreakerPolicy with
 * FailuresInWindow below): past MODEL_BREAKER_FAILURES failures within a minute it opens, and
 * calls skip the endpoint without touching the network until MODEL_BREAKER_COOLDOWN_MS have
 * passed; then one call probes it (half-open) while the others keep skipping it; a good answer
 * closes it, a failure opens it again. A lone endpoint (no fallbacks) has none to skip to: its
 * calls go out as before.
 */

/** What one attempt needs to know of its endpoint besides the client. */
export interface EndpointCall {
  model: string;
  baseUrl: string;
  timeoutMs: number;
}

/** How the chain reaches an endpoint (openai.ts: the SDK client and its streamed completion). */
export interface ChainTransport<Client> {
  connect(baseUrl: string, apiKey: string | undefined): Client;
  /** Every failure of the endpoint an LlmError; anything else is the caller's own and passes through. */
  complete(client: Client, call: EndpointCall, req: CompletionRequest): Promise<Completion>;
}

export interface ModelChain {
  complete(req: CompletionRequest): Promise<Completion>;
}

/** The failures that say "this endpoint, now" rather than "this request": these move a call on and count for the breaker. */
const FAILOVER_KINDS: ReadonlySet<LlmError['kind']> = new Set(['unreachable', 'timeout', 'rate_limited', 'server']);
const BREAKER_WINDOW_MS = 60_000;
/** The main endpoint's key, by the name a fallback would give it. */
const MAIN_KEY = 'OPENAI_API_KEY';

export const isEndpointFailure = (err: unknown): err is LlmError =>
  err instanceof LlmError && FAILOVER_KINDS.has(err.kind);

/**
 * Opens at `threshold` failures within `windowMs`. Successes in between do not wipe the count (as
 * cockatiel's ConsecutiveBreaker would): an endpoint that fails every other call is not healthy.
 * A probe that succeeds does. Holds at most `threshold` timestamps.
 */
export class FailuresInWindow implements IBreaker {
  private times: number[] = [];

  constructor(
    private readonly threshold: number,
    private readonly windowMs: number,
  ) {}

  get state(): unknown {
    return [...this.times];
  }

  set state(value: unknown) {
    this.times = Array.isArray(value) ? value.filter((t): t is number => typeof t === 'number') : [];
  }

  success(state: CircuitState): void {
    if (state === CircuitState.HalfOpen) this.times = [];
  }

  failure(): boolean {
    const now = Date.now();
    this.times = this.times.filter((t) => now - t < this.windowMs).slice(-(this.threshold - 1));
    this.times.push(now);
    return this.times.length >= this.threshold;
  }
}

interface Endpoint<Client> {
  call: EndpointCall;
  /** `model@host`: the metric label and the name in logs (never the key or the path). */
  label: string;
  client: Client;
  breaker: CircuitBreakerPolicy;
}

export function createModelChain<Client>(
  config: Pick<
    Config,
    | 'OPENAI_API_KEY'
    | 'OPENAI_BASE_URL'
    | 'OPENAI_MODEL'
    | 'OPENAI_TIMEOUT_MS'
    | 'MODEL_FALLBACKS'
    | 'MODEL_BREAKER_FAILURES'
    | 'MODEL_BREAKER_COOLDOWN_MS'
  >,
  log: Logger,
  env: NodeJS.ProcessEnv,
  transport: ChainTransport<Client>,
): ModelChain {
  const mainUrl = config.OPENAI_BASE_URL ?? 'https://api.openai.com/v1';
  const deploymentKeys = config.MODEL_FALLBACKS.flatMap((f) => (f.apiKeyEnv ? [f.apiKeyEnv] : []));
  // Endpoints by base URL, model and key variable: one breaker each, shared by every tenant naming it.
  const endpoints = new Map<string, Endpoint<Client>>();
  // Clients by base URL and key variable: another model on the same endpoint (REWRITE_MODEL) shares one.
  const clients = new Map<string, Client>();
  const clientFor = (spec: ModelEndpoint, apiKey: string | undefined): Client => {
    const id = `${spec.baseUrl}\n${spec.apiKeyEnv ?? ''}`;
    let client = clients.get(id);
    if (client === undefined) {
      client = transport.connect(spec.baseUrl, apiKey);
      clients.set(id, client);
    }
    return client;
  };
  const refused = new Set<string>();

  const endpoint = (spec: ModelEndpoint, apiKey: string | undefined): Endpoint<Client> => {
    const id = `${spec.baseUrl}\n${spec.model}\n${spec.apiKeyEnv ?? ''}`;
    let found = endpoints.get(id);
    if (!found) {
      const label = `${spec.model}@${hostOf(spec.baseUrl)}`;
      const breaker = circuitBreaker(handleWhen(isEndpointFailure), {
        halfOpenAfter: config.MODEL_BREAKER_COOLDOWN_MS,
        breaker: new FailuresInWindow(config.MODEL_BREAKER_FAILURES, BREAKER_WINDOW_MS),
      });
      breaker.onBreak(() => {
        metrics.modelBreakerOpen.set({ endpoint: label }, 1);
        log.warn(
          { code: 'model_breaker_open', endpoint: label, cooldownMs: config.MODEL_BREAKER_COOLDOWN_MS },
          `model endpoint ${label} failed ${config.MODEL_BREAKER_FAILURES} times within a minute: skipping it for ${config.MODEL_BREAKER_COOLDOWN_MS} ms`,
        );
      });
      breaker.onHalfOpen(() => log.info({ endpoint: label }, `probing model endpoint ${label} again`));
      breaker.onReset(() => {
        metrics.modelBreakerOpen.set({ endpoint: label }, 0);
        log.info({ endpoint: label }, `model endpoint ${label} answered again: breaker closed`);
      });
      found = {
        call: { model: spec.model, baseUrl: spec.baseUrl, timeoutMs: config.OPENAI_TIMEOUT_MS },
        label,
        client: clientFor(spec, apiKey),
        breaker,
      };
      endpoints.set(id, found);
    }
    return found;
  };

  /** A fallback's key from its variable; undefined with the reason when the endpoint cannot be used. */
  const keyOf = (spec: ModelEndpoint, tenant: boolean): { key?: string; problem?: string } => {
    if (!spec.apiKeyEnv) return {};
    if (tenant && !tenantMayUseKey(spec.apiKeyEnv, deploymentKeys))
      return {
        problem: `a tenant's fallback may use OPENAI_API_KEY, a key MODEL_FALLBACKS uses or a MODEL_KEY_… variable, not ${spec.apiKeyEnv}`,
      };
    if (spec.apiKeyEnv === 'OPENAI_API_KEY') return { key: config.OPENAI_API_KEY };
    const key = env[spec.apiKeyEnv]?.trim();
    return key ? { key } : { problem: `${spec.apiKeyEnv} is not set` };
  };

  // The deployment's chain, checked now: a key variable that is unset stops the start (exit 2).
  const problems = config.MODEL_FALLBACKS.flatMap((spec, i) => {
    const { problem } = keyOf(spec, false);
    return problem ? [`MODEL_FALLBACKS[${i}].apiKeyEnv: ${problem}`] : [];
  });
  if (problems.length > 0) throw new ConfigError(problems);
  const main = endpoint({ baseUrl: mainUrl, model: config.OPENAI_MODEL, apiKeyEnv: MAIN_KEY }, config.OPENAI_API_KEY);
  const fallbacks = config.MODEL_FALLBACKS.map((spec) => endpoint(spec, keyOf(spec, false).key));

  /** The endpoints this request may use, in order, without repeats. */
  const chainFor = (req: CompletionRequest): Endpoint<Client>[] => {
    const other = req.model && req.model !== config.OPENAI_MODEL;
    const head = other
      ? endpoint({ baseUrl: mainUrl, model: req.model ?? '', apiKeyEnv: MAIN_KEY }, config.OPENAI_API_KEY)
      : main;
    // Another model named by the caller (REWRITE_MODEL) is one on the main endpoint: no fallbacks.
    // A turn's own model (a channel's or tenant's setting) heads the chain instead of OPENAI_MODEL.
    if (other && !req.headsChain) return [head];
    if (!req.fallbacks) return [...new Set([head, ...fallbacks])];
    const own = req.fallbacks.flatMap((spec) => {
      const { key, problem } = keyOf(spec, true);
      if (!problem) return [endpoint(spec, key)];
      const said = `${spec.model}@${spec.baseUrl}: ${problem}`;
      if (!refused.has(said)) {
        refused.add(said);
        log.warn({ code: 'model_fallback_skipped', endpoint: `${spec.model}@${hostOf(spec.baseUrl)}` }, problem);
      }
      return [];
    });
    return [...new Set([head, ...own])];
  };

  return {
    async complete(req) {
      const chain = chainFor(req);
      let textSent = false;
      const onText = req.onText;
      const watched: CompletionRequest = onText
        ? {
            ...req,
            onText: (delta) => {
              textSent = true;
              onText(delta);
            },
          }
        : req;
      let failure: LlmError | undefined;
      // Breakers guard a chain only: with nowhere to fail over to, an open one would just turn a
      // passing outage into MODEL_BREAKER_COOLDOWN_MS of certain failures (and no endpoint to skip to).
      const guarded = chain.length > 1;
      for (const [i, ep] of chain.entries()) {
        const last = i === chain.length - 1;
        // A probe is in flight: the others skip the endpoint rather than wait for its verdict.
        if (guarded && (ep.breaker.state === CircuitState.HalfOpen || ep.breaker.state === CircuitState.Isolated)) {
          metrics.modelRequests.inc({ endpoint: ep.label, outcome: 'breaker_open' });
          continue;
        }
        const started = performance.now();
        try {
          // Each endpoint is asked for its own model (the turn's model is the head endpoint's).
          const { model: _model, headsChain: _heads, ...asked } = watched;
          const attempt: CompletionRequest = {
            ...asked,
            messages: ownFieldsOnly(watched.messages, ep.label),
            // With an endpoint left to try, failing over is quicker than the SDK's backoff.
            ...(last ? {} : { maxRetries: 0 }),
          };
          const call = () => transport.complete(ep.client, ep.call, attempt);
          const completion = await (guarded ? ep.breaker.execute(call) : call());
          metrics.modelRequests.inc({ endpoint: ep.label, outcome: 'ok' });
          log.debug(
            {
              endpoint: ep.label,
              finishReason: completion.finishReason,
              usage: completion.usage,
              ms: Math.round(performance.now() - started),
            },
            'completion done',
          );
          const answeredBy: AnsweredBy = { model: ep.call.model, endpoint: ep.label };
          return { ...completion, answeredBy };
        } catch (err) {
          if (err instanceof BrokenCircuitError) {
            metrics.modelRequests.inc({ endpoint: ep.label, outcome: 'breaker_open' });
            continue;
          }
          if (!(err instanceof LlmError)) throw err;
          metrics.modelRequests.inc({ endpoint: ep.label, outcome: err.kind });
          if (!isEndpointFailure(err) || textSent || req.signal?.aborted) throw err;
          failure = err;
          log.warn(
            {
              code: 'model_failover',
              endpoint: ep.label,
              kind: err.kind,
              status: err.status,
              err: err.message,
              next: chain.slice(i + 1).map((e) => e.label),
            },
            last
              ? `model endpoint ${ep.label} failed (${err.kind}) and no endpoint is left`
              : `model endpoint ${ep.label} failed (${err.kind}) before any text: trying the next endpoint`,
          );
        }
      }
      throw (
        failure ??
        new LlmError(
          'unreachable',
          `every model endpoint is skipped after repeated failures (${chain.map((e) => e.label).join(', ')})`,
        )
      );
    },
  };
}

/**
 * The messages as `endpoint` may see them: an assistant message another endpoint wrote (marked
 * by the loop with ANSWERED_BY) loses that provider's own fields: its reasoning_content and its
 * calls' extra_content (Gemini's thought signatures), which another provider would reject or misread.
 */
export function ownFieldsOnly(messages: ChatMessage[], endpoint: string): ChatMessage[] {
  let changed = false;
  const out = messages.map((m) => {
    const by = (m as { [ANSWERED_BY]?: AnsweredBy })[ANSWERED_BY];
    if (m.role !== 'assistant' || !by || by.endpoint === endpoint) return m;
    const { reasoning_content: _reasoning, ...rest } = m as ChatMessage & { reasoning_content?: unknown };
    const calls = m.tool_calls?.map((c) => {
      if (!('extra_content' in c)) return c;
      const { extra_content: _extra, ...call } = c as typeof c & { extra_content?: unknown };
      return call;
    });
    changed = true;
    return { ...rest, ...(calls ? { tool_calls: calls } : {}) } as ChatMessage;
  });
  return changed ? out : messages;
}

function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return 'unknown';
  }
}
