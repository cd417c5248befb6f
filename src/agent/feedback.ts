import type { Config } from '../config/index.js';
import type { DataPort } from '../contract/data.js';
import {
  FEEDBACK_COMMENT_MAX,
  isTurnId,
  UNKNOWN_TURN_TEXT,
  type FeedbackResult,
  type FeedbackVote,
} from '../contract/feedback.js';
import type { IncomingMessage } from '../contract/turn.js';
import { createFeedbackStore } from '../data/feedback.js';
import { isAdminPort } from '../data/rpc-port.js';
import { feedbackOnTrace } from '../telemetry/feedback-trace.js';
import type { Logger } from '../telemetry/logger.js';
import { metrics } from '../telemetry/metrics.js';
import { resolveTenant } from './admission.js';
import { keyedHash, userHashInput } from './turn-record.js';
import type { Block } from '../reply/model.js';

export interface FeedbackDeps {
  data: DataPort;
  tenantMode: Config['TENANT_MODE'];
  /** The turn record's hash key: the voter's hash is the one their own turns carry. */
  hashKey: string;
  log: Logger;
}

/**
 * Records one vote on an answer (issue 47): the voter's tenant is resolved from the platform
 * (like a turn's, never from the vote), the voter kept as the turn record's keyed hash, the vote
 * stored with the answer's turn record (one per person per answer, changeable). A new or changed
 * vote is counted (`switchboard_feedback_total`) and marked on the answer's trace; a repeated one
 * (a platform's retry, a double click) changes nothing. Throws on a database failure (the inbox
 * entry then runs again); refusals come back as values, with a message for the person.
 */
export function createFeedbackRecorder(deps: FeedbackDeps): (vote: FeedbackVote) => Promise<FeedbackResult> {
  const store = isAdminPort(deps.data) ? createFeedbackStore(deps.data) : undefined;
  return async function recordFeedback(vote) {
    if (!store || !isTurnId(vote.turnId) || (vote.value !== 'up' && vote.value !== 'down'))
      return { ok: false, code: 'bad_request', message: 'That is not a vote I can record.' };
    const asMessage = {
      ...vote.voter,
      channelId: '',
      threadId: '',
      messageId: '',
      role: 'guest',
      isDirect: false,
      text: '',
    };
    let tenantId: string;
    try {
      tenantId = (await resolveTenant(deps.data, deps.tenantMode, asMessage as IncomingMessage)).id;
    } catch (err) {
      if ((err as { code?: unknown }).code === 'tenant_not_configured')
        return { ok: false, code: 'tenant_not_configured', message: (err as Error).message };
      throw err;
    }
    const comment = vote.value === 'down' ? vote.comment?.trim().slice(0, FEEDBACK_COMMENT_MAX) : undefined;
    const row = await store.record(tenantId, {
      turnId: vote.turnId.toLowerCase(),
      userHash: keyedHash(deps.hashKey, userHashInput(vote.voter.platform, tenantId, vote.voter.userId)),
      platform: vote.voter.platform,
      value: vote.value,
      ...(comment ? { comment } : {}),
    });
    if (row.status === 'unknown_turn' || !row.value) {
      deps.log.info(
        { platform: vote.voter.platform, turn: vote.turnId },
        'feedback on an unknown answer; not recorded',
      );
      return { ok: false, code: 'unknown_turn', message: UNKNOWN_TURN_TEXT };
    }
    if (row.changed) metrics.feedback.inc({ value: row.value });
    deps.log.info(
      {
        platform: vote.voter.platform,
        turn: vote.turnId,
        value: row.value,
        changed: row.changed,
        comment: Boolean(comment),
      },
      'feedback recorded',
    );
    await feedbackOnTrace(row.trace_id, {
      turnId: vote.turnId,
      value: row.value,
      changed: row.changed,
      comment: Boolean(comment),
      tenantId,
    }).catch((err: unknown) => deps.log.debug({ err }, 'feedback span not recorded'));
    return { ok: true, value: row.value, previous: row.previous, changed: row.changed };
  };
}

/** A final answer's blocks with the vote controls at the end (none with FEEDBACK=off). */
export function withFeedback(blocks: Block[], turnId: string | undefined, on: boolean): Block[] {
  return on && turnId ? [...blocks, { type: 'feedback', turnId }] : blocks;
}
