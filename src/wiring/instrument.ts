import type { Agent } from '../agent/agent.js';
import { LlmError, type LlmClient } from '../contract/llm.js';
import type { Usage } from '../contract/turn.js';
import type { Config } from '../config/index.js';
import { tenantFor } from '../data/index.js';
import type { DataPort } from '../contract/data.js';
import { metrics, secondsSince } from '../telemetry/metrics.js';
import { InboxUnavailableError, type Delivery, type DeliveryFn, type Inbox } from '../inbox/index.js';
import { endTurnSpan, startTurnSpan, tracedChat, withTurnOrigin, withTurnSpan } from '../telemetry/genai.js';
import {
  extractContext,
  failSpan,
  injectContext,
  SpanKind,
  spanContextOf,
  startSpan,
  traceparentOf,
  tracingOn,
  withSpan,
} from '../telemetry/tracing.js';

/**
 * Metrics recorded where everything passes: every turn through the agent, every completion
 * through the LLM client, every event through the inbox. Each wrapper keeps the interface it
 * wraps, so nothing that uses it changes.
 */

/** Turns, their duration, tokens by tenant and tool calls, read off the events a turn streams. */
export function instrumentAgent(
  agent: Agent,
  deps: { data: DataPort; config: Pick<Config, 'TENANT_MODE' | 'OPENAI_MODEL'> },
): Agent {
  const tenantLabel = async (platform: string, workspaceId: string, orgId?: string, slug?: string): Promise<string> => {
    try {
      const t = await tenantFor(deps.data, deps.config.TENANT_MODE, platform, workspaceId, orgId, slug);
      return t?.slug ?? t?.id ?? 'none';
    } catch {
      return 'unknown';
    }
  };
  return {
    handlesAction: (actionId) => agent.handlesAction(actionId),
    served: agent.served,
    feedback: (vote) => agent.feedback(vote),
    async *handle(message, signal, options) {
      const started = performance.now();
      let outcome = 'incomplete';
      // The turn's span (tracing on only): everything the agent does nests under it, its logs carry its ids.
      const span = tracingOn()
        ? startTurnSpan({ platform: message.platform, model: deps.config.OPENAI_MODEL, text: message.text })
        : undefined;
      let usage: Usage | undefined;
      let replyText: string | undefined;
      try {
        const run = () => agent.handle(message, signal, options);
        const events = span ? withTurnSpan(span, run) : run();
        for await (const event of events) {
          if (span) {
            if (event.type === 'done') usage = event.usage;
            else if (event.type === 'reply') replyText = event.reply.text;
          }
          if (event.type === 'done') {
            outcome = 'ok';
            const tenant = await tenantLabel(message.platform, message.workspaceId, message.orgId, message.tenant);
            // The model that answered (a channel's, a fallback's), not the configured one.
            const model = event.model ?? deps.config.OPENAI_MODEL;
            metrics.llmTokens.inc({ kind: 'prompt', model, tenant }, event.usage.promptTokens);
            metrics.llmTokens.inc({ kind: 'completion', model, tenant }, event.usage.completionTokens);
            for (const flag of event.flags ?? []) metrics.turnFlags.inc({ platform: message.platform, flag });
            for (const call of event.toolCalls) {
              metrics.toolCalls.inc({ tool: call.tool, outcome: call.ok ? 'ok' : (call.error?.code ?? 'error') });
              metrics.toolDuration.observe({ tool: call.tool }, call.latencyMs / 1000);
            }
          } else if (event.type === 'error') outcome = event.retry ? 'retried' : event.code;
          yield event;
        }
      } finally {
        metrics.turns.inc({ platform: message.platform, outcome });
        metrics.turnDuration.observe({ platform: message.platform }, secondsSince(started));
        if (span)
          endTurnSpan(span, {
            outcome,
            usage,
            replyText,
            errorCode: outcome === 'ok' ? undefined : outcome,
          });
      }
    },
  };
}

