import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { AdminDataPort } from '../data/rpc-port.js';
import { mcpOAuthOverviewRow, mcpOAuthRow, type McpOAuthOverviewRow, type McpOAuthRow } from '../data/rows.js';
import type { Sealer } from '../security/sealer.js';
import { McpStoreError } from './store.js';

/**
 * The OAuth state of a tenant's MCP server (issue 44, item 2), in `mcp_oauth` (tenant-scoped SQL
 * functions). What is secret (the registration, the tokens, a consent's PKCE verifier) is sealed
 * before it reaches SQL, bound to the tenant and the server; the status and the access token's
 * expiry are plain, for the console.
 */

export type GrantStatus = McpOAuthRow['status'];

/** What the SDK hands the provider to keep, kept as it was handed (its `issuer` stamps included). */
export interface OAuthGrant {
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  /** When the access token expires (ms since the epoch), from `expires_in` when it was saved. */
  expiresAt?: number;
  discovery?: OAuthDiscoveryState;
}

/** A consent in progress: started by an operator's `Connect`, finished by the callback. */
export interface PendingConsent {
  /** SHA-256 of the `state` parameter (the state itself travels only through the browser). */
  stateHash: string;
  /** SHA-256 of the flow cookie's nonce: the browser that started the consent must finish it. */
  binding: string;
  verifier?: string;
  /** The redirect URL the consent was started with (the token request repeats it). */
  redirectUrl: string;
  startedAt: number;
}

export interface OAuthRecord {
  tenantId: string;
  serverId: string;
  /** A client id the operator configured (the authorization server offers no registration). */
  clientId: string | null;
  grant: OAuthGrant;
  pending?: PendingConsent;
  status: GrantStatus;
  statusDetail: string | null;
  /** The sealed values did not open (a changed key): the server must be connected again. */
  unreadable?: boolean;
}

export interface OAuthStore {
  /** The server's record; a fresh `not_connected` one when it has none. */
  get(tenantId: string, serverId: string): Promise<OAuthRecord>;
  put(record: OAuthRecord): Promise<OAuthRecord>;
  /** Every OAuth server's status (no secrets): the console. */
  overview(): Promise<McpOAuthOverviewRow[]>;
}

const aad = (tenantId: string, serverId: string, what: 'grant' | 'pending') =>
  `mcp:oauth:${what}:${tenantId}:${serverId}`;

export function createOAuthStore(port: AdminDataPort, sealer: Sealer | undefined): OAuthStore {
  const needKey = () =>
    new McpStoreError(
      'OAuth tokens are stored encrypted: set MCP_SECRET_KEY (openssl rand -hex 32) before connecting a server',
    );
  const open = <T>(sealed: string | null, key: string): { value?: T; unreadable?: boolean } => {
    if (!sealed) return {};
    try {
      if (!sealer) throw needKey();
      return { value: JSON.parse(sealer.open(sealed, key)) as T };
    } catch {
      return { unreadable: true };
    }
  };
  const toRecord = (row: McpOAuthRow): OAuthRecord => {
    const grant = open<OAuthGrant>(row.state_sealed, aad(row.tenant_id, row.server_id, 'grant'));
    const pending = open<PendingConsent>(row.pending_sealed, aad(row.tenant_id, row.server_id, 'pending'));
    return {
      tenantId: row.tenant_id,
      serverId: row.server_id,
      clientId: row.client_id,
      grant: grant.value ?? {},
      ...(pending.value ? { pending: pending.value } : {}),
      status: row.status,
      statusDetail: row.status_detail,
      ...(grant.unreadable ? { unreadable: true } : {}),
    };
  };
  return {
    async get(tenantId, serverId) {
      const [row] = await port.admin('mcp_oauth_get', { tenant_id: tenantId, server_id: serverId }, mcpOAuthRow);
      return row
        ? toRecord(row)
        : { tenantId, serverId, clientId: null, grant: {}, status: 'not_connected', statusDetail: null };
    },
    async put(record) {
      const hasGrant = Object.keys(record.grant).length > 0;
      if ((hasGrant || record.pending) && !sealer) throw needKey();
      const seal = (value: unknown, what: 'grant' | 'pending') =>
        sealer!.seal(JSON.stringify(value), aad(record.tenantId, record.serverId, what));
      const [row] = await port.admin(
        'mcp_oauth_put',
        {
          tenant_id: record.tenantId,
          server_id: record.serverId,
          client_id: record.clientId,
          state_sealed: hasGrant ? seal(record.grant, 'grant') : null,
          pending_sealed: record.pending ? seal(record.pending, 'pending') : null,
          status: record.status,
          status_detail: record.statusDetail,
          expires_at: record.grant.expiresAt !== undefined ? new Date(record.grant.expiresAt).toISOString() : null,
        },
        mcpOAuthRow,
      );
      if (!row) throw new McpStoreError('the OAuth grant was not saved');
      return toRecord(row);
    },
    overview() {
      return port.admin('mcp_oauth_overview', {}, mcpOAuthOverviewRow);
    },
  };
}
