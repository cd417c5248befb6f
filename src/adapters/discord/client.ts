import { Client, GatewayIntentBits, Partials, REST, Routes, type RESTGetAPIGatewayBotResult } from 'discord.js';
import { ConfigError, type Config } from '../../config/index.js';

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
    intents: [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.DirectMessages,
      GatewayIntentBits.MessageContent,
    ],
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

/**
 * Which gateway shards this replica connects, set on the client before it logs in. Discord sends
 * a guild's events to shard `(guild_id >> 22) % count` and DMs to shard 0, so replicas with
 * disjoint DISCORD_SHARD_IDS each receive their own guilds' events. discord.js identifies the
 * shards, `session_start_limit.max_concurrency` at a time (@discordjs/ws's throttler).
 *
 * - nothing set: one shard (discord.js's default);
 * - `DISCORD_SHARD_COUNT=auto` alone: Discord's recommended count, every shard here;
 * - `auto` with DISCORD_SHARD_IDS: the count from GET /gateway/bot, these ids (checked against it);
 * - a number: that count, DISCORD_SHARD_IDS or every shard.
 */
export async function planShards(
  client: Client,
  config: Pick<Config, 'DISCORD_SHARD_COUNT' | 'DISCORD_SHARD_IDS' | 'DISCORD_TOKEN'>,
): Promise<{ ids: number[] | 'auto'; count: number | 'auto' } | undefined> {
  const { DISCORD_SHARD_COUNT: count, DISCORD_SHARD_IDS: ids } = config;
  if (count === undefined) return undefined;
  if (count === 'auto' && !ids) {
    client.options.shards = 'auto';
    return { ids: 'auto', count: 'auto' };
  }
  let total: number;
  if (count === 'auto') {
    if (config.DISCORD_TOKEN) client.rest.setToken(config.DISCORD_TOKEN);
    const gateway = (await client.rest.get(Routes.gatewayBot())) as RESTGetAPIGatewayBotResult;
    total = gateway.shards;
  } else {
    total = count;
  }
  const mine = ids ?? Array.from({ length: total }, (_, i) => i);
  const outside = mine.filter((id) => id >= total);
  if (outside.length > 0) {
    throw new ConfigError([
      `DISCORD_SHARD_IDS: ${outside.join(', ')} ${outside.length > 1 ? 'are' : 'is'} outside the ${total} shard${total > 1 ? 's' : ''} Discord recommends (ids 0–${total - 1}); set DISCORD_SHARD_COUNT to a number to fix the count`,
    ]);
  }
  client.options.shards = mine;
  client.options.shardCount = total;
  return { ids: mine, count: total };
}
