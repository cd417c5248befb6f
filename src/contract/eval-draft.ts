/**
 * From a rated answer to an eval case (issue 47, item 4): `npm run eval -- --from-feedback <turn>`
 * and the console's thumbs-down list draft a case for evals/cases/ from the turn record and its
 * feedback. Pure: the caller reads the turn and the feedback and writes the file.
 */

/** The eval suite's families (evals/cases/<family>.ts); a tool of another family drafts no family. */
export const EVAL_CASE_FAMILIES = ['campaigns', 'competitors', 'quotes', 'business', 'web'] as const;
export type EvalCaseFamily = (typeof EVAL_CASE_FAMILIES)[number];

/** The question's placeholder when the turn record did not keep it; the runner skips a case still holding it. */
export const DRAFT_QUESTION_PLACEHOLDER = 'TODO: the question the user asked';

/** What the turn record says of the rated turn. */
export interface EvalDraftTurn {
  /** The turn's id (the UUID its rows carry). */
  id: string;
  /** The tenant's slug: the console workspace a case asks as. */
  tenant: string;
  at?: string;
  model?: string | null;
  outcome?: string;
  /** The tools that ran, in order. */
  tools: readonly { tool: string; ok: boolean }[];
  /** Prompt + completion tokens of the turn, when recorded. */
  tokens?: number;
  /**
   * The user's message, given only when the turn record may keep it (its keep-text setting);
   * otherwise absent, and the draft carries a placeholder for the operator to fill.
   */
  question?: string | null;
}

export interface EvalDraftFeedback {
  value: 'up' | 'down';
  /** The person's comment: what was wrong, in their words (the expectation to write). */
  comment?: string | null;
}

export interface EvalCaseDraft {
  id: string;
  /** The family file the case belongs in; null when no tool of an eval family ran (the operator picks). */
  family: EvalCaseFamily | null;
  tenant: string;
  /** The question, or null when the turn record did not keep it. */
  question: string | null;
  /** The tools that ran, in order, without repeats: the draft's required tools, for the operator to prune. */
  tools: { tool: string; ok: boolean }[];
  /** The comment, as the expectation to turn into facts (null: no comment was given). */
  expectation: string | null;
  maxTokens: number;
  source: { turnId: string; at?: string; model?: string; outcome?: string; feedback?: 'up' | 'down' };
}

const isEvalFamily = (name: string | undefined): name is EvalCaseFamily =>
  name !== undefined && (EVAL_CASE_FAMILIES as readonly string[]).includes(name);

/** A token ceiling with room: 1.5 × what the rated turn used, rounded up to 500, at least 2,000. */
function ceilingFor(tokens: number | undefined): number {
  if (!tokens || tokens <= 0) return 4_000;
  return Math.max(2_000, Math.ceil((tokens * 1.5) / 500) * 500);
}

/**
 * Drafts an eval case from a rated turn: its question only when the turn record kept it, the tools
 * that ran (deduplicated, in order), the comment as the expectation, and a token ceiling. `familyOf`
 * names a tool's family (the registry's tags); the first tool of an eval family decides the file.
 */
export function draftEvalCase(
  turn: EvalDraftTurn,
  feedback?: EvalDraftFeedback,
  opts: { familyOf?: (tool: string) => string | undefined } = {},
): EvalCaseDraft {
  const seen = new Set<string>();
  const tools = turn.tools.filter((t) => !seen.has(t.tool) && seen.add(t.tool)).map((t) => ({ ...t }));
  const family = tools.map((t) => opts.familyOf?.(t.tool)).find(isEvalFamily) ?? null;
  const question = turn.question?.trim() ? turn.question.trim() : null;
  const comment = feedback?.comment?.trim() ? feedback.comment.trim() : null;
  return {
    id: `${family ?? 'TODO'}/feedback-${turn.id
      .replace(/[^A-Za-z0-9]/g, '')
      .slice(0, 8)
      .toLowerCase()}`,
    family,
    tenant: turn.tenant,
    question,
    tools,
    expectation: comment,
    maxTokens: ceilingFor(turn.tokens),
    source: {
      turnId: turn.id,
      ...(turn.at ? { at: turn.at } : {}),
      ...(turn.model ? { model: turn.model } : {}),
      ...(turn.outcome ? { outcome: turn.outcome } : {}),
      ...(feedback ? { feedback: feedback.value } : {}),
    },
  };
}

/** One line of a `//` comment: the user's words can hold no line break to end it. */
const commentLine = (text: string, max = 300) => {
  const flat = text.replace(/[\r\n\u2028\u2029]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};
/** A string literal: JSON's escaping is valid TypeScript, whatever the text holds. */
const literal = (text: string) =>
  JSON.stringify(text)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

/**
 * The draft as TypeScript: one case object to paste into `evals/cases/<family>.ts`, with a TODO
 * wherever the operator must decide (the question when it was not kept, the facts from the comment).
 */
export function renderEvalCaseDraft(draft: EvalCaseDraft): string {
  const { source } = draft;
  const rated = source.feedback === 'down' ? 'a thumbs-down' : source.feedback === 'up' ? 'a thumbs-up' : 'a turn';
  const ran = draft.tools.length ? draft.tools.map((t) => `${t.tool}${t.ok ? '' : ' (failed)'}`).join(', ') : 'no tool';
  const lines = [
    `// Drafted from ${rated} on turn ${source.turnId}` +
      `${source.at ? ` (${source.at})` : ''}${source.model ? `, model ${source.model}` : ''}.`,
    `// Paste it into evals/cases/${draft.family ?? '<family>'}.ts, fill each TODO, then run`,
    `// \`npm run eval -- --case ${draft.id}\`. A case whose question still starts with TODO is skipped.`,
    ...(draft.expectation ? [`// What the user said: ${commentLine(draft.expectation)}`] : []),
    '{',
    `  id: ${literal(draft.id)},`,
    `  tenant: ${literal(draft.tenant)},`,
    draft.question
      ? `  question: ${literal(draft.question)},`
      : `  // The turn record keeps no message text: write the question (ask the user, or rebuild it from the thread).\n  question: ${literal(DRAFT_QUESTION_PLACEHOLDER)},`,
    '  tools: {',
    `    // The tools that ran: ${ran}. Keep those the answer needs; add argument checks.`,
    `    must: [${draft.tools
      .filter((t) => t.ok)
      .map((t) => literal(t.tool))
      .join(', ')}],`,
    '    mustNot: [],',
    '  },',
    '  facts: {',
    `    // TODO: ${draft.expectation ? `turn the comment into facts: ${commentLine(draft.expectation, 200)}` : 'the facts a good answer holds (and must not hold).'}`,
    '    must: [],',
    '    mustNot: [],',
    '  },',
    `  maxTokens: ${draft.maxTokens},`,
    `  note: ${literal(`From feedback on turn ${source.turnId}${draft.expectation ? `: ${commentLine(draft.expectation, 200)}` : ''}`)},`,
    '},',
  ];
  return `${lines.join('\n')}\n`;
}
