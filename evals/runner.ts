import { randomUUID } from 'node:crypto';
import type { Agent } from '../src/agent/agent.js';
import type { IncomingMessage, Usage } from '../src/contract/turn.js';
import { parseTypedCommand } from '../src/adapters/typed-command.js';
import { DRAFT_QUESTION_PLACEHOLDER } from '../src/contract/eval-draft.js';
import { renderPlainText } from '../src/reply/plain-text.js';
import type { EvalCase, EvalFamily } from './case.js';
import { scoreCase, type ObservedTurn } from './score.js';

export interface CaseResult {
  id: string;
  family: EvalFamily;
  tenant: string;
  /** `skip`: the deployment lacks a tool the case requires (`reason` says which). */
  status: 'pass' | 'fail' | 'skip';
  failures: string[];
  reason?: string;
  /** The scored turn's tokens (the `before` turns are not counted). */
  tokens: { prompt: number; completion: number; total: number };
  /** USD of the scored turn; null when the model has no known price. */
  costUsd: number | null;
  /** Wall time of the scored turn, from the message in to its last event. */
  latencyMs: number;
  /** The tools the scored turn called, in order. */
  tools: string[];
  /** The start of the answer, for reading a failure without re-running it. */
  answer: string;
}

export interface RunnerDeps {
  agent: Agent;
  /** The tools this deployment registered (a case requiring another is skipped). */
  toolNames: ReadonlySet<string>;
  /** The USD cost of a turn's usage on `model` (the one that answered), or null when unknown. */
  cost: (usage: Usage, model?: string) => number | null;
  /** Runs a case's turns as that case (recordings: `--record`, `--replay`); default: as they are. */
  inCase?: <T>(id: string, fn: () => Promise<T>) => Promise<T>;
}

const ANSWER_SHOWN = 400;

/** Runs one message through the agent and gathers what the scoring reads. */
async function observe(
  agent: Agent,
  message: IncomingMessage,
): Promise<ObservedTurn & { latencyMs: number; model?: string }> {
  const started = performance.now();
  const starts = new Map<string, { tool: string; arguments: unknown; ok: boolean }>();
  let calls: ObservedTurn['calls'] | undefined;
  let answer = '';
  let text = '';
  let usage = { promptTokens: 0, completionTokens: 0 };
  let error: ObservedTurn['error'];
  let model: string | undefined;
  for await (const event of agent.handle(message)) {
    if (event.type === 'tool_call_start')
      starts.set(event.callId, { tool: event.tool, arguments: event.arguments, ok: false });
    else if (event.type === 'tool_result') {
      const call = starts.get(event.callId);
      if (call) call.ok = event.ok;
    } else if (event.type === 'reply') {
      answer = renderPlainText(event.reply);
      text = event.reply.text;
    } else if (event.type === 'approval_required') {
      for (const a of event.approvals) starts.set(a.id, { tool: a.tool, arguments: a.arguments, ok: false });
      answer = [answer, '(the turn waits for a person to approve a call)'].filter(Boolean).join('\n');
    } else if (event.type === 'done') {
      usage = { promptTokens: event.usage.promptTokens, completionTokens: event.usage.completionTokens };
      calls = event.toolCalls.map((c) => ({ tool: c.tool, arguments: c.arguments, ok: c.ok }));
      model = event.model;
    } else if (event.type === 'error') error = { code: event.code, message: event.message };
  }
  return {
    answer,
    text,
    calls: calls ?? [...starts.values()],
    usage,
    ...(error ? { error } : {}),
    ...(model ? { model } : {}),
    latencyMs: performance.now() - started,
  };
}

/** The message the console would send: `/quote …` and `/ask …` typed become the command. */
function messageFor(c: EvalCase, threadId: string, text: string): IncomingMessage {
  const command = parseTypedCommand(text);
  return {
    platform: 'console',
    workspaceId: c.tenant,
    channelId: 'eval',
    threadId,
    messageId: randomUUID(),
    // A user per case: per-user tool limits and lookup-failure counts never carry from one case to the next.
    userId: `eval:${c.id}`,
    role: c.role ?? 'member',
    isDirect: true,
    text,
    ...(command ? { command } : {}),
  };
}

