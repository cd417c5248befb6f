import type { Context, Hono } from 'hono';
import { channelSettingsPatchSchema, readChannelSettings } from '../../contract/channel-settings.js';
import { DataError } from '../../contract/data.js';
import { sharedChannelSettings } from '../../data/channel-settings.js';
import type { AdminDataPort } from '../../data/rpc-port.js';
import { channelClearedRow, channelSettingsListRow } from '../../data/rows.js';
import type { Logger } from '../../telemetry/logger.js';

/**
 * Settings per channel on the admin API (issue 46; behind ADMIN_TOKEN, mounted by `mountAdmin`):
 *
 *   GET    /tts_admin/tenants/{slug}/channels                → { status: "ok", tenant, channels: [{ channelId, settings, updatedAt }] }
 *   GET    /tts_admin/tenants/{slug}/channels/{channel}      → { status: "ok", tenant, channelId, settings }  ({} when none)
 *   PATCH  /tts_admin/tenants/{slug}/channels/{channel}      { model?, model_fallbacks?, instructions?, tools?, reply_mode?, language? }
 *                                                            each null clears it (back to the tenant's) → { status: "ok", tenant, channelId, settings }
 *   DELETE /tts_admin/tenants/{slug}/channels/{channel}      → { status: "ok", tenant, channelId, cleared }
 *
 * `{channel}` is a Slack channel id (`C…`, `G…`), a Discord channel or category id. A change is
 * seen at once by this replica, by the others within 10 s (the channel cache's TTL, as tenants).
 */
const CHANNEL_ID = /^[A-Za-z0-9_-]{1,64}$/;

type Status = 400 | 404 | 503;
const fail = (c: Context, status: Status, code: string, message: string) =>
  c.json({ status: 'error', error: { code, message } }, status);

export function mountChannelAdmin(app: Hono, base: string, port: AdminDataPort, log: Logger): void {
  const path = `${base}/tenants/:slug/channels`;
  const forget = () => sharedChannelSettings(port).forget();

  /** The channel in the path, or a 400. */
  const channelOf = (c: Context): string | Response => {
    const id = c.req.param('channel') ?? '';
    return CHANNEL_ID.test(id)
      ? id
      : fail(c, 400, 'validation_failed', 'channel: expected a Slack or Discord channel id');
  };
  const handle = (fn: (c: Context, slug: string) => Promise<Response>) => async (c: Context) => {
    const slug = c.req.param('slug') ?? '';
    try {
      return await fn(c, slug);
    } catch (err) {
      if (err instanceof DataError && err.detail?.startsWith('unknown tenant'))
        return fail(c, 404, 'not_found', `No tenant ${slug}.`);
      log.error({ err, path: c.req.path }, 'admin request failed');
      return fail(c, 503, 'unavailable', 'The database could not complete that. It has been logged.');
    }
  };
  const list = async (slug: string) => {
    if (!(await port.tenantBySlug(slug))) return undefined;
    return port.admin('list_channel_settings', { tenant: slug }, channelSettingsListRow);
  };

  app.get(
    path,
    handle(async (c, slug) => {
      const rows = await list(slug);
      if (!rows) return fail(c, 404, 'not_found', `No tenant ${slug}.`);
      return c.json({
        status: 'ok',
        tenant: slug,
        channels: rows.map((r) => ({
          channelId: r.channel_id,
          settings: readChannelSettings(r.settings),
          updatedAt: r.updated_at,
        })),
      });
    }),
  );

  app.get(
    `${path}/:channel`,
    handle(async (c, slug) => {
      const channelId = channelOf(c);
      if (typeof channelId !== 'string') return channelId;
      const rows = await list(slug);
      if (!rows) return fail(c, 404, 'not_found', `No tenant ${slug}.`);
      const row = rows.find((r) => r.channel_id === channelId);
      return c.json({ status: 'ok', tenant: slug, channelId, settings: readChannelSettings(row?.settings) });
    }),
  );

  app.patch(
    `${path}/:channel`,
    handle(async (c, slug) => {
      const channelId = channelOf(c);
      if (typeof channelId !== 'string') return channelId;
      const parsed = channelSettingsPatchSchema.safeParse(await c.req.json().catch(() => undefined));
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return fail(c, 400, 'validation_failed', `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
      }
      const [row] = await port.admin(
        'set_channel_settings',
        { tenant: slug, channel_id: channelId, settings: parsed.data },
        channelSettingsListRow,
      );
      forget();
      log.info({ tenant: slug, channel: channelId, keys: Object.keys(parsed.data) }, 'admin set a channel’s settings');
      return c.json({ status: 'ok', tenant: slug, channelId, settings: readChannelSettings(row?.settings) });
    }),
  );

  app.delete(
    `${path}/:channel`,
    handle(async (c, slug) => {
      const channelId = channelOf(c);
      if (typeof channelId !== 'string') return channelId;
      const [row] = await port.admin(
        'clear_channel_settings',
        { tenant: slug, channel_id: channelId },
        channelClearedRow,
      );
      forget();
      log.info({ tenant: slug, channel: channelId }, 'admin cleared a channel’s settings');
      return c.json({ status: 'ok', tenant: slug, channelId, cleared: row?.cleared ?? false });
    }),
  );
}
