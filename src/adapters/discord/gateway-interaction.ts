import { MessageFlags, type ButtonInteraction, type ChatInputCommandInteraction, type Interaction } from 'discord.js';
import { messageTooLongText, type IncomingMessage } from '../../contract/turn.js';
import type { Logger } from '../../telemetry/logger.js';
import { metrics } from '../../telemetry/metrics.js';
import { INBOX_UNAVAILABLE_TEXT as UNAVAILABLE, THREAD_QUEUE_FULL_TEXT, type AddResult } from '../../inbox/index.js';
import { conversationOfClick, markClicked } from './clicked-buttons.js';
import { COMMAND_NAMES } from './commands.js';
import { settingsAnswer, SWITCHBOARD_COMMAND } from './settings-command.js';
import { commandInput, conversationIn, normalizeButton, normalizeCommand, tooLong } from './normalize.js';
import { warning } from './sinks.js';
import { FEEDBACK_ACTION } from '../../contract/feedback.js';
import { feedbackClickOverGateway, feedbackModalOverGateway } from './feedback.js';
import { modalTurnId } from './feedback-row.js';
import {
  BUTTON_EXPIRED,
  FOREIGN_SELECT,
  ONLY_SLASH_COMMANDS,
  UNKNOWN_COMMAND,
  UNSUPPORTED_INTERACTION,
  claimOnce,
  logTooLong,
  recordWork,
  type HandlerDeps,
  type InteractionTarget,
} from './work.js';

type Deps = Pick<
  HandlerDeps,
  'agent' | 'kv' | 'inbox' | 'actions' | 'log' | 'maxPerThread' | 'memberRoleIds' | 'channelSettings'
>;

/** The interactions we answer over the gateway; each kind gets its own branch in `onInteraction`. */
type GatewayInteraction = ChatInputCommandInteraction | ButtonInteraction;

/**
 * An interaction over the gateway (slash commands, button clicks; every other kind answered as over HTTP). Only one gateway connection
 * (or replica) claims it; it is acknowledged within Discord's 3 s, then recorded in the inbox
 * with its token, so any replica can answer it. A failed record is told privately.
 */
