import type { Logger } from '../telemetry/logger.js';
import { windowWords, type RateLimits } from '../security/rate-limits.js';
import { parseArguments, type OfferedTool } from './registry.js';
import { ToolError, type ToolContext, type ToolOutput } from '../contract/tool.js';
import type { AssembledToolCall } from '../contract/llm.js';
import { linkedSignal } from '../net/linked-signal.js';
import type { ToolCallError } from '../contract/turn.js';

export type ToolRun =
  | { ok: true; args: Record<string, unknown>; output: ToolOutput; latencyMs: number }
  | {
      ok: false;
      args: unknown;
      error: string;
      kind: 'invalid' | 'unknown' | 'timeout' | 'failed' | 'limited';
      latencyMs: number;
      code: ToolCallError;
    };

class ToolTimeout extends Error {}

/**
 * Validates, rate-limits and runs one tool call under its timeout. Never throws: every failure
 * becomes a short message the model can act on (and a code for API clients), and the real
 * cause goes to the log. Every tool call of every turn passes here, so the limits cannot be
 * skipped by a tool or an adapter.
 */
export async function runToolCall(
  call: AssembledToolCall,
  offered: Map<string, OfferedTool>,
  ctx: ToolContext,
  defaultTimeoutMs: number,
  log: Logger,
  limits: RateLimits,
): Promise<ToolRun> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const entry = offered.get(call.name);
  if (!entry) {
    const names = [...offered.keys()].join(', ') || 'none';
    return {
      ok: false,
      args: call.arguments,
      kind: 'unknown',
      latencyMs: 0,
      code: { code: 'unknown_tool' },
      error: `Unknown tool "${call.name}". Available tools: ${names}.`,
    };
  }
  const parsed = parseArguments(call.arguments, entry.schema);
  if (!parsed.ok)
    return {
      ok: false,
      args: call.arguments,
      kind: 'invalid',
      error: parsed.error,
      latencyMs: 0,
      code: { code: 'validation_failed' },
    };

  const decision = await limits.tool(
    { tenantId: ctx.tenant.id, platform: ctx.message.platform, userId: ctx.message.userId, role: ctx.message.role },
    call.name,
  );
  if (!decision.ok) {
    if (decision.reason === 'unavailable') {
      return {
        ok: false,
        args: parsed.value,
        kind: 'limited',
        latencyMs: elapsed(),
        code: { code: 'limit_unavailable' },
        error: `${call.name} is paused: its usage limit cannot be checked right now. Do not retry it; tell the user it is unavailable for a few minutes.`,
      };
    }
    const at = new Date(decision.resetAt);
    const who = decision.role === 'guest' ? 'guests' : 'members';
    log.info(
      { tool: call.name, role: decision.role, limit: decision.limit, resetAt: decision.resetAt },
      'tool call refused by its rate limit',
    );
    return {
      ok: false,
      args: parsed.value,
      kind: 'limited',
      latencyMs: elapsed(),
      code: { code: 'rate_limited', limit: decision.limit, remaining: 0, resetAt: decision.resetAt },
      error:
        `Rate limit reached: ${call.name} allows ${decision.limit} call${decision.limit === 1 ? '' : 's'} per ${windowWords(decision.windowSeconds)} for ${who}, and this user has used them. ` +
        `It resets at ${at.toISOString().slice(11, 16)} UTC on ${at.toISOString().slice(0, 10)} (${decision.resetAt}). Do not retry; tell the user they can try again after that time.`,
    };
  }

  const timeoutMs = entry.tool.timeoutMs ?? defaultTimeoutMs;
  // The tool's signal aborts with the turn's, or at the tool's own deadline.
  const link = linkedSignal([ctx.signal]);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      link.abort(new ToolTimeout());
      reject(new ToolTimeout());
    }, timeoutMs);
  });
  try {
    const output = await Promise.race([entry.tool.run(parsed.value, { ...ctx, signal: link.signal }), deadline]);
    return { ok: true, args: parsed.value, output, latencyMs: elapsed() };
  } catch (err) {
    if (err instanceof ToolTimeout) {
      return {
        ok: false,
        args: parsed.value,
        kind: 'timeout',
        latencyMs: elapsed(),
        code: { code: 'tool_timeout' },
        error: `The tool timed out after ${timeoutMs} ms. Try a narrower request, or answer without it.`,
      };
    }
    if (err instanceof ToolError)
      return {
        ok: false,
        args: parsed.value,
        kind: 'invalid',
        error: err.message,
        latencyMs: elapsed(),
        code: { code: 'validation_failed' },
      };
    log.error({ err, tool: call.name }, 'tool failed');
    return {
      ok: false,
      args: parsed.value,
      kind: 'failed',
      latencyMs: elapsed(),
      code: { code: 'tool_failed' },
      error:
        'The tool failed with an internal error. Do not retry it; tell the user this lookup is unavailable right now.',
    };
  } finally {
    clearTimeout(timer);
    link.dispose();
  }
}
