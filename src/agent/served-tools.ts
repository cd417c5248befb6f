import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Config } from '../config/index.js';
import { approvalSettings, gateCall } from '../contract/approvals.js';
import type { DataPort } from '../contract/data.js';
import type { LlmClient } from '../contract/llm.js';
import { newThreadState, threadKey } from '../contract/thread-state.js';
import type { AnyTool, OfferContext, ToolContext } from '../contract/tool.js';
import type { ErrorCode, IncomingMessage } from '../contract/turn.js';
import { fenceToolOutput } from '../security/fence.js';
import type { RateLimits } from '../security/rate-limits.js';
import type { Logger } from '../telemetry/logger.js';
import { admitTurn, resolveTenant, type AdmissionDeps } from './admission.js';
import type { OfferedTool, ToolRegistry } from './registry.js';
import { runToolCall } from './run-tool.js';
import type { TurnLedger } from './turn-ledger.js';
import { failedOutcome, type TurnSummary } from './turn-record.js';
import { toUserError } from './turn-errors.js';

/**
 * The bot's own tools served to MCP clients (`/mcp`, issue 44 item 8): a tenant's `read` tools
 * that its policy runs without a person's OK, from the same registry a turn offers (its families,
 * `off` respected). A call is one turn without a model: admitted by the same flood limit and
 * budgets, run by `runToolCall` (validation, the per-tool rate limits, the timeout), and recorded
 * with its ledger row like any turn.
 */
export interface ServedTool {
  name: string;
  title: string;
  description: string;
  /** The arguments' JSON Schema (draft 2020-12, as MCP's `inputSchema`). */
  inputSchema: Record<string, unknown>;
}

export type ServedCall =
  | { ok: true; text: string; data?: Record<string, unknown> }
  /** `unknown_tool`: not one of the tenant's served tools (a protocol error); the rest are the call's own. */
  | { ok: false; code: ErrorCode | 'unknown_tool' | 'tool_error'; message: string };

export interface ServedTools {
  /** The tools an MCP client of the message's tenant may call. */
  list(message: IncomingMessage): Promise<ServedTool[]>;
  /** One call; never throws (a failure is a code and a message safe to show). */
  call(message: IncomingMessage, name: string, args: unknown, signal?: AbortSignal): Promise<ServedCall>;
}

export interface ServedToolsDeps {
  config: Pick<Config, 'TENANT_MODE' | 'TOOL_TIMEOUT_MS'>;
  registry: ToolRegistry;
  data: DataPort;
  llm: LlmClient;
  log: Logger;
  now: () => Date;
  rateLimits: RateLimits;
  budgets: AdmissionDeps['budgets'];
  ledger: TurnLedger;
}

/** Each schema object exported once (a tool's static `input` is the same object call after call). */
const schemas = new WeakMap<z.ZodObject, Record<string, unknown>>();

function jsonSchemaOf(schema: z.ZodObject): Record<string, unknown> {
  let json = schemas.get(schema);
  if (!json) {
    json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    delete json.$schema;
    schemas.set(schema, json);
  }
  return json;
}

