import { Client, GatewayIntentBits, Partials, REST } from 'discord.js';
import type { Config } from '../../config.js';

/** discord.js's default REST base; DISCORD_API_URL replaces it (a REST proxy, or our tests' fake). */
export const DEFAULT_API_URL = 'https://discord.com/api';

export function apiBase(config: Pick<Config, 'DISCORD_API_URL'>): string {
  return (config.DISCORD_API_URL ?? DEFAULT_API_URL).replace(/\/+$/, '');
}

/**
 * The gateway client. Intents: Guilds (channels and threads), GuildMessages and
 * DirectMessages (the messages), MessageContent (privileged: the text of a mention or
 * thread reply; enable it in the Developer Portal). The Channel partial lets DMs arrive
 * from channels discord.js has not cached. The gateway URL comes from this REST's
 * `GET /gateway/bot`, so DISCORD_API_URL moves both.
 */
export function createDiscordClient(config: Pick<Config, 'DISCORD_API_URL'>): Client {
  return new Client({
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages, GatewayIntentBits.MessageContent],
    partials: [Partials.Channel],
    // Nobody is pinged by text the model writes.
    allowedMentions: { parse: [], repliedUser: false },
    rest: { api: apiBase(config) },
  });
}

/** A REST client alone, for the command deploy script. */
export function createDiscordRest(config: Pick<Config, 'DISCORD_API_URL' | 'DISCORD_TOKEN'>): REST {
  const rest = new REST({ api: apiBase(config) });
  if (config.DISCORD_TOKEN) rest.setToken(config.DISCORD_TOKEN);
  return rest;
}
