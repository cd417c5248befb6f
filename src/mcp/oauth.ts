import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { McpOAuthOverviewRow } from '../data/rows.js';
import type { Logger } from '../telemetry/logger.js';
import type { GrantStatus, OAuthGrant, OAuthRecord, OAuthStore, PendingConsent } from './oauth-store.js';
import type { McpServer } from './store.js';
import { createGrants, withTokens } from './oauth-grants.js';
import { isSdkError, mcpSdk } from './sdk.js';

/**
 * OAuth 2.1 for a tenant's MCP servers, as the MCP authorization spec has it (issue 44, item 2):
 * the SDK's `auth()` does the protocol (protected-resource and authorization-server metadata
 * discovery, dynamic client registration where offered, authorization code with PKCE, refresh);
 * this file is its `OAuthClientProvider`, backed by the tenant's sealed row (oauth-store.ts).
 *
 * - An operator consents from the console (`Connect`): `beginConsent` returns the authorization
 *   server's URL to send the browser to; the console's callback hands the code back to
 *   `completeConsent`, which checks the `state` and the browser's flow cookie first.
 * - A turn's connection (`providerFor`) only ever uses a grant: it refreshes the access token
 *   before it expires, and when the grant is gone (revoked, expired with nothing to refresh) it
 *   marks the server for the console's Health page, logs one warn line, and the connection fails
 *   as unauthorized, so the server's tools are left out of the turn. It never starts a consent.
 *
 * Per-user OAuth (acting as each Slack user) is out of scope: one grant per server, the tenant's.
 */

/** The console's callback path (mounted by src/adapters/http/admin-console/routes/mcp-oauth.ts). */
export const MCP_OAUTH_CALLBACK_PATH = '/admin/mcp/oauth/callback';
/** A consent must finish within this long. */
export const CONSENT_TTL_MS = 10 * 60_000;

export interface McpOAuthDeps {
  store: OAuthStore;
  /** The tenant's server rows (to find a callback's server by its id). */
  servers: { list(tenantId: string): Promise<McpServer[]> };
  /** The only way out (https, or loopback http when allowed; public addresses only). */
  fetch: typeof fetch;
  log: Logger;
  now?: () => number;
}

export class ConsentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConsentError';
  }
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');
const same = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