export function createInteractionHandler(deps: Deps): (interaction: Interaction) => Promise<void> {
  const { log } = deps;

  async function onCommand(interaction: ChatInputCommandInteraction, receivedAt: number): Promise<void> {
    if (!(await claimOnce(deps.kv, log, interaction.id))) return;
    if (!COMMAND_NAMES.has(interaction.commandName)) {
      await interaction.reply({
        content: warning(UNKNOWN_COMMAND(interaction.commandName)),
        flags: MessageFlags.Ephemeral,
      });
      return;
    }
    const chars = tooLong(interaction.options.data);
    if (chars !== undefined) {
      logTooLong(log, chars, { interactionId: interaction.id, command: interaction.commandName });
      await interaction
        .reply({ content: warning(messageTooLongText(chars)), flags: MessageFlags.Ephemeral })
        .catch((err: unknown) => log.warn({ err, interactionId: interaction.id }, 'could not tell the user'));
      return;
    }
    if (interaction.commandName === SWITCHBOARD_COMMAND) {
      // Answered here, privately: it reads the settings and changes nothing (no turn, no model call).
      if (!(await acknowledge(interaction, () => interaction.deferReply({ flags: MessageFlags.Ephemeral }), log)))
        return;
      const place = conversationIn(interaction.channel, interaction.channelId, interaction.guildId, interaction.id);
      const content = await settingsAnswer(
        interaction.options.getSubcommand(false) ?? undefined,
        deps.channelSettings,
        { platform: 'discord', ...place },
        log,
      );
      await interaction
        .editReply({ content, allowedMentions: { parse: [] } })
        .catch((err: unknown) => log.warn({ err, interactionId: interaction.id }, 'could not answer /switchboard'));
      return;
    }
    // Discord drops an interaction not acknowledged within 3 s: defer before anything slow.
    if (!(await acknowledge(interaction, () => interaction.deferReply(), log))) return;
    await record(interaction, normalizeCommand(commandInput(interaction), deps.memberRoleIds), receivedAt);
  }

  async function onButton(interaction: ButtonInteraction, receivedAt: number): Promise<void> {
    if (!(await claimOnce(deps.kv, log, interaction.id))) return;
    // A vote on an answer (issue 47): its own acknowledgement (a 👎 opens the comment modal).
    if (interaction.customId.startsWith(`${FEEDBACK_ACTION}|`))
      return feedbackClickOverGateway(deps, interaction, await deps.actions.decode(interaction.customId), receivedAt);
    if (!(await acknowledge(interaction, () => interaction.deferUpdate(), log))) return;
    const action = await deps.actions.decode(interaction.customId);
    // Expired, or an action nothing answers any more: say so privately and leave the buttons as they are.
    if (!action || !deps.agent.handlesAction(action.id)) {
      await interaction.followUp({ content: warning(BUTTON_EXPIRED), flags: MessageFlags.Ephemeral });
      return;
    }
    await markClicked(interaction, log);
    const conversation = await conversationOfClick(deps.kv, interaction.message.id, () =>
      conversationIn(
        interaction.channel,
        interaction.channelId,
        interaction.guildId,
        interaction.message.interactionMetadata?.id ?? interaction.message.id,
      ),
    );
    await record(
      interaction,
      normalizeButton(
        { id: interaction.id, userId: interaction.user.id, member: interaction.member },
        action,
        conversation,
        deps.memberRoleIds,
      ),
      receivedAt,
    );
  }

  /** After the acknowledgement: the entry carries the interaction's token, so any replica can answer it. */
  async function record(interaction: GatewayInteraction, message: IncomingMessage, receivedAt: number): Promise<void> {
    const ownsOriginal = interaction.isChatInputCommand();
    const target: InteractionTarget = {
      id: interaction.id,
      applicationId: interaction.applicationId,
      token: interaction.token,
      channelId: interaction.channelId ?? message.channelId,
      receivedAt,
      ownsOriginal,
    };
    let added: AddResult;
    try {
      added = await recordWork(deps.inbox, { kind: 'interaction', message, interaction: target });
    } catch (err) {
      log.error({ err, interactionId: interaction.id }, 'discord interaction not recorded in the inbox');
      return tellPrivately(interaction, ownsOriginal, UNAVAILABLE, log);
    }
    if (added === 'full')
      await tellPrivately(interaction, ownsOriginal, THREAD_QUEUE_FULL_TEXT(deps.maxPerThread), log);
  }

  /**
   * The kinds we take no action on get the answers the HTTP path gives (`http-interaction.ts`):
   * an autocomplete no suggestions; a context-menu command, a modal submit and a select menu a
   * private note. Unanswered, Discord would show "This interaction failed".
   */
  async function onOther(interaction: Interaction): Promise<void> {
    if (!interaction.isAutocomplete() && !interaction.isRepliable()) return;
    if (!(await claimOnce(deps.kv, log, interaction.id))) return;
    log.debug({ interactionId: interaction.id, type: interaction.type }, 'discord interaction we take no action on');
    if (interaction.isAutocomplete()) {
      await acknowledge(interaction, () => interaction.respond([]), log);
      return;
    }
    const text = interaction.isContextMenuCommand()
      ? ONLY_SLASH_COMMANDS
      : interaction.isAnySelectMenu()
        ? FOREIGN_SELECT
        : UNSUPPORTED_INTERACTION;
    await acknowledge(
      interaction,
      () =>
        interaction.reply({ content: warning(text), flags: MessageFlags.Ephemeral, allowedMentions: { parse: [] } }),
      log,
    );
  }

  return async function onInteraction(interaction) {
    const receivedAt = Date.now();
    if (interaction.isChatInputCommand()) return onCommand(interaction, receivedAt);
    if (interaction.isButton()) return onButton(interaction, receivedAt);
    if (interaction.isModalSubmit() && modalTurnId(interaction.customId)) {
      if (await claimOnce(deps.kv, log, interaction.id)) await feedbackModalOverGateway(deps, interaction, receivedAt);
      return;
    }
    return onOther(interaction);
  };
}

async function acknowledge(interaction: Interaction, ack: () => Promise<unknown>, log: Logger): Promise<boolean> {
  try {
    await ack();
    metrics.acks.inc({ platform: 'discord', status: 'deferred' });
    return true;
  } catch (err) {
    metrics.acks.inc({ platform: 'discord', status: 'failed' });
    log.warn(
      { err, code: (err as { code?: unknown }).code, interactionId: interaction.id },
      'could not acknowledge the interaction',
    );
    return false;
  }
}

/** An ephemeral note instead of an answer; a slash command's deferred "thinking…" reply is removed first. */
async function tellPrivately(
  interaction: GatewayInteraction,
  ownsOriginal: boolean,
  text: string,
  log: Logger,
): Promise<void> {
  try {
    if (ownsOriginal)
      await interaction.deleteReply().catch((err: unknown) => log.warn({ err }, 'could not remove the deferred reply'));
    await interaction.followUp({
      content: warning(text),
      flags: MessageFlags.Ephemeral,
      allowedMentions: { parse: [] },
    });
  } catch (err) {
    log.warn({ err, code: (err as { code?: unknown }).code, interactionId: interaction.id }, 'could not tell the user');
  }
}