/** Completion requests by outcome and their duration; a `chat {model}` span each with tracing on. */
export function instrumentLlm(llm: LlmClient, baseUrl?: string): LlmClient {
  const server = serverOf(baseUrl ?? 'https://api.openai.com/v1');
  const errorCode = (err: unknown) => (err instanceof LlmError ? `llm_${err.kind}` : 'llm_error');
  return {
    get model() {
      return llm.model;
    },
    async complete(req) {
      const started = performance.now();
      let outcome = 'ok';
      // The model that answered: a fallback's when the chain failed over (src/provider/model-chain.ts).
      let model = req.model ?? llm.model;
      try {
        const completion = await tracedChat(req, model, server, (r) => llm.complete(r), errorCode);
        model = completion.answeredBy?.model ?? model;
        return completion;
      } catch (err) {
        outcome = err instanceof LlmError ? err.kind : 'error';
        throw err;
      } finally {
        metrics.llmRequests.inc({ model, outcome });
        metrics.llmDuration.observe({ model }, secondsSince(started));
      }
    },
    embed: (texts, signal) => llm.embed(texts, signal),
  };
}

/** Events offered by each platform and what became of them; queue depth and age on each scrape. */
export function instrumentInbox(inbox: Inbox): Inbox {
  return {
    get kind() {
      return inbox.kind;
    },
    async add(entry) {
      // Tracing on: the entry is recorded under an `inbox add` span whose context it carries, so
      // its run (on any replica) continues the same trace.
      const span = tracingOn()
        ? startSpan('inbox add', { kind: SpanKind.PRODUCER, attributes: { 'switchboard.platform': entry.platform } })
        : undefined;
      try {
        const traced = span ? { ...entry, trace: withSpan(span, () => injectContext()) } : entry;
        const result = await inbox.add(traced);
        metrics.events.inc({ platform: entry.platform, result });
        span?.setAttribute('switchboard.inbox.result', result);
        return result;
      } catch (err) {
        metrics.events.inc({
          platform: entry.platform,
          result: err instanceof InboxUnavailableError ? 'unavailable' : 'error',
        });
        if (span) failSpan(span, err instanceof InboxUnavailableError ? 'inbox_unavailable' : 'inbox_error');
        throw err;
      } finally {
        span?.end();
      }
    },
    deliver: <P>(platform: string, fn: DeliveryFn<P>) =>
      inbox.deliver(platform, async (delivery: Delivery<P>) => {
        if (!tracingOn()) return fn(delivery);
        // The run continues the trace the entry carries; the time it waited is a span of its own.
        const parent = extractContext(delivery.entry.trace);
        const attributes = { 'switchboard.platform': platform, 'switchboard.inbox.attempt': delivery.attempt };
        startSpan('inbox wait', {
          kind: SpanKind.CONSUMER,
          parent,
          attributes,
          startTime: delivery.entry.receivedAt,
        }).end();
        // A replay links to the run that died (its turn span), so both runs can be read side by side.
        const previous = spanContextOf(delivery.previousTrace);
        let recording: Promise<void> | undefined;
        try {
          return await withTurnOrigin(
            parent,
            {
              attempt: delivery.attempt,
              links: previous ? [{ context: previous, attributes: { 'switchboard.link': 'previous_run' } }] : [],
              onTurnSpan: (turnSpan) => {
                const traceparent = traceparentOf(turnSpan);
                if (traceparent && delivery.recordTrace)
                  recording = delivery.recordTrace(traceparent).catch(() => undefined);
              },
            },
            () => fn(delivery),
          );
        } finally {
          await recording;
        }
      }),
    start: () => inbox.start(),
    stop: (drainMs) => inbox.stop(drainMs),
    async stats(opts) {
      const stats = await inbox.stats(opts);
      metrics.inboxPending.set(stats.pending);
      metrics.inboxRunning.set(stats.running);
      metrics.inboxOldestAge.set(stats.oldestAgeMs / 1000);
      return stats;
    },
  };
}

/** `server.address` and `server.port` of the LLM endpoint, for its spans. */
function serverOf(baseUrl: string): { address?: string; port?: number } {
  try {
    const url = new URL(baseUrl);
    return { address: url.hostname, port: url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80 };
  } catch {
    return {};
  }
}
