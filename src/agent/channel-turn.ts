import {
  appliedSettings,
  settingSources,
  tenantInChannel,
  type AppliedSettings,
  type ChannelSettings,
} from '../contract/channel-settings.js';
import type { Tenant } from '../contract/data.js';
import type { IncomingMessage } from '../contract/turn.js';
import type { ChannelSettingsLookup } from '../data/channel-settings.js';

/** Whether a message is in a channel that may have settings of its own (a Slack or Discord channel, not a DM). */
export function hasChannel(message: Pick<IncomingMessage, 'platform' | 'isDirect'>): boolean {
  return (message.platform === 'slack' || message.platform === 'discord') && !message.isDirect;
}

/** The channel's settings (none outside a channel). */
export function channelSettingsOf(
  lookup: ChannelSettingsLookup,
  tenant: Pick<Tenant, 'id'>,
  message: Pick<IncomingMessage, 'platform' | 'isDirect' | 'channelId' | 'channelParentId'>,
): Promise<ChannelSettings> {
  if (!hasChannel(message)) return Promise.resolve({});
  return lookup.get(tenant, message.channelId, message.channelParentId);
}

// The tenant as seen in a channel, per (tenant row, channel settings) pair: both objects are
// cached upstream, so a turn in the same channel gets the same merged settings object (and a
// bad stored value is warned about once, not per turn).
const merged = new WeakMap<Tenant, WeakMap<ChannelSettings, Tenant>>();

export interface TurnSettings {
  /** The tenant with the channel's settings written over its own: what the rest of the turn reads. */
  tenant: Tenant;
  applied: AppliedSettings;
  /** Where each setting came from, for the turn record. */
  sources: Record<string, string>;
}

/** The settings a turn runs with: channel over tenant over the deployment's defaults (issue 46). */
export async function settingsForTurn(
  lookup: ChannelSettingsLookup | undefined,
  tenant: Tenant,
  message: IncomingMessage,
  defaultModel: string,
): Promise<TurnSettings> {
  const channel = lookup ? await channelSettingsOf(lookup, tenant, message) : {};
  let byChannel = merged.get(tenant);
  if (!byChannel) merged.set(tenant, (byChannel = new WeakMap()));
  let inChannel = byChannel.get(channel);
  if (!inChannel) byChannel.set(channel, (inChannel = tenantInChannel(tenant, channel)));
  const applied = appliedSettings(tenant, channel, defaultModel);
  return { tenant: inChannel, applied, sources: settingSources(applied) };
}
