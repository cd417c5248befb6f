import { channelSettingsOf, hasChannel } from '../agent/channel-turn.js';
import { appliedSettings, describeApplied, type SettingSource } from '../contract/channel-settings.js';
import type { IncomingMessage } from '../contract/turn.js';
import { isConnectionError } from '../contract/infra-errors.js';
import { tenantFor } from '../data/index.js';
import type { Switchboard } from './switchboard.js';

/** Where a message was written, as the settings see it. */
export type ChannelPlace = Pick<
  IncomingMessage,
  'platform' | 'workspaceId' | 'orgId' | 'channelId' | 'channelParentId' | 'isDirect'
>;

/**
 * Settings per channel as the adapters need them (issue 46): whether a top-level message in a
 * channel is answered without a mention (`reply_mode: all`), and what applies in a channel for
 * `/switchboard settings`. Both read the cached tenant and channel lookups: no database round trip
 * on most messages.
 */
export interface ChannelSettingsView {
  /** Whether the bot answers every top-level message here. False on any doubt (an error is logged). */
  answersAll(place: ChannelPlace): Promise<boolean>;
  /** What applies here and where each value comes from: lines for a chat, in Slack's mrkdwn or Discord's Markdown. */
  describe(place: ChannelPlace, markup: 'slack' | 'discord'): Promise<string>;
}

const FROM: Record<SettingSource, string> = {
  channel: 'this channel',
  tenant: 'the workspace’s settings',
  default: 'the default',
};

export function createChannelSettingsView(
  sb: Pick<Switchboard, 'data' | 'log' | 'llm'> &
    Partial<Pick<Switchboard, 'channels'>> & {
      config: Pick<Switchboard['config'], 'TENANT_MODE'>;
    },
): ChannelSettingsView {
  const applied = async (place: ChannelPlace) => {
    const tenant = await tenantFor(sb.data, sb.config.TENANT_MODE, place.platform, place.workspaceId, place.orgId);
    if (!tenant) return undefined;
    const channel = sb.channels ? await channelSettingsOf(sb.channels, tenant, place) : {};
    return { tenant, applied: appliedSettings(tenant, channel, sb.llm.model) };
  };
  return {
    async answersAll(place) {
      if (!hasChannel(place)) return false;
      try {
        return (await applied(place))?.applied.replyMode.value === 'all';
      } catch (err) {
        // Every unmentioned post asks: while the database is away that is many lines, the outage is told elsewhere.
        const fields = { err, platform: place.platform, channel: place.channelId };
        const said = 'could not read the channel’s reply mode: answering mentions only';
        if (isConnectionError(err)) sb.log.debug(fields, said);
        else sb.log.warn(fields, said);
        return false;
      }
    },
    async describe(place, markup) {
      const bold = (s: string) => (markup === 'slack' ? `*${s}*` : `**${s}**`);
      // An operator's words (instructions, a model name) stay text: no Slack mention or link markup.
      const plain = (s: string) =>
        markup === 'slack' ? s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;') : s;
      const found = await applied(place);
      if (!found) return 'This workspace is not set up for Switchboard yet. Ask your Switchboard admin to add it.';
      const where = hasChannel(place) ? 'this channel' : 'this conversation';
      const lines = describeApplied(found.applied).map(
        (l) => `• ${bold(`${l.label}:`)} ${plain(l.value)} _(${FROM[l.from]})_`,
      );
      return [
        `${bold(`Settings in ${where}`)} (tenant ${found.tenant.slug ?? found.tenant.name}; a channel’s own value wins over the workspace’s, which wins over the default):`,
        ...lines,
      ].join('\n');
    },
  };
}
