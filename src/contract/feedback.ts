import type { IncomingMessage } from './turn.js';

/**
 * Feedback on answers (issue 47): a thumbs-up or thumbs-down on one answer (a turn, by the id of
 * its turn record), and on a thumbs-down an optional comment. One vote per person per answer; a
 * second vote replaces the first. Every platform hands the core the same `FeedbackVote`.
 */

export type FeedbackValue = 'up' | 'down';

/** The action id of a feedback control (Slack's feedback_buttons, Discord's 👍/👎): value `up:<turnId>` or `down:<turnId>`. */
export const FEEDBACK_ACTION = 'feedback';

/** The longest comment kept, in characters (a longer one is cut here). */
export const FEEDBACK_COMMENT_MAX = 1_000;

/** The voter and the workspace, as the adapter knows them (the tenant is resolved like a turn's). */
export type FeedbackVoter = Pick<IncomingMessage, 'platform' | 'workspaceId' | 'orgId' | 'tenant' | 'userId'>;

export interface FeedbackVote {
  voter: FeedbackVoter;
  turnId: string;
  value: FeedbackValue;
  /** A thumbs-down's comment (the person chose to give it); blank is none. */
  comment?: string;
}

export type FeedbackResult =
  | {
      ok: true;
      value: FeedbackValue;
      /** The person's vote before this one (null: their first). */
      previous: FeedbackValue | null;
      /** The vote is new or different (a repeated one changes nothing and is not counted again). */
      changed: boolean;
    }
  | {
      ok: false;
      /** `unknown_turn`: no such answer for this workspace's tenant; `bad_request`: not a vote. */
      code: 'unknown_turn' | 'bad_request' | 'tenant_not_configured';
      /** Safe to show the person. */
      message: string;
    };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `id` looks like a turn id (a UUID): anything else is refused before the database. */
export const isTurnId = (id: string): boolean => UUID.test(id);

/** The value of a feedback control for `turnId`. */
export const feedbackValue = (value: FeedbackValue, turnId: string): string => `${value}:${turnId}`;

/** Reads a feedback control's value (`up:<turnId>`); undefined when it is not one. */
export function parseFeedbackValue(raw: string | undefined): { value: FeedbackValue; turnId: string } | undefined {
  const m = /^(up|down):(.+)$/.exec(raw ?? '');
  if (!m || !isTurnId(m[2]!)) return undefined;
  return { value: m[1] as FeedbackValue, turnId: m[2]!.toLowerCase() };
}

/** What a person is told once their vote is recorded. */
export function feedbackThanks(value: FeedbackValue, changed: boolean): string {
  if (value === 'up') return changed ? 'Thanks for the feedback: glad it helped.' : 'Your 👍 was already noted.';
  return changed ? 'Thanks for the feedback: noted.' : 'Your 👎 was already noted.';
}

export const UNKNOWN_TURN_TEXT =
  'I can’t find that answer any more (answers are kept for a limited time), so the feedback was not recorded.';
