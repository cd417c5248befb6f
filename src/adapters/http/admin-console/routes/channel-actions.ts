import type { Context, Hono } from 'hono';
import { patchFromWords } from '../../../../contract/channel-settings.js';
import { DataError } from '../../../../contract/data.js';
import { sharedChannelSettings } from '../../../../data/channel-settings.js';
import { channelClearedRow, channelSettingsListRow } from '../../../../data/rows.js';
import type { ConsoleContext } from '../context.js';
import { guarded } from './respond.js';
import { tenantsView } from './tenants-view.js';

const CHANNEL_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A field of the posted form (parsed, its CSRF token checked, by the guard), trimmed. */
const field = (c: Context, name: string): string => {
  const v = (c.get('consoleForm') as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v.trim() : '';
};

/**
 * The tenants page's forms for settings per channel (issue 46), behind the guard (a live session
 * and its CSRF token):
 *
 *   POST /admin/channels         sets the fields filled in (`default` clears one) → /admin/tenants?notice=channel-saved#channels
 *   POST /admin/channels/clear   drops a channel's settings                      → /admin/tenants?notice=channel-cleared#channels
 *
 * This replica sees a change at once; the others within 10 s.
 */
export function mountChannelActions(app: Hono, ctx: ConsoleContext): void {
  const { log } = ctx;
  const refused = (c: Context, p: Parameters<typeof tenantsView>[2], text: string) =>
    tenantsView(ctx, c, p, { notice: { text, error: true } }, 400);

  app.post(
    '/admin/channels',
    guarded(ctx, 'tenants', 'Tenants', async (c, p) => {
      const tenant = field(c, 'tenant');
      const channel = field(c, 'channel');
      if (!CHANNEL_ID.test(channel)) return refused(c, p, 'Channel id: expected a Slack or Discord channel id.');
      const parsed = patchFromWords({
        model: field(c, 'model'),
        fallbacks: field(c, 'fallbacks'),
        instructions: field(c, 'instructions'),
        toolsets: field(c, 'toolsets'),
        replyMode: field(c, 'reply_mode'),
        language: field(c, 'language'),
      });
      if (!parsed.ok) return refused(c, p, `Cannot save the settings of channel ${channel}: ${parsed.error}.`);
      if (Object.keys(parsed.patch).length === 0) return refused(c, p, 'Fill in at least one setting.');
      try {
        await p.admin(
          'set_channel_settings',
          { tenant, channel_id: channel, settings: parsed.patch },
          channelSettingsListRow,
        );
      } catch (err) {
        if (err instanceof DataError && err.detail) return refused(c, p, err.detail);
        throw err;
      }
      sharedChannelSettings(p).forget();
      log.info({ tenant, channel, keys: Object.keys(parsed.patch) }, 'console: set a channel’s settings');
      return c.redirect('/admin/tenants?notice=channel-saved#channels', 303);
    }),
  );

  app.post(
    '/admin/channels/clear',
    guarded(ctx, 'tenants', 'Tenants', async (c, p) => {
      const tenant = field(c, 'tenant');
      const channel = field(c, 'channel');
      try {
        await p.admin('clear_channel_settings', { tenant, channel_id: channel }, channelClearedRow);
      } catch (err) {
        if (err instanceof DataError && err.detail) return refused(c, p, err.detail);
        throw err;
      }
      sharedChannelSettings(p).forget();
      log.info({ tenant, channel }, 'console: cleared a channel’s settings');
      return c.redirect('/admin/tenants?notice=channel-cleared#channels', 303);
    }),
  );
}
