import type { AdminDataPort } from '../rpc-port.js';
import { DataError } from '../../contract/data.js';
import {
  appliedSettings,
  describeApplied,
  patchFromWords,
  readChannelSettings,
  type ChannelSettingsWords,
} from '../../contract/channel-settings.js';
import { channelClearedRow, channelSettingsListRow } from '../rows.js';
import { TOOL_FAMILIES } from '../../contract/toolsets.js';

/** The `channel` command's options (the rest of `npm run tenants` ignores them). */
export const CHANNEL_OPTIONS = {
  model: { type: 'string' },
  fallbacks: { type: 'string' },
  instructions: { type: 'string' },
  toolsets: { type: 'string' },
  'reply-mode': { type: 'string' },
  language: { type: 'string' },
} as const;

export const CHANNEL_USAGE = [
  `channel set <tenant> <channel id> [--model <name>] [--fallbacks <JSON>] [--instructions <text>] [--toolsets <${TOOL_FAMILIES.join(',')}|none|auto>] [--reply-mode mention|all] [--language <code>]   (a value of \`default\` clears that setting)`,
  'channel list [tenant]',
  'channel show <tenant> <channel id>',
  'channel clear <tenant> <channel id>',
];

export interface ChannelOptions {
  model?: string | undefined;
  fallbacks?: string | undefined;
  instructions?: string | undefined;
  toolsets?: string | undefined;
  'reply-mode'?: string | undefined;
  language?: string | undefined;
}

const SEEN_WITHIN = 'Running bots see the change within 10 seconds.';

/** A channel's stored settings on one line: `model=gpt-4.1-mini reply_mode=all …`, or `(none)`. */
export function settingsLine(settings: Record<string, unknown>): string {
  const parts = Object.entries(readChannelSettings(settings)).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return parts.length ? parts.join(' ') : '(none)';
}

/**
 * `npm run tenants -- channel set|list|show|clear …` (issue 46): a tenant's Slack channel, Discord
 * channel or Discord category with settings of its own. Returns the exit code (2: usage printed by the caller).
 */
export async function channelCommand(
  port: AdminDataPort,
  words: readonly string[],
  options: ChannelOptions,
  out: (line: string) => void,
): Promise<number> {
  const [action, slug, channelId] = words;
  try {
    switch (action) {
      case 'set': {
        if (!slug || !channelId) return 2;
        const typed: ChannelSettingsWords = {
          model: options.model,
          fallbacks: options.fallbacks,
          instructions: options.instructions,
          toolsets: options.toolsets,
          replyMode: options['reply-mode'],
          language: options.language,
        };
        if (Object.values(typed).every((v) => v === undefined)) {
          out(
            'Name at least one setting: --model, --fallbacks, --instructions, --toolsets, --reply-mode or --language.',
          );
          return 2;
        }
        const parsed = patchFromWords(typed);
        if (!parsed.ok) {
          out(`Cannot set the settings of channel ${channelId}: ${parsed.error}.`);
          return 2;
        }
        const [row] = await port.admin(
          'set_channel_settings',
          { tenant: slug, channel_id: channelId, settings: parsed.patch },
          channelSettingsListRow,
        );
        out(`Tenant ${slug}, channel ${channelId}: ${settingsLine(row?.settings ?? {})}`);
        out(SEEN_WITHIN);
        return 0;
      }
      case 'clear': {
        if (!slug || !channelId) return 2;
        const [row] = await port.admin(
          'clear_channel_settings',
          { tenant: slug, channel_id: channelId },
          channelClearedRow,
        );
        out(
          row?.cleared
            ? `Tenant ${slug}, channel ${channelId}: its settings are cleared; the tenant's apply. ${SEEN_WITHIN}`
            : `Tenant ${slug}, channel ${channelId} had no settings of its own.`,
        );
        return 0;
      }
      case 'list': {
        if (channelId) return 2;
        const rows = await port.admin('list_channel_settings', { tenant: slug ?? null }, channelSettingsListRow);
        if (rows.length === 0) {
          out(slug ? `Tenant ${slug} has no channel with settings of its own.` : 'No channel has settings of its own.');
          return 0;
        }
        for (const r of rows) out(`${r.tenant}  ${r.channel_id}  ${settingsLine(r.settings)}`);
        return 0;
      }
      case 'show': {
        if (!slug || !channelId) return 2;
        const tenant = await port.tenantBySlug(slug);
        if (!tenant) {
          out(`Error: unknown tenant ${slug}.`);
          return 1;
        }
        const rows = await port.admin('list_channel_settings', { tenant: slug }, channelSettingsListRow);
        const own = rows.find((r) => r.channel_id === channelId);
        const applied = appliedSettings(tenant, readChannelSettings(own?.settings), 'OPENAI_MODEL');
        out(`Tenant ${slug}, channel ${channelId} (channel over tenant over the deployment's defaults):`);
        for (const line of describeApplied(applied)) out(`  ${line.label.padEnd(12)} ${line.value}  (${line.from})`);
        return 0;
      }
      default:
        return 2;
    }
  } catch (err) {
    // An unknown tenant: the database's own words.
    if (err instanceof DataError && err.detail) {
      out(`Error: ${err.detail}`);
      return 1;
    }
    throw err;
  }
}
