import { LRUCache } from 'lru-cache';
import { mergeChannelSettings, readChannelSettings, type ChannelSettings } from '../contract/channel-settings.js';
import { DataError, type DataPort, type Tenant } from '../contract/data.js';
import { isConnectionError } from '../contract/infra-errors.js';
import type { Logger } from '../telemetry/logger.js';
import { channelSettingsRow } from './rows.js';

/**
 * A channel's settings (issue 46), read through the tenant's port and cached like tenants: for
 * `ttlMs` (10 s, as the port's tenant lookups), so a turn pays one Map lookup; a change made on
 * this replica is seen at once (`forget`), on others within the TTL. While the database cannot be
 * reached, the last answer is served until `staleMs` after it was read.
 */
export interface ChannelSettingsLookup {
  /** The channel's settings over its parent's (a Discord category); `{}` when neither has any. */
  get(tenant: Pick<Tenant, 'id'>, channelId: string, parentId?: string): Promise<ChannelSettings>;
  /** Forgets every cached answer (this replica sees a change at once). */
  forget(): void;
}

export interface ChannelSettingsOptions {
  ttlMs?: number;
  staleMs?: number;
  log?: Logger;
}

export function createChannelSettingsLookup(data: DataPort, opts: ChannelSettingsOptions = {}): ChannelSettingsLookup {
  const ttlMs = opts.ttlMs ?? 10_000;
  const staleMs = Math.max(ttlMs, opts.staleMs ?? 600_000);
  const cache = new LRUCache<string, { at: number; value: Promise<ChannelSettings> }>({ max: 10_000 });
  let missingSaid = false;

  const load = async (tenant: Pick<Tenant, 'id'>, channelId: string, parentId?: string): Promise<ChannelSettings> => {
    const ids = parentId && parentId !== channelId ? [channelId, parentId] : [channelId];
    try {
      const rows = await data.forTenant(tenant).call('channel_settings_for', { channel_ids: ids }, channelSettingsRow);
      const own = rows.find((r) => r.channel_id === channelId);
      const parent = rows.find((r) => r.channel_id === parentId);
      return mergeChannelSettings(
        readChannelSettings(own?.settings),
        parent && parentId !== channelId ? readChannelSettings(parent.settings) : undefined,
      );
    } catch (err) {
      // A database without the table yet (a replica ahead of the migration): the tenant's settings apply.
      if (err instanceof DataError && err.code === 'not_migrated') {
        if (!missingSaid) opts.log?.warn({ err }, 'channel settings are not migrated yet: tenant settings apply');
        missingSaid = true;
        return {};
      }
      throw err;
    }
  };

  return {
    async get(tenant, channelId, parentId) {
      const key = `${tenant.id}\n${channelId}\n${parentId ?? ''}`;
      const hit = cache.get(key);
      const age = hit ? performance.now() - hit.at : Infinity;
      if (hit && age < ttlMs) return hit.value;
      const value = load(tenant, channelId, parentId);
      if (ttlMs > 0) cache.set(key, { at: performance.now(), value });
      try {
        return await value;
      } catch (err) {
        if (cache.get(key)?.value === value) {
          if (hit) cache.set(key, hit);
          else cache.delete(key);
        }
        if (hit && age < staleMs && isConnectionError(err)) {
          opts.log?.debug(
            { ageMs: Math.round(age) },
            'channel settings served from cache: the database is unreachable',
          );
          return hit.value;
        }
        throw err;
      }
    },
    forget() {
      cache.clear();
    },
  };
}

const shared = new WeakMap<DataPort, ChannelSettingsLookup>();

/**
 * The one lookup of a data port, made at its first use: the agent, the adapters and the admin
 * routes (whose changes `forget` it) share its cache without being handed it.
 */
export function sharedChannelSettings(data: DataPort, opts: ChannelSettingsOptions = {}): ChannelSettingsLookup {
  let lookup = shared.get(data);
  if (!lookup) shared.set(data, (lookup = createChannelSettingsLookup(data, opts)));
  return lookup;
}
