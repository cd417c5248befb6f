import type { Agent } from './agent/agent.js';
import { LlmError, type LlmClient } from './contract/llm.js';
import type { Config } from './config.js';
import { tenantFor } from './data/index.js';
import type { DataPort } from './contract/data.js';
import { metrics, secondsSince } from './metrics.js';
import { InboxUnavailableError, type Inbox } from './turns/index.js';

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
    async *handle(message, signal) {
      const started = performance.now();
      let outcome = 'incomplete';
      try {
        for await (const event of agent.handle(message, signal)) {
          if (event.type === 'done') {
            outcome = 'ok';
            const tenant = await tenantLabel(message.platform, message.workspaceId, message.orgId, message.tenant);
            metrics.llmTokens.inc(
              { kind: 'prompt', model: deps.config.OPENAI_MODEL, tenant },
              event.usage.promptTokens,
            );
            metrics.llmTokens.inc(
              { kind: 'completion', model: deps.config.OPENAI_MODEL, tenant },
              event.usage.completionTokens,
            );
            for (const flag of event.flags ?? []) metrics.turnFlags.inc({ platform: message.platform, flag });
            for (const call of event.toolCalls) {
              metrics.toolCalls.inc({ tool: call.tool, outcome: call.ok ? 'ok' : (call.error?.code ?? 'error') });
              metrics.toolDuration.observe({ tool: call.tool }, call.latencyMs / 1000);
            }
          } else if (event.type === 'error') outcome = event.code;
          yield event;
        }
      } finally {
        metrics.turns.inc({ platform: message.platform, outcome });
        metrics.turnDuration.observe({ platform: message.platform }, secondsSince(started));
      }
    },
  };
}

/** Completion requests by outcome and their duration. */
export function instrumentLlm(llm: LlmClient): LlmClient {
  return {
    get model() {
      return llm.model;
    },
    async complete(req) {
      const started = performance.now();
      let outcome = 'ok';
      try {
        return await llm.complete(req);
      } catch (err) {
        outcome = err instanceof LlmError ? err.kind : 'error';
        throw err;
      } finally {
        metrics.llmRequests.inc({ model: req.model ?? llm.model, outcome });
        metrics.llmDuration.observe({ model: req.model ?? llm.model }, secondsSince(started));
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
      try {
        const result = await inbox.add(entry);
        metrics.events.inc({ platform: entry.platform, result });
        return result;
      } catch (err) {
        metrics.events.inc({
          platform: entry.platform,
          result: err instanceof InboxUnavailableError ? 'unavailable' : 'error',
        });
        throw err;
      }
    },
    deliver: (platform, fn) => inbox.deliver(platform, fn),
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
