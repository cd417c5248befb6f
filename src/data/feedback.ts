import type { z } from 'zod';
import type { FeedbackValue } from '../contract/feedback.js';
import type { AdminDataPort } from './rpc-port.js';
import { feedbackRecordedRow } from './rows.js';

export type RecordedFeedback = z.infer<typeof feedbackRecordedRow>;

/**
 * Votes on answers (issue 47) in the tenant-scoped `turn_feedback` table, kept with the turn
 * record (and deleted with it). One row per person per answer: a vote again is one upsert.
 */
export interface FeedbackStore {
  record(
    tenantId: string,
    vote: { turnId: string; userHash: string; platform: string; value: FeedbackValue; comment?: string },
  ): Promise<RecordedFeedback>;
}

export function createFeedbackStore(port: AdminDataPort): FeedbackStore {
  return {
    async record(tenantId, vote) {
      const [row] = await port.admin(
        'feedback_record',
        {
          tenant_id: tenantId,
          turn_id: vote.turnId,
          user_hash: vote.userHash,
          platform: vote.platform,
          value: vote.value,
          ...(vote.comment ? { comment: vote.comment } : {}),
        },
        feedbackRecordedRow,
      );
      return row ?? { status: 'unknown_turn', previous: null, value: null, changed: false, trace_id: null };
    },
  };
}
