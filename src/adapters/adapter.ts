import type { Switchboard } from '../app.js';
import type { NodeRoute } from './http/server.js';

/**
 * A chat platform connection (Slack, Discord): started by `serve()` when its credentials are
 * set. It records each event in the inbox before it acks, and registers the delivery function
 * that answers the inbox's entries for its platform.
 */
export interface PlatformAdapter {
  name: string;
  /** Raw HTTP routes it serves on the shared server (Slack's Events API, Discord's interactions endpoint). */
  routes?: NodeRoute[];
  start(): Promise<void>;
  /** For /readyz: whether its platform connection is up. */
  ready?(): boolean | Promise<boolean>;
  /** Stops receiving events (turns already recorded keep running until the inbox drains). */
  stop(): Promise<void>;
  /** Releases its connections, after the inbox has drained. */
  close?(): Promise<void>;
}

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
