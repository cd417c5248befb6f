import type { ArgMatcher, EvalCase, Fact, ToolExpectation } from './case.js';

/** What one scored turn did, as the runner saw it through the agent's events. */
export interface ObservedTurn {
  /** The answer as the user sees it: the reply's text and blocks in plain text. */
  answer: string;
  /** The model's own words: the reply's text without the tools' blocks (default: `answer`). */
  text?: string;
  /** Every tool call of the turn, in order, with its parsed arguments. */
  calls: readonly { tool: string; arguments: unknown; ok: boolean }[];
  usage: { promptTokens: number; completionTokens: number };
  /** The turn ended with an error event instead of a reply. */
  error?: { code: string; message: string };
}

export interface Score {
  pass: boolean;
  /** Each reason the case failed, worded for the table (empty when it passed). */
  failures: string[];
}

const show = (value: unknown, max = 60): string => {
  const text = value instanceof RegExp ? String(value) : (JSON.stringify(value) ?? String(value));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
};

/** Whether one value satisfies a matcher (see ArgMatcher). */
export function matches(matcher: ArgMatcher, value: unknown): boolean {
  if (typeof matcher === 'function') return matcher(value);
  if (Array.isArray(value) && !(typeof matcher === 'object' && !(matcher instanceof RegExp)))
    return value.some((item) => matches(matcher, item));
  if (typeof matcher === 'string')
    return typeof value === 'string' && value.toLowerCase().includes(matcher.toLowerCase());
  if (typeof matcher === 'number' || typeof matcher === 'boolean') return value === matcher;
  if (matcher instanceof RegExp) {
    if (value === undefined || value === null) return false;
    matcher.lastIndex = 0;
    return matcher.test(typeof value === 'string' ? value : JSON.stringify(value));
  }
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return Object.entries(matcher).every(([field, m]) => matches(m, record[field]));
}

/** The fields of `args` a call fails, e.g. `channel: want "email", got ["TV"]`. */
function argProblems(args: ToolExpectation['args'], given: unknown): string[] {
  if (!args) return [];
  const record = typeof given === 'object' && given !== null ? (given as Record<string, unknown>) : {};
  return Object.entries(args)
    .filter(([field, m]) => !matches(m, record[field]))
    .map(([field, m]) => `${field}: want ${show(m, 40)}, got ${show(record[field], 40)}`);
}

function factFound(fact: Fact, answer: string): boolean {
  if (typeof fact === 'string') return answer.toLowerCase().includes(fact.toLowerCase());
  fact.lastIndex = 0;
  return fact.test(answer);
}

/**
 * Scores one turn against its case: every required tool called (with matching arguments), no
 * forbidden tool called, every required fact in the answer and no forbidden one, and the
 * tokens under the ceiling. Pure: the same turn always gets the same score.
 */
export function scoreCase(c: EvalCase, turn: ObservedTurn): Score {
  const failures: string[] = [];
  if (turn.error) failures.push(`the turn failed: ${turn.error.code} (${show(turn.error.message, 80)})`);

  for (const want of c.tools?.must ?? []) {
    const expectation: ToolExpectation = typeof want === 'string' ? { tool: want } : want;
    const names = typeof expectation.tool === 'string' ? [expectation.tool] : expectation.tool;
    const label = names.join(' or ');
    const calls = turn.calls.filter((call) => names.includes(call.tool));
    if (calls.length === 0) {
      const called = turn.calls.map((call) => call.tool);
      failures.push(`expected a call of ${label}; called ${called.length ? called.join(', ') : 'no tool'}`);
      continue;
    }
    const problems = calls.map((call) => argProblems(expectation.args, call.arguments));
    if (!problems.some((p) => p.length === 0))
      failures.push(`${label} was called with other arguments (${problems[0]!.join('; ')})`);
  }
  const forbidden = new Set(c.tools?.mustNot ?? []);
  for (const name of new Set(turn.calls.map((call) => call.tool).filter((t) => forbidden.has(t))))
    failures.push(`${name} must not be called, and was`);
  const maxCalls = c.tools?.maxCalls;
  if (maxCalls !== undefined && turn.calls.length > maxCalls)
    failures.push(`${turn.calls.length} tool calls, over the ${maxCalls} allowed`);

  if (!turn.error) {
    const own = c.facts?.in === 'text';
    const where = own ? (turn.text ?? turn.answer) : turn.answer;
    const what = own ? "the model's text" : 'the answer';
    for (const fact of c.facts?.must ?? []) if (!factFound(fact, where)) failures.push(`${what} lacks ${show(fact)}`);
    for (const fact of c.facts?.mustNot ?? [])
      if (factFound(fact, where)) failures.push(`${what} contains ${show(fact)}, which it must not`);
  }
  const tokens = turn.usage.promptTokens + turn.usage.completionTokens;
  if (tokens > c.maxTokens) failures.push(`${tokens} tokens, over the ceiling of ${c.maxTokens}`);
  return { pass: failures.length === 0, failures };
}
