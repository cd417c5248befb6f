import {
  ButtonStyle,
  ComponentType,
  TextInputStyle,
  type APIActionRowComponent,
  type APIButtonComponentWithCustomId,
  type APIModalInteractionResponseCallbackData,
} from 'discord.js';
import { FEEDBACK_ACTION, FEEDBACK_COMMENT_MAX, feedbackValue, isTurnId } from '../../contract/feedback.js';
import type { Reply } from '../../reply/model.js';

/**
 * Feedback on answers in Discord (issue 47): 👍 and 👎 buttons on the last message of an answer
 * (custom_id `feedback|up:<turn id>`: the action store reads it inline, no kv entry), and the modal
 * a 👎 opens for an optional comment (custom_id `feedback.comment|<turn id>`, one text input).
 */

/** The comment modal's custom_id prefix, and its text input's custom_id. */
export const FEEDBACK_MODAL = 'feedback.comment';
export const COMMENT_INPUT = 'comment';

/** The vote row of a reply that asks for one; undefined when it does not. */
export function feedbackRow(reply: Reply): APIActionRowComponent<APIButtonComponentWithCustomId> | undefined {
  const block = reply.blocks.find((b) => b.type === 'feedback');
  if (!block) return undefined;
  const button = (emoji: string, value: 'up' | 'down'): APIButtonComponentWithCustomId => ({
    type: ComponentType.Button,
    style: ButtonStyle.Secondary,
    emoji: { name: emoji },
    custom_id: `${FEEDBACK_ACTION}|${feedbackValue(value, block.turnId)}`,
  });
  return { type: ComponentType.ActionRow, components: [button('👍', 'up'), button('👎', 'down')] };
}

/** The modal a 👎 opens (interaction response type 9); the vote is recorded before it shows. */
export function feedbackModal(turnId: string): APIModalInteractionResponseCallbackData {
  return {
    custom_id: `${FEEDBACK_MODAL}|${turnId}`,
    title: 'What went wrong?',
    components: [
      {
        type: ComponentType.ActionRow,
        components: [
          {
            type: ComponentType.TextInput,
            custom_id: COMMENT_INPUT,
            label: 'Comment (optional)',
            style: TextInputStyle.Paragraph,
            required: false,
            max_length: FEEDBACK_COMMENT_MAX,
            placeholder: 'What was wrong or missing? The team reads these to improve the answers.',
          },
        ],
      },
    ],
  };
}

/** The turn id of a comment modal's custom_id; undefined for any other modal. */
export function modalTurnId(customId: string | undefined): string | undefined {
  const [prefix, turnId] = (customId ?? '').split('|', 2);
  return prefix === FEEDBACK_MODAL && turnId && isTurnId(turnId) ? turnId.toLowerCase() : undefined;
}

/** The comment typed into a submitted modal (its components as Discord sends them). */
export function modalComment(components: unknown): string {
  const rows = Array.isArray(components) ? (components as { components?: unknown }[]) : [];
  for (const row of rows) {
    const inputs = Array.isArray(row.components) ? (row.components as { custom_id?: unknown; value?: unknown }[]) : [];
    const input = inputs.find((c) => c.custom_id === COMMENT_INPUT);
    if (typeof input?.value === 'string') return input.value.trim();
  }
  return '';
}
