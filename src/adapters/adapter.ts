import type { Switchboard } from './switchboard.js';
import type { PlatformAdapter } from './platform.js';

/**
 * Builds the adapters whose credentials are configured. Platform SDKs are imported only
 * when needed: discord.js alone costs about a second of start-up.
 */
export async function configuredAdapters(sb: Switchboard): Promise<PlatformAdapter[]> {
  const adapters: PlatformAdapter[] = [];
  if (sb.config.SLACK_BOT_TOKEN || sb.config.SLACK_CLIENT_ID) {
    const { createSlackAdapter } = await import('./slack/index.js');
    const slack = createSlackAdapter(sb);
    if (slack) adapters.push(slack);
  }
  if (sb.config.DISCORD_TOKEN || sb.config.DISCORD_PUBLIC_KEY) {
    const { createDiscordAdapter } = await import('./discord/index.js');
    const discord = createDiscordAdapter(sb);
    if (discord) adapters.push(discord);
  }
  return adapters;
}
