import type { Logger } from '../logger.js';
import { parseArguments, type OfferedTool } from '../tools/registry.js';
import { ToolError, type ToolContext, type ToolOutput } from '../tools/tool.js';
import type { AssembledToolCall } from './llm-types.js';

export type ToolRun =
  | { ok: true; args: Record<string, unknown>; output: ToolOutput; latencyMs: number }
  | { ok: false; args: unknown; error: string; kind: 'invalid' | 'unknown' | 'timeout' | 'failed'; latencyMs: number };

class ToolTimeout extends Error {}

/**
 * Validates and runs one tool call under its timeout. Never throws: every failure becomes
 * a short message the model can act on, and the real cause goes to the log.
 */
export async function runToolCall(
  call: AssembledToolCall,
  offered: Map<string, OfferedTool>,
  ctx: ToolContext,
  defaultTimeoutMs: number,
  log: Logger,
): Promise<ToolRun> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const entry = offered.get(call.name);
  if (!entry) {
    const names = [...offered.keys()].join(', ') || 'none';
    return { ok: false, args: call.arguments, kind: 'unknown', latencyMs: 0, error: `Unknown tool "${call.name}". Available tools: ${names}.` };
  }
  const parsed = parseArguments(call.arguments, entry.schema);
  if (!parsed.ok) return { ok: false, args: call.arguments, kind: 'invalid', error: parsed.error, latencyMs: 0 };

  const timeoutMs = entry.tool.timeoutMs ?? defaultTimeoutMs;
  const timeout = new AbortController();
  const signal = AbortSignal.any([ctx.signal, timeout.signal]);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timeout.abort();
      reject(new ToolTimeout());
    }, timeoutMs);
  });
  try {
    const output = await Promise.race([entry.tool.run(parsed.value, { ...ctx, signal }), deadline]);
    return { ok: true, args: parsed.value, output, latencyMs: elapsed() };
  } catch (err) {
    if (err instanceof ToolTimeout) {
      return { ok: false, args: parsed.value, kind: 'timeout', latencyMs: elapsed(), error: `The tool timed out after ${timeoutMs} ms. Try a narrower request, or answer without it.` };
    }
    if (err instanceof ToolError) return { ok: false, args: parsed.value, kind: 'invalid', error: err.message, latencyMs: elapsed() };
    log.error({ err, tool: call.name }, 'tool failed');
    return {
      ok: false,
      args: parsed.value,
      kind: 'failed',
      latencyMs: elapsed(),
      error: 'The tool failed with an internal error. Do not retry it; tell the user this lookup is unavailable right now.',
    };
  } finally {
    clearTimeout(timer);
  }
}
