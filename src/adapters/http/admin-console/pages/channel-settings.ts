import { html } from 'hono/html';
import type { z } from 'zod';
import { readChannelSettings } from '../../../../contract/channel-settings.js';
import { TOOL_FAMILIES } from '../../../../contract/toolsets.js';
import type { channelSettingsListRow } from '../../../../data/rows.js';
import { utcMinute } from '../format.js';
import type { Html } from '../layout.js';
import { csrfField, hidden, muted, select } from '../parts.js';
import { table } from '../table.js';

type ChannelRow = z.infer<typeof channelSettingsListRow>;

/** One stored setting in words; an unset one is the tenant's. */
function settingCell(
  row: ChannelRow,
  key: 'model' | 'instructions' | 'tools' | 'reply_mode' | 'language' | 'model_fallbacks',
): Html | string {
  const s = readChannelSettings(row.settings);
  const v = s[key];
  if (v === undefined) return muted('tenant’s');
  if (key === 'tools') return (v as string[]).join(', ') || 'none';
  if (key === 'model_fallbacks') return (v as { model: string }[]).map((e) => e.model).join(', ') || 'none';
  if (key === 'instructions') {
    const text = v as string;
    return html`<span title="${text}">${text.length > 80 ? `${text.slice(0, 79)}…` : text}</span>`;
  }
  return String(v);
}

/**
 * The tenants page's section on settings per channel (issue 46): each channel with settings of
 * its own (anything unset is the tenant's), each clearable, and a form that sets some for a channel.
 */
export function channelSettingsSection(opts: { csrf: string; rows: ChannelRow[]; tenants: string[] }): Html {
  const { csrf } = opts;
  const input = (id: string, name: string, label: string, extra = '') =>
    html`<label for="${id}">${label} <input id="${id}" name="${name}" ${extra} /></label>`;
  return html`<h2 id="channels">Settings per channel</h2>
    <p class="muted">
      A Slack channel, a Discord channel or a Discord category may have its own model, instructions, tools, reply mode
      (<code>all</code>: every top-level message is answered) and language. Channel over tenant over the defaults;
      <code>default</code> in a field clears that setting. Also
      <code>npm run tenants -- channel set &lt;tenant&gt; &lt;channel&gt; …</code> or the admin API.
    </p>
    ${table({
      columns: [
        { label: 'Tenant', cell: (r) => r.tenant },
        { label: 'Channel', rowHeader: true, cell: (r) => html`<code>${r.channel_id}</code>` },
        { label: 'Model', cell: (r) => settingCell(r, 'model') },
        { label: 'Fallbacks', cell: (r) => settingCell(r, 'model_fallbacks') },
        { label: 'Instructions', cell: (r) => settingCell(r, 'instructions') },
        { label: 'Tools', cell: (r) => settingCell(r, 'tools') },
        { label: 'Reply mode', cell: (r) => settingCell(r, 'reply_mode') },
        { label: 'Language', cell: (r) => settingCell(r, 'language') },
        { label: 'Changed (UTC)', cell: (r) => utcMinute(r.updated_at) },
        {
          label: 'Clear',
          cell: (r) =>
            html`<form class="inline" method="post" action="/admin/channels/clear">
              ${csrfField(csrf)}${hidden('tenant', r.tenant)}${hidden('channel', r.channel_id)}
              <button type="submit" class="danger" aria-label="Clear the settings of channel ${r.channel_id}">
                Clear
              </button>
            </form>`,
        },
      ],
      rows: opts.rows,
      empty: 'No channel has settings of its own.',
      rowKey: { attribute: 'data-channel', of: (r) => `${r.tenant}:${r.channel_id}` },
    })}
    <h3>Set a channel’s settings</h3>
    <form class="filters" method="post" action="/admin/channels">
      ${csrfField(csrf)} ${select({ id: 'ch-tenant', name: 'tenant', label: 'Tenant', values: opts.tenants })}
      ${input('ch-channel', 'channel', 'Channel id', 'required maxlength="64" pattern="[A-Za-z0-9_-]+"')}
      ${input('ch-model', 'model', 'Model', 'maxlength="200"')}
      ${input('ch-fallbacks', 'fallbacks', 'Fallbacks (JSON)', 'maxlength="4000"')}
      ${input('ch-instructions', 'instructions', 'Instructions', 'maxlength="2000"')}
      ${input('ch-tools', 'toolsets', `Tools (${TOOL_FAMILIES.join(', ')}, none)`, 'maxlength="200"')}
      ${select({ id: 'ch-reply', name: 'reply_mode', label: 'Reply mode', values: ['mention', 'all', 'default'], all: true })}
      ${input('ch-language', 'language', 'Language', 'maxlength="35"')}
      <button type="submit" class="primary">Save</button>
    </form>`;
}
