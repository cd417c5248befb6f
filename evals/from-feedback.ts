import type { Config } from '../src/config/index.js';
import {
  draftEvalCase,
  renderEvalCaseDraft,
  type EvalCaseDraft,
  type EvalDraftFeedback,
} from '../src/contract/eval-draft.js';
import { isTurnId } from '../src/contract/feedback.js';
import type { AdminDataPort } from '../src/data/rpc-port.js';
import { feedbackListRow } from '../src/data/rows.js';
import { createToolSet } from '../src/tools/index.js';

type FeedbackRow = ReturnType<typeof feedbackListRow.parse>;

/** At most this many votes on one turn are read (one per person who voted). */
const MAX_VOTES = 500;

/** The votes on one turn, thumbs-down first, from the console's feedback list (list_feedback by turn). */
export async function votesOnTurn(port: AdminDataPort, turnId: string): Promise<FeedbackRow[]> {
  const found: FeedbackRow[] = [];
  for (const value of ['down', 'up'] as const)
    found.push(
      ...(await port.admin(
        'list_feedback',
        { value, turn_id: turnId.toLowerCase(), limit: MAX_VOTES },
        feedbackListRow,
      )),
    );
  return found;
}

/** Each tool's family, as the product's tool set tags them (for the draft's family file). */
export function toolFamilies(config: Config): (tool: string) => string | undefined {
  // Only the names and family tags are read here: a placeholder key makes web_search part of the
  // map even where this process has no TAVILY_API_KEY (nothing is searched).
  const set = createToolSet({ ...config, TAVILY_API_KEY: config.TAVILY_API_KEY ?? 'family-map-only' });
  const families = new Map(set.tools.map((t) => [t.name, t.family]));
  return (tool) => families.get(tool);
}

export type FeedbackDraft = { ok: true; draft: EvalCaseDraft; source: string } | { ok: false; problem: string };

/**
 * Drafts a case from a rated turn: the turn record and its votes (a thumbs-down's comment first;
 * `comment` replaces them). The turn record keeps no message text, so the question is left for
 * the operator to write (src/contract/eval-draft.ts).
 */
export async function draftFromFeedback(
  port: AdminDataPort,
  turnId: string,
  opts: { comment?: string; familyOf: (tool: string) => string | undefined },
): Promise<FeedbackDraft> {
  if (!isTurnId(turnId))
    return { ok: false, problem: `--from-feedback ${turnId}: a turn id is a UUID (the console's thumbs-down list)` };
  const votes = await votesOnTurn(port, turnId);
  const [first] = votes;
  if (!first)
    return {
      ok: false,
      problem: `no feedback on turn ${turnId}: it has no vote, or its turn record is gone (kept TURN_LOG_DAYS)`,
    };
  const comments = votes.filter((v) => v.value === 'down' && v.comment).map((v) => v.comment!.trim());
  const feedback: EvalDraftFeedback = {
    value: first.value,
    comment: opts.comment ?? (comments.length ? comments.join(' / ') : null),
  };
  const draft = draftEvalCase(
    {
      id: first.turn_id,
      tenant: first.tenant,
      at: first.turn_at,
      model: first.model,
      outcome: first.outcome,
      tools: first.tools.map((t) => ({ tool: t.tool, ok: t.ok })),
      tokens: first.prompt_tokens + first.completion_tokens,
    },
    feedback,
    { familyOf: opts.familyOf },
  );
  return { ok: true, draft, source: renderEvalCaseDraft(draft) };
}
