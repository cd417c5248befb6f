import { z } from 'zod';
import { int } from './fields.js';

/**
 * How long one streamed Slack message runs before the answer continues in a new one (issue 46).
 * Slack ends a stream itself about five minutes after it started (appends and the stop then answer
 * `message_not_in_streaming_state`); rolling over before that keeps the answer in order with no
 * refused append. A stream Slack ends earlier (an idle gap) rolls over on that error as well.
 */
export const slackStreamSettings = z.object({
  /** Milliseconds; 10 s to 290 s (under Slack's five minutes), default 240 s. */
  SLACK_STREAM_MAX_AGE_MS: int(240_000, 10_000, 290_000),
});
