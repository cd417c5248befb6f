import {
  InteractionResponseType,
  InteractionWebhook,
  MessageFlags,
  type ButtonInteraction,
  type Client,
  type ModalSubmitInteraction,
} from 'discord.js';
import { feedbackThanks, parseFeedbackValue, type FeedbackVote, type FeedbackVoter } from '../../contract/feedback.js';
import {
  INBOX_UNAVAILABLE_TEXT as UNAVAILABLE,
  snowflakeOrder,
  type AddResult,
  type Delivery,
  type Inbox,
} from '../../inbox/index.js';
import type { ButtonAction } from './custom-id.js';
import { COMMENT_INPUT, feedbackModal, modalComment, modalTurnId } from './feedback-row.js';
import type { InteractionReply, RawInteraction } from './interactions-endpoint.js';
import { warning } from './sinks.js';
import type { DiscordWork, HandlerDeps, InteractionTarget } from './work.js';

/**
 * Feedback on answers in Discord (issue 47). A click on 👍/👎 under an answer is recorded in the
 * inbox like any interaction (its id is the dedup key: a redelivery counts once) in a queue of its
 * own per answer and person, never behind a turn of the conversation. Its acknowledgement is the
 * interaction's response: a 👍 defers (the run thanks the clicker privately), a 👎 shows the
 * comment modal (response type 9). The modal's submission is recorded the same way and answered
 * with a private thanks. Over HTTP the entry is recorded before the response; over the gateway
 * (Discord's 3 s) the response comes first, as for every gateway interaction.
 */

/** What a vote records in the inbox (beside `DiscordWork`, on the same platform); `thank`: the run thanks the clicker. */
export interface FeedbackWork {
  kind: 'feedback';
  vote: FeedbackVote;
  interaction: InteractionTarget;
  thank: boolean;
}

/** Whether an entry of the Discord platform is a vote (the delivery sends it here, not to a turn). */
export const isFeedbackWork = (work: DiscordWork | FeedbackWork): work is FeedbackWork => work.kind === 'feedback';
type Deps = Pick<HandlerDeps, 'inbox' | 'log' | 'agent'>;

const privately = (text: string): InteractionReply => ({
  type: InteractionResponseType.ChannelMessageWithSource,
  data: { content: text, flags: MessageFlags.Ephemeral, allowed_mentions: { parse: [] } },
});

const THANKS_FOR_COMMENT = 'Thanks: your comment is with the answer’s 👎.';

/** Records a vote (or a comment) in the inbox: ordered per answer and person by the interaction's snowflake. */
export function recordFeedback(inbox: Inbox, work: FeedbackWork): Promise<AddResult> {
  const order = snowflakeOrder(work.interaction.id);
  return inbox.add({
    id: `discord:feedback:${work.interaction.id}`,
    platform: 'discord',
    thread: `discord:feedback:${work.vote.turnId}:${work.vote.voter.userId}`,
    payload: work,
    receivedAt: Date.now(),
    ...(order !== undefined ? { order } : {}),
  });
}

const voterOf = (guildId: string | null | undefined, userId: string): FeedbackVoter => ({
  platform: 'discord',
  workspaceId: guildId ?? 'default',
  userId,
});

/** A 👍/👎 click POSTed to the interactions endpoint: recorded, then answered (a deferral, or the modal). */
export async function feedbackClickOverHttp(
  deps: Deps,
  raw: RawInteraction,
  action: ButtonAction,
  target: InteractionTarget,
): Promise<InteractionReply> {
  const parsed = parseFeedbackValue(action.value);
  if (!parsed) return { type: InteractionResponseType.DeferredMessageUpdate };
  const userId = raw.member?.user.id ?? raw.user?.id ?? '';
  const vote: FeedbackVote = { voter: voterOf(raw.guild_id, userId), turnId: parsed.turnId, value: parsed.value };
  try {
    await recordFeedback(deps.inbox, { kind: 'feedback', vote, interaction: target, thank: parsed.value === 'up' });
  } catch (err) {
    deps.log.error({ err, interactionId: raw.id }, 'discord feedback click not recorded');
    return privately(warning(UNAVAILABLE));
  }
  return parsed.value === 'down'
    ? { type: InteractionResponseType.Modal, data: feedbackModal(parsed.turnId) }
    : { type: InteractionResponseType.DeferredMessageUpdate };
}

