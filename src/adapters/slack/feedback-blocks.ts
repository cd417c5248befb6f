import type { types } from '@slack/bolt';
import { FEEDBACK_ACTION, FEEDBACK_COMMENT_MAX, feedbackValue } from '../../contract/feedback.js';

/**
 * Feedback on answers in Slack (issue 47), as Block Kit: the `feedback_buttons` element in a
 * `context_actions` block under each final answer (its buttons' values name the answer's turn
 * record), and the modal a thumbs-down opens for an optional comment.
 */

/** The modal's callback_id; its private_metadata is the answer's turn id. */
export const FEEDBACK_VIEW = 'feedback.comment';
/** The comment's input (block_id and action_id). */
export const COMMENT_INPUT = 'comment';

/** 👍/👎 under an answer. */
export function feedbackBlock(turnId: string): types.ContextActionsBlock {
  return {
    type: 'context_actions',
    elements: [
      {
        type: 'feedback_buttons',
        action_id: FEEDBACK_ACTION,
        positive_button: {
          text: { type: 'plain_text', text: '👍' },
          value: feedbackValue('up', turnId),
          accessibility_label: 'Good answer',
        },
        negative_button: {
          text: { type: 'plain_text', text: '👎' },
          value: feedbackValue('down', turnId),
          accessibility_label: 'Bad answer: tell us what was wrong',
        },
      },
    ],
  };
}

/** The modal a thumbs-down opens: the vote is already recorded; the comment is optional. */
export function feedbackCommentView(turnId: string): types.ModalView {
  return {
    type: 'modal',
    callback_id: FEEDBACK_VIEW,
    private_metadata: turnId,
    title: { type: 'plain_text', text: 'What went wrong?' },
    submit: { type: 'plain_text', text: 'Send' },
    close: { type: 'plain_text', text: 'Skip' },
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: 'Your 👎 is recorded. If you like, say what was wrong or missing: the team reads these to improve the answers.',
        },
      },
      {
        type: 'input',
        block_id: COMMENT_INPUT,
        optional: true,
        label: { type: 'plain_text', text: 'Comment' },
        element: {
          type: 'plain_text_input',
          action_id: COMMENT_INPUT,
          multiline: true,
          max_length: FEEDBACK_COMMENT_MAX,
        },
      },
    ],
  };
}
