import {
  ApplicationIntegrationType,
  InteractionContextType,
  SlashCommandBuilder,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
} from 'discord.js';
import type { Logger } from '../../telemetry/logger.js';
import type { ChannelPlace, ChannelSettingsView } from '../channel-settings.js';
import { LIMITS } from './limits.js';
import { truncate } from '../../reply/text.js';

/** `/switchboard settings` (issue 46): answered by the adapter itself, privately, with no turn. */
export const SWITCHBOARD_COMMAND = 'switchboard';

export function switchboardCommand(): RESTPostAPIChatInputApplicationCommandsJSONBody {
  return new SlashCommandBuilder()
    .setName(SWITCHBOARD_COMMAND)
    .setDescription('Switchboard itself: what applies here')
    .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM)
    .setIntegrationTypes(ApplicationIntegrationType.GuildInstall)
    .addSubcommand((s) =>
      s
        .setName('settings')
        .setDescription('The model, instructions, tools, reply mode and language here, and where each comes from'),
    )
    .toJSON();
}

/** The private answer to `/switchboard settings` in `place` (a subcommand we do not know gets the usage). */
export async function settingsAnswer(
  subcommand: string | undefined,
  view: ChannelSettingsView | undefined,
  place: ChannelPlace,
  log: Logger,
): Promise<string> {
  if (subcommand !== 'settings')
    return '`/switchboard settings` shows what applies here and where each value comes from.';
  if (!view) return 'Settings are not available in this deployment.';
  try {
    return truncate(await view.describe(place, 'discord'), LIMITS.content);
  } catch (err) {
    log.warn({ err, channel: place.channelId }, 'could not read the settings for /switchboard settings');
    return 'I could not read the settings just now. Please try again in a minute.';
  }
}
