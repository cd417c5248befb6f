import type { APIMessage } from 'discord.js';
import type { FakeDiscord, InteractionRecord } from '../../fakes/discord/index.js';
import { buttonsOf, interactionAnswer } from './helpers.js';

/**
 * The approval message an interaction's turn posted (issue 43): the bot's own message in the
 * interaction's channel (so its expiry can always edit it), once the interaction's own answer is
 * final (a slash command's points to it). Also returns that answer.
 */
export async function approvalOf(
  discord: FakeDiscord,
  it: InteractionRecord,
): Promise<{ approval: APIMessage; answer: APIMessage }> {
  const [answer] = await interactionAnswer(discord, it.payload.token);
  const channelId = it.payload.channel?.id ?? '';
  const approval = await discord.waitFor(
    () =>
      discord
        .messagesIn(channelId)
        .filter((m) => m.author.id === discord.world.bot.id && !m.webhook_id && !it.messageIds.has(m.id))
        .filter((m) => buttonsOf(m).some((b) => b.label === 'Approve' && !b.disabled))
        .at(-1),
    'the approval message in the channel',
  );
  return { approval, answer: answer! };
}
