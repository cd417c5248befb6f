import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Logger } from '../telemetry/logger.js';
import type { OAuthGrant, OAuthRecord, OAuthStore } from './oauth-store.js';
import { isSdkError, mcpSdk } from './sdk.js';
import type { McpServer } from './store.js';

/**
 * This process's view of the MCP servers' OAuth grants (src/mcp/oauth.ts): each grant read from
 * its row at most every GRANT_MEMO_MS (another replica may have refreshed it), refreshed once at
 * a time when its access token has less than REFRESH_MARGIN_MS left, and marked lost (expired or
 * revoked: the console's Health page, one warn line per server per WARN_EVERY_MS) when the
 * authorization server will not refresh it.
 */

/** An access token is refreshed when it has less than this left. */
export const REFRESH_MARGIN_MS = 60_000;
/** At most one warn line per server in this long (the status on the Health page stays). */
const WARN_EVERY_MS = 10 * 60_000;
/** How long this process reuses its read of a grant before reading the row again. */
const GRANT_MEMO_MS = 5_000;

/** The grant's tokens and when the access token expires. */
export function withTokens(grant: OAuthGrant, tokens: OAuthTokens, now: number): OAuthGrant {
  const { expiresAt: _old, ...rest } = grant;
  return {
    ...rest,
    tokens,
    ...(tokens.expires_in !== undefined ? { expiresAt: now + tokens.expires_in * 1000 } : {}),
  };
}

export function createGrants(deps: { store: OAuthStore; fetch: typeof fetch; log: Logger; now: () => number }) {
  const { store, log, now } = deps;
  const warnedAt = new Map<string, number>();
  /** This process's copy of each grant (re-read after GRANT_MEMO_MS), shared by a server's providers and the hub's check. */
  const grants = new Map<string, { record: OAuthRecord; readAt: number }>();
  /** One refresh at a time per server in this process. */
  const refreshing = new Map<string, Promise<OAuthRecord>>();
  const remember = (record: OAuthRecord) => {
    grants.set(record.serverId, { record, readAt: now() });
    return record;
  };
  const load = async (server: McpServer, maxAgeMs = GRANT_MEMO_MS): Promise<OAuthRecord> => {
    const held = grants.get(server.id);
    if (held && now() - held.readAt < maxAgeMs) return held.record;
    return remember(await store.get(server.tenantId, server.id));
  };
  const put = async (record: OAuthRecord) => remember(await store.put(record));
  const clientOf = (record: OAuthRecord): OAuthClientInformationMixed | undefined =>
    record.grant.client ?? (record.clientId ? { client_id: record.clientId } : undefined);
  const nearExpiry = (record: OAuthRecord) =>
    record.grant.expiresAt !== undefined && record.grant.expiresAt - now() <= REFRESH_MARGIN_MS;

  /**
   * The grant with an access token that has more than REFRESH_MARGIN_MS left, refreshed now if
   * needed (once per server at a time): what every turn's use of the server goes through. A grant
   * the authorization server refuses to refresh is lost (marked, one warn line).
   */
  async function fresh(server: McpServer): Promise<OAuthRecord> {
    let record = await load(server);
    if (record.status !== 'connected' || !record.grant.tokens || !nearExpiry(record)) return record;
    // Another replica may have refreshed it already.
    record = await load(server, 0);
    if (!nearExpiry(record)) return record;
    const running = refreshing.get(server.id);
    if (running) return running;
    const job = refreshNow(server, record).finally(() => refreshing.delete(server.id));
    refreshing.set(server.id, job);
    return job;
  }

  async function refreshNow(server: McpServer, record: OAuthRecord): Promise<OAuthRecord> {
    const { tokens, discovery, expiresAt } = record.grant;
    const client = clientOf(record);
    if (!tokens?.refresh_token || !discovery || !client) {
      if (expiresAt !== undefined && expiresAt <= now())
        return markLost(
          server,
          tokens?.access_token,
          'expired',
          'the access token expired and there is no refresh token',
        );
      return record;
    }
    try {
      const { refreshAuthorization } = await mcpSdk();
      const next = await refreshAuthorization(discovery.authorizationServerUrl, {
        ...(discovery.authorizationServerMetadata ? { metadata: discovery.authorizationServerMetadata } : {}),
        clientInformation: client,
        refreshToken: tokens.refresh_token,
        ...(discovery.resourceMetadata?.resource ? { resource: new URL(discovery.resourceMetadata.resource) } : {}),
        fetchFn: deps.fetch,
      });
      // A refresh answer without a refresh token keeps the one we have (RFC 6749 §6).
      const kept: OAuthTokens = { ...next, refresh_token: next.refresh_token ?? tokens.refresh_token };
      if (tokens.issuer !== undefined) (kept as OAuthTokens & { issuer?: unknown }).issuer = tokens.issuer;
      log.debug({ tenant: server.tenantId, mcpServer: server.name }, 'refreshed an MCP server’s access token');
      return await put({
        ...record,
        grant: withTokens(record.grant, kept, now()),
        status: 'connected',
        statusDetail: null,
      });
    } catch (err) {
      if (
        isSdkError(err, 'InvalidGrantError') ||
        isSdkError(err, 'InvalidClientError') ||
        isSdkError(err, 'UnauthorizedClientError')
      )
        return markLost(
          server,
          tokens.access_token,
          'revoked',
          `the authorization server refused to refresh it (${err.errorCode})`,
        );
      // Unreachable for now: the current token serves while it lasts; past it, the server is left out this time.
      log.debug(
        { err, tenant: server.tenantId, mcpServer: server.name },
        'could not refresh an MCP server’s access token',
      );
      return record;
    }
  }

  /** A grant that stopped working: marked for the console, one warn line per server per WARN_EVERY_MS. */
  async function markLost(
    server: McpServer,
    lostAccessToken: string | undefined,
    status: 'expired' | 'revoked',
    detail: string,
  ): Promise<OAuthRecord> {
    let current = await load(server, 0);
    // Another replica connected or refreshed meanwhile: its grant stands.
    if (current.status === 'connected' && current.grant.tokens?.access_token !== lostAccessToken) return current;
    if (current.status !== status) {
      const { tokens: _t, expiresAt: _e, ...kept } = current.grant;
      current = await put({ ...current, grant: kept, status, statusDetail: detail }).catch((err: unknown) => {
        log.warn(
          { err, tenant: server.tenantId, mcpServer: server.name },
          'could not record an MCP server’s lost OAuth grant',
        );
        return current;
      });
    }
    const last = warnedAt.get(server.id) ?? -Infinity;
    if (now() - last < WARN_EVERY_MS) return current;
    warnedAt.set(server.id, now());
    log.warn(
      { tenant: server.tenantId, mcpServer: server.name, code: `oauth_${status}` },
      `MCP server's OAuth grant is ${status} (${detail}): its tools are left out until an operator connects it again from the console`,
    );
    return current;
  }

  return {
    load,
    put,
    fresh,
    markLost,
    clientOf,
    /** Forgets this process's copy (a consent wrote the row) and the warn line's pause. */
    forget(serverId: string) {
      grants.delete(serverId);
      warnedAt.delete(serverId);
    },
    /** This process's copy of a server's grant, if any. */
    held: (serverId: string) => grants.get(serverId)?.record,
  };
}
export type Grants = ReturnType<typeof createGrants>;
