import {
  ApplicationIntegrationType,
  InteractionContextType,
  SlashCommandBuilder,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
} from 'discord.js';
import { SWITCHBOARD_COMMAND, switchboardCommand } from './settings-command.js';

/** The quote modes `/quote mode:` offers; the quotes tool family defines what each does. */
export const QUOTE_MODES = ['calc', 'price', 'table'] as const;
const QUOTE_MODE_CHOICES: Record<(typeof QUOTE_MODES)[number], string> = {
  calc: 'calc: work out the numbers',
  price: 'price: supplier prices for the materials',
  table: 'table: the quote table with totals',
};

/**
 * `/ask` and `/quote`, built with discord.js's builders, which check names and descriptions
 * against Discord's rules (lower-case names of 1–32 characters, descriptions of 1–100).
 * Usable in servers and in DMs with the bot.
 */
export function slashCommands(): RESTPostAPIChatInputApplicationCommandsJSONBody[] {
  const ask = new SlashCommandBuilder()
    .setName('ask')
    .setDescription('Ask Switchboard a question')
    .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM)
    .setIntegrationTypes(ApplicationIntegrationType.GuildInstall)
    .addStringOption((o) =>
      o.setName('question').setDescription('What would you like to know?').setRequired(true).setMaxLength(2_000),
    );
  const quote = new SlashCommandBuilder()
    .setName('quote')
    .setDescription('Prepare a quote: a calculation, a price or a comparison table')
    .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM)
    .setIntegrationTypes(ApplicationIntegrationType.GuildInstall)
    .addStringOption((o) =>
      o
        .setName('mode')
        .setDescription('What kind of quote')
        .setRequired(true)
        .addChoices(QUOTE_MODES.map((value) => ({ name: QUOTE_MODE_CHOICES[value], value }))),
    )
    .addStringOption((o) =>
      o.setName('request').setDescription('What to quote, in your own words').setRequired(true).setMaxLength(2_000),
    );
  // Long-term memory (issue 45): what the bot remembers here, each note with a Forget button.
  const memory = new SlashCommandBuilder()
    .setName('memory')
    .setDescription('What Switchboard remembers about you, this channel and the team')
    .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM)
    .setIntegrationTypes(ApplicationIntegrationType.GuildInstall);
  return [ask.toJSON(), quote.toJSON(), switchboardCommand(), memory.toJSON()];
}

export const COMMAND_NAMES: ReadonlySet<string> = new Set(['ask', 'quote', SWITCHBOARD_COMMAND, 'memory']);
