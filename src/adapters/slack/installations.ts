import type { Installation, InstallationQuery, InstallationStore } from '@slack/oauth';
import { LRUCache } from 'lru-cache';
import type { Config } from '../../config/index.js';
import type { AdminDataPort } from '../../data/rpc-port.js';
import { installationKeyRow, installationSecretRow, savedInstallationRow } from '../../data/rows.js';
import type { Logger } from '../../telemetry/logger.js';
import { createSealer } from '../../security/sealer.js';

/** What storing an installation settled: its workspace and tenant (null while an admin has to approve it). */
export interface InstallOutcome {
  workspaceId: string;
  teamName?: string;
  tenantSlug: string | null;
  pending: boolean;
}

export interface SlackInstallationStore extends InstallationStore {
  /** The outcome of the last store of this installation (for the success page), once. */
  takeOutcome(installation: Installation<'v1' | 'v2', boolean>): InstallOutcome | undefined;
}

/** How long a replica keeps a decrypted installation before reading it again. */
const CACHE_MS = 30_000;

/** `E:<enterprise>` for an org-wide install, `T:<team>` for any other (Bolt's lookup rule). */
export function installationKey(q: { teamId?: string; enterpriseId?: string; isEnterpriseInstall?: boolean }): string {
  if (q.isEnterpriseInstall && q.enterpriseId) return `E:${q.enterpriseId}`;
  if (q.teamId) return `T:${q.teamId}`;
  if (q.enterpriseId) return `E:${q.enterpriseId}`;
  throw new Error('an installation query needs a team or an enterprise id');
}

// The sealing moved to src/security/sealer.ts (MCP servers' headers use it too).
export { createSealer };

/**
 * @slack/oauth's InstallationStore over the data port: installations are rows of
 * `slack_installations`, their tokens sealed with SLACK_TOKEN_ENCRYPTION_KEY before they leave
 * the process (the database, its backups and its logs never see one). Storing one also maps its
 * workspace to a tenant (TENANT_MODE=open: the default tenant; strict: a request an admin
 * approves with `npm run tenants`). Reads are cached for 30 s per replica.
 */
export function createInstallationStore(
  port: AdminDataPort,
  config: Pick<Config, 'SLACK_TOKEN_ENCRYPTION_KEY' | 'TENANT_MODE'>,
  log: Logger,
): SlackInstallationStore {
  const sealer = createSealer(config.SLACK_TOKEN_ENCRYPTION_KEY ?? '');
  const cache = new LRUCache<string, Installation<'v1' | 'v2', boolean>>({ max: 10_000, ttl: CACHE_MS });
  const outcomes = new LRUCache<string, InstallOutcome>({ max: 1_000, ttl: 60_000 });
  const keyOf = (i: Installation<'v1' | 'v2', boolean>) =>
    installationKey({ teamId: i.team?.id, enterpriseId: i.enterprise?.id, isEnterpriseInstall: i.isEnterpriseInstall });

  return {
    async storeInstallation(installation) {
      const key = keyOf(installation);
      const [saved] = await port.admin(
        'slack_save_installation',
        {
          installation_key: key,
          team_id: installation.team?.id ?? null,
          team_name: installation.team?.name ?? installation.enterprise?.name ?? null,
          enterprise_id: installation.enterprise?.id ?? null,
          is_enterprise_install: installation.isEnterpriseInstall ?? false,
          app_id: installation.appId ?? null,
          bot_user_id: installation.bot?.userId ?? null,
          bot_scopes: installation.bot?.scopes ?? [],
          installer_user_id: installation.user.id,
          secret: sealer.seal(JSON.stringify(installation), key),
          tenant_mode: config.TENANT_MODE,
        },
        savedInstallationRow,
      );
      cache.delete(key);
      if (!saved) throw new Error('the installation was not stored');
      const outcome: InstallOutcome = {
        workspaceId: saved.workspace_id,
        teamName: installation.team?.name ?? installation.enterprise?.name,
        tenantSlug: saved.tenant_slug,
        pending: saved.pending,
      };
      outcomes.set(key, outcome);
      log.info(
        {
          installation: key,
          enterprise: installation.isEnterpriseInstall ?? false,
          tenant: saved.tenant_slug,
          pending: saved.pending,
          scopes: installation.bot?.scopes?.length ?? 0,
        },
        'slack installation stored',
      );
    },

    async fetchInstallation(query: InstallationQuery<boolean>) {
      const key = installationKey(query);
      const hit = cache.get(key);
      if (hit) return hit;
      const [row] = await port.admin('slack_get_installation', { installation_key: key }, installationSecretRow);
      if (!row) throw new Error(`no Slack installation for ${key}`);
      let installation: Installation<'v1' | 'v2', boolean>;
      try {
        installation = JSON.parse(sealer.open(row.secret, key)) as Installation<'v1' | 'v2', boolean>;
      } catch (err) {
        // A wrong or rotated key: say which setting, never the secret.
        log.error(
          { installation: key, problem: err instanceof Error ? err.message : String(err) },
          'slack installation could not be decrypted: check SLACK_TOKEN_ENCRYPTION_KEY',
        );
        throw new Error(`the Slack installation ${key} could not be decrypted`);
      }
      cache.set(key, installation);
      return installation;
    },

    async deleteInstallation(query: InstallationQuery<boolean>) {
      const key = installationKey(query);
      cache.delete(key);
      const rows = await port.admin('slack_delete_installation', { installation_key: key }, installationKeyRow);
      log.info({ installation: key, deleted: rows.length }, 'slack installation removed');
    },

    takeOutcome(installation) {
      const key = keyOf(installation);
      const outcome = outcomes.get(key);
      outcomes.delete(key);
      return outcome;
    },
  };
}