export function createServedTools(deps: ServedToolsDeps): ServedTools {
  const { config, registry, data, llm, log, now, rateLimits, budgets, ledger } = deps;
  const ownTools: ReadonlySet<AnyTool> = new Set(registry.tools);

  /** A fresh thread for each request (stateless: any replica answers any request alike). */
  async function scopeOf(message: IncomingMessage) {
    const tenant = await resolveTenant(data, config.TENANT_MODE, message);
    const key = threadKey(message, tenant.id);
    const ctx: OfferContext = { tenant, state: newThreadState(key), data: data.forTenant(tenant), log };
    return { tenant, ctx };
  }

  /** The offered tools a client may call: `read`, and run at once by the tenant's policy (an `approve` would need a person). */
  async function served(ctx: OfferContext, role: IncomingMessage['role']): Promise<Map<string, OfferedTool>> {
    const settings = approvalSettings(ctx.tenant.settings);
    const offered = await registry.offered(ctx);
    for (const [name, entry] of offered) {
      const { tool } = entry;
      const runsNow = gateCall(tool, { role }, settings).gate === 'run';
      // The bot's own tools only: a tenant's MCP servers' tools (a run-time source) are not ours to serve on.
      const own = ownTools.has(tool);
      if (!own || (tool.effect ?? 'read') !== 'read' || tool.terminal || !runsNow) offered.delete(name);
    }
    return offered;
  }

  return {
    async list(message) {
      const { ctx } = await scopeOf(message);
      return [...(await served(ctx, message.role)).values()].map(({ tool, schema }) => ({
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: jsonSchemaOf(schema),
      }));
    },

    async call(message, name, args, signal) {
      const seen: TurnSummary = { outcome: 'answered', toolResults: [], started: performance.now() };
      let result: ServedCall;
      try {
        const { tenant, ctx } = await scopeOf(message);
        seen.tenant = tenant.slug ?? tenant.id;
        seen.tenantId = tenant.id;
        await admitTurn({ rateLimits, budgets }, message, tenant);
        const offered = await served(ctx, message.role);
        if (!offered.has(name)) {
          result = {
            ok: false,
            code: 'unknown_tool',
            message: `No tool "${name}" here: tools/list names the tools this token may call.`,
          };
          seen.outcome = 'refused';
          await ledger.record(
            message,
            tenant.id,
            seen,
            { outcome: 'refused', errorCode: 'bad_request', flags: [], tools: [] },
            NO_USAGE,
            0,
          );
          return result;
        }
        const toolCtx: Omit<ToolContext, 'signal'> = {
          ...ctx,
          message,
          llm,
          now,
          failures: rateLimits.failures({ tenantId: tenant.id, platform: message.platform, userId: message.userId }),
          // A tool's own events (web results as they come) have no stream here.
          emit: () => {},
        };
        const run = await runToolCall(
          { id: randomUUID(), name, arguments: JSON.stringify(args ?? {}) },
          offered,
          { ...toolCtx, signal: signal ?? new AbortController().signal },
          config.TOOL_TIMEOUT_MS,
          log,
          rateLimits,
        );
        seen.toolResults.push({ tool: name, ok: run.ok });
        const usage = run.ok && run.output.usage ? run.output.usage : NO_USAGE;
        await ledger.record(
          message,
          tenant.id,
          seen,
          { outcome: 'answered', flags: [], tools: [{ tool: name, ok: run.ok }] },
          usage,
          1,
        );
        if (!run.ok) {
          seen.outcome = `tool_${run.kind}`;
          return { ok: false, code: 'tool_error', message: run.error };
        }
        const { content, data: structured } = run.output;
        const text = offered.get(name)?.tool.taints ? fenceToolOutput(name, content) : content;
        return { ok: true, text, ...(structured && Object.keys(structured).length ? { data: structured } : {}) };
      } catch (err) {
        const safe = toUserError(err, signal);
        seen.outcome = safe.code;
        log[safe.code === 'internal' ? 'error' : 'warn']({ err, code: safe.code, tool: name }, 'mcp tool call failed');
        if (seen.tenantId && !seen.recorded)
          await ledger.record(
            message,
            seen.tenantId,
            seen,
            { outcome: failedOutcome(safe.code), errorCode: safe.code, flags: [], tools: seen.toolResults },
            NO_USAGE,
            0,
          );
        return { ok: false, code: safe.code, message: safe.message };
      } finally {
        log.info(
          {
            platform: message.platform,
            channel: message.channelId,
            tenant: seen.tenant,
            tool: name,
            outcome: seen.outcome,
            ms: Math.round(performance.now() - seen.started),
          },
          'mcp tool call',
        );
      }
    },
  };
}

const NO_USAGE = { promptTokens: 0, completionTokens: 0 };