const skipped = (base: Pick<CaseResult, 'id' | 'family' | 'tenant'>, reason: string): CaseResult => ({
  ...base,
  status: 'skip',
  failures: [],
  reason,
  tokens: { prompt: 0, completion: 0, total: 0 },
  costUsd: null,
  latencyMs: 0,
  tools: [],
  answer: '',
});

/** Runs one case in a thread of its own: its `before` messages, then the scored question. */
export async function runCase(deps: RunnerDeps, c: EvalCase): Promise<CaseResult> {
  const base = { id: c.id, family: c.family, tenant: c.tenant };
  const missing = (c.requires ?? []).filter((name) => !deps.toolNames.has(name));
  if (missing.length > 0) return skipped(base, `this deployment has no ${missing.join(', ')}`);
  // A draft from feedback whose question nobody wrote yet (src/contract/eval-draft.ts).
  if (c.question.startsWith(DRAFT_QUESTION_PLACEHOLDER.slice(0, 5)))
    return skipped(base, 'a draft: write its question first');
  const threadId = `eval-${c.id}-${randomUUID()}`;
  const turns = async () => {
    for (const [i, text] of (c.before ?? []).entries()) {
      const earlier = await observe(deps.agent, messageFor(c, threadId, text));
      // The scored question would be asked in a thread that is not what the case describes.
      if (earlier.error) return { ...earlier, failedBefore: i + 1 };
    }
    return observe(deps.agent, messageFor(c, threadId, c.question));
  };
  const turn: Awaited<ReturnType<typeof observe>> & { failedBefore?: number } = await (deps.inCase
    ? deps.inCase(c.id, turns)
    : turns());
  const score = turn.failedBefore
    ? { pass: false, failures: [`\`before\` message ${turn.failedBefore} failed: ${turn.error?.code ?? 'error'}`] }
    : scoreCase(c, turn);
  const { promptTokens: prompt, completionTokens: completion } = turn.usage;
  return {
    ...base,
    status: score.pass ? 'pass' : 'fail',
    failures: score.failures,
    tokens: { prompt, completion, total: prompt + completion },
    costUsd: prompt + completion > 0 ? deps.cost(turn.usage, turn.model) : 0,
    latencyMs: Math.round(turn.latencyMs),
    tools: turn.calls.map((call) => call.tool),
    answer: turn.answer.length > ANSWER_SHOWN ? `${turn.answer.slice(0, ANSWER_SHOWN - 1)}…` : turn.answer,
  };
}

/**
 * Runs the cases, `concurrency` at a time (each in its own thread), and returns their results in
 * the cases' order. A case whose run throws (a bug, not a wrong answer) fails with the reason.
 */
export async function runCases(
  deps: RunnerDeps,
  cases: readonly EvalCase[],
  opts: { concurrency?: number; onResult?: (result: CaseResult) => void } = {},
): Promise<CaseResult[]> {
  const results: CaseResult[] = new Array<CaseResult>(cases.length);
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const index = next++;
      const c = cases[index]!;
      const result = await runCase(deps, c).catch((err: unknown): CaseResult => ({
        id: c.id,
        family: c.family,
        tenant: c.tenant,
        status: 'fail',
        failures: [`the run broke: ${err instanceof Error ? err.message : String(err)}`],
        tokens: { prompt: 0, completion: 0, total: 0 },
        costUsd: null,
        latencyMs: 0,
        tools: [],
        answer: '',
      }));
      results[index] = result;
      opts.onResult?.(result);
    }
  };
  const width = Math.max(1, Math.min(opts.concurrency ?? 1, cases.length));
  await Promise.all(Array.from({ length: width }, worker));
  return results;
}
