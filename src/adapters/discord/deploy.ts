/**
 * npm run discord:deploy
 *
 * Registers /ask and /quote for DISCORD_APPLICATION_ID: in the server DISCORD_GUILD_ID when
 * set (shows at once; for development), otherwise globally (every server and DM; Discord
 * may take a while to show changes). Re-running replaces the set, so it is safe to repeat.
 */
import { Routes } from 'discord.js';
import { HELP_OPTION, readArgs } from '../../cli/args.js';
import { cliCommand } from '../../data/cli-command.js';
import { exitOnConfigError, loadConfig, type Config } from '../../config/index.js';
import { createDiscordRest } from './client.js';
import { slashCommands } from './commands.js';

const USAGE = `Usage: ${cliCommand('discord:deploy')} (no options: DISCORD_TOKEN, DISCORD_APPLICATION_ID, optionally DISCORD_GUILD_ID)`;

async function main(): Promise<number> {
  const args = readArgs(process.argv.slice(2), HELP_OPTION);
  if (!args.ok) {
    console.error(`${args.problem}\n${USAGE}`);
    return 2;
  }
  if (args.values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    exitOnConfigError(err);
  }
  const applicationId = config.DISCORD_APPLICATION_ID;
  if (!config.DISCORD_TOKEN || !applicationId) {
    console.error(
      'Set DISCORD_TOKEN and DISCORD_APPLICATION_ID (Developer Portal → your app) to deploy the slash commands.',
    );
    return 2;
  }
  const guildId = config.DISCORD_GUILD_ID;
  const route = guildId
    ? Routes.applicationGuildCommands(applicationId, guildId)
    : Routes.applicationCommands(applicationId);
  const commands = slashCommands();
  try {
    const saved = (await createDiscordRest(config).put(route, { body: commands })) as { name: string }[];
    const where = guildId ? `in server ${guildId}` : 'globally (new or changed commands can take a while to show)';
    process.stdout.write(`Registered ${saved.map((c) => `/${c.name}`).join(', ')} ${where}.\n`);
    return 0;
  } catch (err) {
    console.error(`Could not register the commands: ${explain(err, config)}`);
    return 1;
  }
}

function explain(err: unknown, config: Config): string {
  const message = err instanceof Error ? err.message : String(err);
  // DiscordAPIError (4xx with Discord's JSON) and HTTPError (anything else) both carry the status.
  const status = (err as { status?: unknown }).status;
  if (typeof status === 'number') {
    if (status === 401)
      return 'Discord rejected DISCORD_TOKEN (401). Copy the bot token again from the Developer Portal → Bot.';
    if (status === 403 && config.DISCORD_GUILD_ID) {
      return `no access to server ${config.DISCORD_GUILD_ID} (403). Invite the bot there with the applications.commands scope first.`;
    }
    if (status === 404)
      return 'unknown application (404). Check DISCORD_APPLICATION_ID against the Developer Portal → General Information.';
    return `${message} (HTTP ${status})`;
  }
  return message;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`Could not register the commands: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