/** The comment modal's submission over HTTP: recorded, then a private thanks. */
export async function feedbackModalOverHttp(
  deps: Deps,
  raw: RawInteraction & { data?: { components?: unknown } },
  target: InteractionTarget,
): Promise<InteractionReply> {
  const turnId = modalTurnId(raw.data?.custom_id);
  if (!turnId) return privately(warning('This kind of interaction is not supported.'));
  const comment = modalComment(raw.data?.components);
  if (!comment) return { type: InteractionResponseType.DeferredMessageUpdate };
  const userId = raw.member?.user.id ?? raw.user?.id ?? '';
  const vote: FeedbackVote = { voter: voterOf(raw.guild_id, userId), turnId, value: 'down', comment };
  try {
    await recordFeedback(deps.inbox, { kind: 'feedback', vote, interaction: target, thank: false });
  } catch (err) {
    deps.log.error({ err, interactionId: raw.id }, 'discord feedback comment not recorded');
    return privately(warning(UNAVAILABLE));
  }
  return privately(THANKS_FOR_COMMENT);
}

/** Where a gateway interaction is answered (its webhook, by ids and token). */
export function gatewayTarget(
  interaction: ButtonInteraction | ModalSubmitInteraction,
  receivedAt: number,
): InteractionTarget {
  return {
    id: interaction.id,
    applicationId: interaction.applicationId,
    token: interaction.token,
    channelId: interaction.channelId ?? '',
    receivedAt,
    ownsOriginal: false,
  };
}

/** A 👍/👎 click over the gateway (this connection claimed it): answered first, then recorded. */
export async function feedbackClickOverGateway(
  deps: Deps,
  interaction: ButtonInteraction,
  action: ButtonAction | undefined,
  receivedAt: number,
): Promise<void> {
  const target = gatewayTarget(interaction, receivedAt);
  const parsed = parseFeedbackValue(action?.value);
  try {
    if (parsed?.value === 'down') await interaction.showModal(feedbackModal(parsed.turnId));
    else await interaction.deferUpdate();
  } catch (err) {
    deps.log.warn({ err, interactionId: interaction.id }, 'could not acknowledge a feedback click');
    return;
  }
  if (!parsed) return;
  const vote: FeedbackVote = {
    voter: voterOf(interaction.guildId, interaction.user.id),
    turnId: parsed.turnId,
    value: parsed.value,
  };
  try {
    await recordFeedback(deps.inbox, { kind: 'feedback', vote, interaction: target, thank: parsed.value === 'up' });
  } catch (err) {
    deps.log.error({ err, interactionId: interaction.id }, 'discord feedback click not recorded');
    if (parsed.value === 'up')
      await interaction
        .followUp({ content: warning(UNAVAILABLE), flags: MessageFlags.Ephemeral })
        .catch(() => undefined);
  }
}

/** The comment modal's submission over the gateway: recorded, then a private thanks (or why not). */
export async function feedbackModalOverGateway(
  deps: Deps,
  interaction: ModalSubmitInteraction,
  receivedAt: number,
): Promise<void> {
  const target = gatewayTarget(interaction, receivedAt);
  const turnId = modalTurnId(interaction.customId);
  let text = '';
  try {
    text = interaction.fields.getTextInputValue(COMMENT_INPUT).trim();
  } catch {
    text = ''; // no such input: nothing to add to the vote
  }
  if (!turnId || !text) {
    await interaction.deferUpdate().catch(() => undefined);
    return;
  }
  const vote: FeedbackVote = {
    voter: voterOf(interaction.guildId, interaction.user.id),
    turnId,
    value: 'down',
    comment: text,
  };
  let reply = THANKS_FOR_COMMENT;
  try {
    await recordFeedback(deps.inbox, { kind: 'feedback', vote, interaction: target, thank: false });
  } catch (err) {
    deps.log.error({ err, interactionId: interaction.id }, 'discord feedback comment not recorded');
    reply = warning(UNAVAILABLE);
  }
  await interaction
    .reply({ content: reply, flags: MessageFlags.Ephemeral, allowedMentions: { parse: [] } })
    .catch((err: unknown) => deps.log.warn({ err }, 'could not answer a feedback comment'));
}

/** The inbox run of a vote: recorded through the core; the clicker thanked (or told why not) privately. */
export async function deliverFeedback(client: Client, d: Delivery<FeedbackWork>, deps: Deps): Promise<void> {
  const work = d.entry.payload;
  const result = await deps.agent.feedback(work.vote);
  const tell = result.ok ? (work.thank ? feedbackThanks(result.value, result.changed) : undefined) : result.message;
  if (!tell || d.recorded.includes('told')) return;
  const t = work.interaction;
  const webhook = new InteractionWebhook(client as Client<true>, t.applicationId, t.token);
  try {
    await webhook.send({
      content: result.ok ? tell : warning(tell),
      flags: MessageFlags.Ephemeral,
      allowedMentions: { parse: [] },
    });
    await d.record('told').catch(() => undefined);
  } catch (err) {
    deps.log.warn({ err, code: (err as { code?: unknown }).code }, 'could not tell the voter');
  }
}
