/**
 * What an eval case is (evals/README.md): a question asked of the real agent as one tenant, and
 * what its answer must show. Cases are data in TypeScript so a matcher can be a regular
 * expression or a small predicate; `scoreCase` (score.ts) is the only reader of them.
 */

/** The families the suite covers, one file each under evals/cases/. */
export const EVAL_FAMILIES = ['campaigns', 'competitors', 'quotes', 'business', 'web'] as const;
export type EvalFamily = (typeof EVAL_FAMILIES)[number];

/**
 * One argument's expectation. A string matches case-insensitively as a substring (of a string
 * argument, or of any element of an array argument); a number or boolean must be equal; a
 * RegExp is tested against the value (each element of an array); a function decides; an
 * object checks the argument's own fields the same way.
 */
export type ArgMatcher =
  string | number | boolean | RegExp | ((value: unknown) => boolean) | { readonly [field: string]: ArgMatcher };

/** A tool that must be called: its name (or any of several names) and, optionally, its arguments. */
export interface ToolExpectation {
  tool: string | readonly string[];
  args?: { readonly [field: string]: ArgMatcher };
}

/** A fact: a case-insensitive substring, or a RegExp, looked for in the answer as the user sees it. */
export type Fact = string | RegExp;

export interface EvalCase {
  /** Unique across the suite, `<family>/<slug>`, e.g. `business/cancellation-fee`. */
  id: string;
  family: EvalFamily;
  /**
   * The console workspace the question comes from: `default` (the demo's marketing team:
   * campaigns, competitors, quotes, web) or `harbourside` (the demo physiotherapy clinic).
   */
  tenant: string;
  question: string;
  /** Messages sent first in the same thread (their turns run but are not scored). */
  before?: readonly string[];
  /** Who asks: staff (`member`, the default) or a `guest`. */
  role?: 'member' | 'guest';
  tools?: {
    /** Each must be matched by at least one call of the scored turn. */
    must?: readonly (string | ToolExpectation)[];
    /** None of these may be called in the scored turn. */
    mustNot?: readonly string[];
    /** At most this many tool calls in the scored turn. */
    maxCalls?: number;
  };
  facts?: {
    must?: readonly Fact[];
    mustNot?: readonly Fact[];
    /**
     * Where to look: `reply` (default) is what the user sees, the model's text and the blocks the
     * tools added (a policy card, a campaign table); `text` is the model's own words only, for a
     * fact the model must say itself rather than a card showing it.
     */
    in?: 'reply' | 'text';
  };
  /** Prompt + completion tokens of the scored turn, at most. */
  maxTokens: number;
  /** Tools the deployment must have for the case to run (e.g. `web_search` needs TAVILY_API_KEY); else skipped. */
  requires?: readonly string[];
  /** What the case checks and why, in a sentence (shown by `--list`). */
  note?: string;
}

/** Checks ids are unique and prefixed with their family, so a typo fails at load, not in a report. */
export function defineCases(family: EvalFamily, cases: readonly Omit<EvalCase, 'family'>[]): EvalCase[] {
  const seen = new Set<string>();
  return cases.map((c) => {
    if (!c.id.startsWith(`${family}/`)) throw new Error(`eval case ${c.id}: its id must start with "${family}/"`);
    if (seen.has(c.id)) throw new Error(`eval case ${c.id} is defined twice`);
    seen.add(c.id);
    return { ...c, family };
  });
}