function clientMetadata(redirectUrl: string): OAuthClientMetadata {
  return {
    client_name: 'Switchboard',
    redirect_uris: [redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    // A public client: PKCE is what protects the code (a configured client id has no secret here either).
    token_endpoint_auth_method: 'none',
  };
}

export interface McpOAuth {
  /** The provider for a turn's connection to `server`; undefined when it has no grant (its tools are left out). */
  providerFor(server: McpServer): Promise<OAuthClientProvider | undefined>;
  /** Starts a consent: the URL to send the operator's browser to. `binding` is the hash the callback must match. */
  beginConsent(server: McpServer, opts: { redirectUrl: string; bindingNonce: string }): Promise<URL>;
  /** Finishes a consent from the callback's `state` and `code`; returns the server it connected. */
  completeConsent(opts: { state: string; code: string; bindingNonce: string | undefined }): Promise<McpServer>;
  /** Sets (or clears, with null) the client id registered by hand; the grant starts over. */
  setClientId(server: McpServer, clientId: string | null): Promise<void>;
  /** Forgets the grant (the operator disconnects the server). */
  disconnect(server: McpServer): Promise<void>;
  /**
   * Whether a turn may offer the server's tools: a connected grant whose access token is good
   * (refreshed first when it is about to expire; a refusal marks the grant lost).
   */
  usable(server: McpServer): Promise<boolean>;
  /** Every OAuth server's grant status (no secrets): the Health page. */
  overview(): Promise<McpOAuthOverviewRow[]>;
  /** The server's grant status and detail (no secrets). */
  status(server: McpServer): Promise<{ status: GrantStatus; detail: string | null; clientId: string | null }>;
}

export function createMcpOAuth(deps: McpOAuthDeps): McpOAuth {
  const { store, log } = deps;
  const now = deps.now ?? Date.now;
  const grants = createGrants({ store, fetch: deps.fetch, log, now });
  const { put, fresh, markLost, clientOf } = grants;

  /**
   * The provider for `server`. `consent` set: an operator's consent (it may register a client and
   * send the browser to the authorization server; it works on `initial`, saved as it goes); unset:
   * a turn's (it only uses the grant, through the process's shared copy, refreshed by `fresh`).
   */
  function provider(
    server: McpServer,
    initial: OAuthRecord,
    redirectUrl: string,
    consent?: { state: string; bindingNonce: string; onRedirect: (url: URL) => void; verifier?: string },
  ): OAuthClientProvider {
    let own = initial;
    const record = () => (consent ? own : (grants.held(server.id) ?? own));
    /** A turn's provider told its tokens are no good (the row keeps them until markLost decides). */
    let dropped = false;
    /** The access token this provider last handed out (a turn's): the one a refusal is about. */
    let given: string | undefined;
    const save = async (next: OAuthRecord) => {
      own = consent ? await store.put(next) : await put(next);
    };
    const clientInfo = () => clientOf(record());

    return {
      get redirectUrl() {
        return redirectUrl;
      },
      get clientMetadata() {
        return clientMetadata(redirectUrl);
      },
      state: () => consent?.state ?? randomBytes(16).toString('base64url'),
      clientInformation: clientInfo,
      async saveClientInformation(info) {
        // A consent's registration, or the SDK stamping a client (a configured id) with its issuer.
        const r = record();
        await save({ ...r, grant: { ...r.grant, client: info } });
      },
      async tokens() {
        if (consent) return own.grant.tokens;
        if (dropped) return undefined;
        // Refreshed before it expires (fresh); a lost grant has none.
        const r = await fresh(server);
        const { tokens, expiresAt } = r.grant;
        if (r.status !== 'connected' || !tokens || (expiresAt !== undefined && expiresAt <= now())) return undefined;
        given = tokens.access_token;
        return tokens;
      },
      async saveTokens(tokens) {
        const r = record();
        dropped = false;
        await save({
          ...r,
          grant: withTokens(r.grant, tokens, now()),
          status: 'connected',
          statusDetail: null,
          ...(consent ? { pending: undefined } : {}),
        });
      },
      async redirectToAuthorization(url) {
        if (consent) return consent.onRedirect(url);
        // A turn's connection would need a person: the grant is lost (the SDK then fails it as unauthorized).
        const status = record().grant.tokens?.refresh_token ? 'revoked' : 'expired';
        await markLost(server, given, status, 'the MCP server refused the token and it could not be refreshed');
      },
      async saveCodeVerifier(verifier) {
        if (!consent) return;
        const pending: PendingConsent = {
          stateHash: sha256(consent.state),
          binding: sha256(consent.bindingNonce),
          verifier,
          redirectUrl,
          startedAt: now(),
        };
        await save({ ...own, pending });
      },
      codeVerifier() {
        const verifier = consent?.verifier ?? own.pending?.verifier;
        if (!verifier) throw new ConsentError('no consent is in progress for this server');
        return verifier;
      },
      async invalidateCredentials(scope) {
        if (scope === 'verifier') return;
        // A turn never registers a client nor forgets one: it stops using its tokens, and
        // redirectToAuthorization (next, in the SDK's flow) records the grant as lost.
        if (!consent) {
          dropped = true;
          return;
        }
        const grant: OAuthGrant = { ...own.grant };
        if (scope === 'all' || scope === 'tokens') {
          delete grant.tokens;
          delete grant.expiresAt;
        }
        if (scope === 'all' || scope === 'client') delete grant.client;
        if (scope === 'all' || scope === 'discovery') delete grant.discovery;
        await save({ ...own, grant });
      },
      async saveDiscoveryState(state: OAuthDiscoveryState) {
        // A turn's discovery is the consent's, kept in the row; a turn does not write it.
        if (consent) await save({ ...own, grant: { ...own.grant, discovery: state } });
      },
      discoveryState: () => record().grant.discovery,
    };
  }

  const serverOf = async (tenantId: string, serverId: string) => {
    const server = (await deps.servers.list(tenantId)).find((s) => s.id === serverId);
    if (!server || server.authKind !== 'oauth')
      throw new ConsentError('this MCP server no longer exists or does not use OAuth');
    return server;
  };

  return {
    async providerFor(server) {
      const record = await fresh(server);
      if (record.status !== 'connected' || !record.grant.tokens || record.unreadable) return undefined;
      // A turn never sends anyone anywhere; the SDK only needs one to know the flow is a person's (not client credentials).
      const client = record.grant.client;
      const redirectUrl =
        client && 'redirect_uris' in client
          ? String(client.redirect_uris[0])
          : `http://localhost${MCP_OAUTH_CALLBACK_PATH}`;
      return provider(server, record, redirectUrl);
    },

    async beginConsent(server, { redirectUrl, bindingNonce }) {
      const current = await store.get(server.tenantId, server.id);
      // A new consent: no old tokens (auth() would refresh them instead of asking), a registration for this redirect URL.
      const client = current.grant.client;
      const keep = current.clientId
        ? client?.client_id === current.clientId
        : client !== undefined && 'redirect_uris' in client && client.redirect_uris.map(String).includes(redirectUrl);
      const record: OAuthRecord = { ...current, grant: keep && client ? { client } : {} };
      delete record.unreadable;
      const state = `${server.tenantId}.${server.id}.${randomBytes(32).toString('base64url')}`;
      let target: URL | undefined;
      const p = provider(server, record, redirectUrl, { state, bindingNonce, onRedirect: (url) => (target = url) });
      const { auth } = await mcpSdk();
      try {
        const result = await auth(p, { serverUrl: server.url, fetchFn: deps.fetch });
        if (result !== 'REDIRECT' || !target)
          throw new ConsentError('the authorization server did not ask for a consent');
      } catch (err) {
        if (err instanceof ConsentError) throw err;
        throw new ConsentError(consentProblem(err));
      }
      log.info({ tenant: server.tenantId, mcpServer: server.name, as: target.origin }, 'MCP OAuth consent started');
      return target;
    },

    async completeConsent({ state, code, bindingNonce }) {
      const [tenantId, serverId] = state.split('.', 3);
      if (!tenantId || !serverId) throw new ConsentError('this sign-in link is not one of ours');
      const server = await serverOf(tenantId, serverId);
      const record = await store.get(tenantId, serverId);
      const pending = record.pending;
      if (!pending || !same(pending.stateHash, sha256(state)))
        throw new ConsentError('this consent is unknown or was already used: press Connect again');
      if (!bindingNonce || !same(pending.binding, sha256(bindingNonce)))
        throw new ConsentError(
          'this consent was started in another browser or session: press Connect again from this one',
        );
      if (now() - pending.startedAt > CONSENT_TTL_MS)
        throw new ConsentError('this consent took too long: press Connect again');
      // One use: the pending consent goes whatever happens next.
      const used = await store.put({ ...record, pending: undefined });
      const p = provider(server, used, pending.redirectUrl, {
        state,
        bindingNonce,
        onRedirect: () => {},
        ...(pending.verifier ? { verifier: pending.verifier } : {}),
      });
      const { auth } = await mcpSdk();
      try {
        const result = await auth(p, { serverUrl: server.url, authorizationCode: code, fetchFn: deps.fetch });
        if (result !== 'AUTHORIZED') throw new ConsentError('the authorization server did not issue a token');
      } catch (err) {
        if (err instanceof ConsentError) throw err;
        throw new ConsentError(consentProblem(err));
      }
      grants.forget(server.id);
      log.info({ tenant: tenantId, mcpServer: server.name }, 'MCP server connected over OAuth');
      return server;
    },

    async setClientId(server, clientId) {
      const record = await store.get(server.tenantId, server.id);
      await put({
        ...record,
        clientId,
        grant: {},
        pending: undefined,
        status: 'not_connected',
        statusDetail: null,
      });
    },

    async disconnect(server) {
      const record = await store.get(server.tenantId, server.id);
      await put({ ...record, grant: {}, pending: undefined, status: 'not_connected', statusDetail: null });
    },

    overview: () => store.overview(),

    async usable(server) {
      const r = await fresh(server);
      const expiresAt = r.grant.expiresAt;
      return (
        r.status === 'connected' && !r.unreadable && !!r.grant.tokens && (expiresAt === undefined || expiresAt > now())
      );
    },

    async status(server) {
      const r = await store.get(server.tenantId, server.id);
      return {
        status: r.unreadable ? 'expired' : r.status,
        detail: r.unreadable ? 'the stored grant cannot be opened (was MCP_SECRET_KEY changed?)' : r.statusDetail,
        clientId: r.clientId,
      };
    },
  };
}

/** What went wrong starting or finishing a consent, for the operator (no tokens, no long bodies). */
function consentProblem(err: unknown): string {
  if (isSdkError(err, 'OAuthError'))
    return `the authorization server refused: ${err.errorCode}${err.message ? ` (${err.message.slice(0, 150)})` : ''}`;
  const message = err instanceof Error ? err.message : String(err);
  if (/dynamic registration|registration_endpoint|does not support dynamic/i.test(message))
    return 'the authorization server does not offer client registration: set a client id for this server first';
  return `could not reach the authorization server: ${message.replace(/\s+/g, ' ').slice(0, 200)}`;
}
