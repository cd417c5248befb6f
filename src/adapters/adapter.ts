import type { Switchboard } from '../app.js';
import type { SlackIngressTarget } from './http/ingress.js';
import type { NodeRoute } from './http/server.js';

/** A chat platform connection (Slack, Discord): started by main when its credentials are set. */
export interface PlatformAdapter {
  name: string;
  /** Raw HTTP routes it needs on the main thread's server. */
  routes?: NodeRoute[];
  /** Slack's Events API (HTTP mode): verified and acked by the HTTP ingress thread, then handed over. */
  ingress?: SlackIngressTarget;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Builds the adapters whose credentials are configured. Platform SDKs are imported only
 * when needed: discord.js alone costs about a second of start-up.
 */
export async function configuredAdapters(sb: Switchboard): Promise<PlatformAdapter[]> {
  const adapters: PlatformAdapter[] = [];
  if (sb.config.SLACK_BOT_TOKEN) {
    const { createSlackAdapter } = await import('./slack/index.js');
    const slack = createSlackAdapter(sb);
    if (slack) adapters.push(slack);
  }
  if (sb.config.DISCORD_TOKEN) {
    const { createDiscordAdapter } = await import('./discord/index.js');
    const discord = createDiscordAdapter(sb);
    if (discord) adapters.push(discord);
  }
  return adapters;
}
