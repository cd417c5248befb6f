import {
  ComponentType,
  InteractionResponseType,
  InteractionType,
  MessageFlags,
  type APIActionRowComponent,
  type APIComponentInMessageActionRow,
} from 'discord.js';
import { messageTooLongText, type IncomingMessage } from '../../contract/turn.js';
import { INBOX_UNAVAILABLE_TEXT as UNAVAILABLE, THREAD_QUEUE_FULL_TEXT, type AddResult } from '../../inbox/index.js';
import { conversationOfClick, disabledRows } from './clicked-buttons.js';
import { COMMAND_NAMES } from './commands.js';
import { settingsAnswer, SWITCHBOARD_COMMAND } from './settings-command.js';
import { rawChannel, type InteractionReply, type RawInteraction } from './interactions-endpoint.js';
import { conversationIn, normalizeButton, normalizeCommand, tooLong } from './normalize.js';
import { warning } from './sinks.js';
import { FEEDBACK_ACTION } from '../../contract/feedback.js';
import { feedbackClickOverHttp, feedbackModalOverHttp } from './feedback.js';
import { modalTurnId } from './feedback-row.js';
import {
  BUTTON_EXPIRED,
  FOREIGN_SELECT,
  ONLY_SLASH_COMMANDS,
  UNKNOWN_COMMAND,
  UNSUPPORTED_INTERACTION,
  logTooLong,
  recordWork,
  type HandlerDeps,
  type InteractionTarget,
} from './work.js';

type Deps = Pick<
  HandlerDeps,
  'agent' | 'kv' | 'inbox' | 'actions' | 'log' | 'maxPerThread' | 'memberRoleIds' | 'channelSettings'
>;

/** Seen only by the person who acted; nobody pinged. */
const privately = (text: string): InteractionReply => ({
  type: InteractionResponseType.ChannelMessageWithSource,
  data: { content: warning(text), flags: MessageFlags.Ephemeral, allowed_mentions: { parse: [] } },
});

/**
 * An interaction Discord POSTed to our interactions endpoint (signature already checked by
 * `interactions-endpoint.ts`): recorded in the inbox first, then acknowledged by the HTTP
 * response this returns (a deferral, or the click's buttons disabled); a refusal is that
 * response, seen only by the person who acted. Each interaction type gets its own branch.
 */
export function createHttpInteractionHandler(deps: Deps): (raw: RawInteraction) => Promise<InteractionReply> {
  const { log } = deps;
  return async function onHttpInteraction(raw) {
    const receivedAt = Date.now();
    const member = raw.member ?? null;
    const userId = raw.member?.user.id ?? raw.user?.id ?? '';
    const channelId = raw.channel_id ?? raw.channel?.id ?? '';
    const channel = raw.channel ? rawChannel(raw.channel) : null;
    const target: InteractionTarget = {
      id: raw.id,
      applicationId: raw.application_id,
      token: raw.token,
      channelId,
      receivedAt,
      ownsOriginal: raw.type === InteractionType.ApplicationCommand,
    };
    /** Recorded, then the `ack` response; a failed write is answered privately and nothing is acknowledged as taken. */
    const record = async (message: IncomingMessage, ack: InteractionReply): Promise<InteractionReply> => {
      let added: AddResult;
      try {
        added = await recordWork(deps.inbox, {
          kind: 'interaction',
          message,
          interaction: { ...target, channelId: channelId || message.channelId },
        });
      } catch (err) {
        log.error({ err, interactionId: raw.id }, 'discord interaction not recorded in the inbox');
        return privately(UNAVAILABLE);
      }
      return added === 'full' ? privately(THREAD_QUEUE_FULL_TEXT(deps.maxPerThread)) : ack;
    };

    if (raw.type === InteractionType.ApplicationCommand) {
      const data = raw.data;
      if (!data || (data.type !== undefined && data.type !== 1)) return privately(ONLY_SLASH_COMMANDS);
      if (!COMMAND_NAMES.has(data.name ?? '')) return privately(UNKNOWN_COMMAND(data.name ?? '?'));
      const chars = tooLong(data.options ?? []);
      if (chars !== undefined) {
        logTooLong(log, chars, { interactionId: raw.id, command: data.name });
        return privately(messageTooLongText(chars));
      }
      if (data.name === SWITCHBOARD_COMMAND) {
        // Answered in the response itself, privately: it reads the (cached) settings and changes nothing.
        const place = conversationIn(channel, channelId, raw.guild_id ?? null, raw.id);
        // A subcommand is the option without a value (its own options, if any, are inside it).
        const sub = (data.options ?? []).find((o) => o.value === undefined)?.name;
        const content = await settingsAnswer(sub, deps.channelSettings, { platform: 'discord', ...place }, log);
        return {
          type: InteractionResponseType.ChannelMessageWithSource,
          data: { content, flags: MessageFlags.Ephemeral, allowed_mentions: { parse: [] } },
        };
      }
      const message = normalizeCommand(
        {
          id: raw.id,
          commandName: data.name ?? '',
          options: data.options ?? [],
          channel,
          channelId,
          guildId: raw.guild_id ?? null,
          userId,
          member,
        },
        deps.memberRoleIds,
      );
      return record(message, { type: InteractionResponseType.DeferredChannelMessageWithSource });
    }
    if (raw.type === InteractionType.MessageComponent) {
      const customId = raw.data?.custom_id;
      if (!customId || !raw.message) return { type: InteractionResponseType.DeferredMessageUpdate };
      // Only buttons are ours (component type 2); a select menu is someone else's.
      if (raw.data?.component_type !== undefined && raw.data.component_type !== ComponentType.Button)
        return privately(FOREIGN_SELECT);
      const clicked = raw.message;
      const action = await deps.actions.decode(customId);
      // A vote on an answer (issue 47): recorded, answered with a deferral or the comment modal.
      if (action?.id === FEEDBACK_ACTION) return feedbackClickOverHttp(deps, raw, action, target);
      if (!action || !deps.agent.handlesAction(action.id)) return privately(BUTTON_EXPIRED);
      const conversation = await conversationOfClick(deps.kv, clicked.id, () =>
        conversationIn(channel, channelId, raw.guild_id ?? null, clicked.interaction_metadata?.id ?? clicked.id),
      );
      const message = normalizeButton({ id: raw.id, userId, member }, action, conversation, deps.memberRoleIds);
      const rows = disabledRows(
        (clicked.components ?? []) as unknown as APIActionRowComponent<APIComponentInMessageActionRow>[],
        customId,
      );
      // One response acknowledges the click and disables the buttons.
      return record(
        message,
        rows.length > 0
          ? { type: InteractionResponseType.UpdateMessage, data: { components: rows } }
          : { type: InteractionResponseType.DeferredMessageUpdate },
      );
    }
    if (raw.type === InteractionType.ModalSubmit && modalTurnId(raw.data?.custom_id))
      return feedbackModalOverHttp(deps, raw, target);
    // Discord accepts only an autocomplete result here (type 8); our options offer no suggestions.
    if (raw.type === InteractionType.ApplicationCommandAutocomplete)
      return { type: InteractionResponseType.ApplicationCommandAutocompleteResult, data: { choices: [] } };
    return privately(UNSUPPORTED_INTERACTION);
  };
}
