import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/**
 * A loopback OAuth 2.1 authorization server and the MCP server it protects, on one port, as the
 * MCP authorization spec has them (issue 44, item 2): the MCP endpoint answers 401 with
 * `WWW-Authenticate: Bearer resource_metadata=…` without a good token; protected-resource
 * metadata (RFC 9728) names the authorization server; its metadata (RFC 8414) lists the
 * endpoints; dynamic client registration (RFC 7591) when `registration` is on; the authorization
 * endpoint approves at once (no person: it redirects back with a code, as a consent would);
 * the token endpoint checks PKCE (S256), the client and the redirect URI, and rotates refresh
 * tokens. The MCP server (the SDK's, stateless) has one read-only tool, `lookup`.
 */
export interface OAuthMcpServer {
  /** The MCP endpoint a tenant registers. */
  url: string;
  /** The authorization server's base (the issuer). */
  issuer: string;
  /** Dynamic client registration offered (default true). */
  registration: boolean;
  /** Access tokens' lifetime in seconds. */
  expiresIn: number;
  registered: { client_id: string; redirect_uris: string[] }[];
  /** Authorization requests as received (their query). */
  authorizations: Record<string, string>[];
  /** Token requests by grant type, in order. */
  tokenRequests: { grant_type: string; client_id: string | undefined }[];
  /** Access tokens issued, in order. */
  issued: string[];
  /** The bearer tokens the MCP endpoint accepted, in order. */
  acceptedTokens: string[];
  /** Calls of `lookup`. */
  calls: number;
  /** Revokes every token issued so far (access and refresh). */
  revokeAll(): void;
  close(): Promise<void>;
}

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startOAuthMcpServer(
  opts: { registration?: boolean; expiresIn?: number } = {},
): Promise<OAuthMcpServer> {
  const codes = new Map<string, { clientId: string; redirectUri: string; challenge: string }>();
  const access = new Map<string, number>(); // token → expiry (ms)
  const refresh = new Map<string, string>(); // token → client id
  const state: OAuthMcpServer = {
    url: '',
    issuer: '',
    registration: opts.registration ?? true,
    expiresIn: opts.expiresIn ?? 3600,
    registered: [],
    authorizations: [],
    tokenRequests: [],
    acceptedTokens: [],
    issued: [],
    calls: 0,
    revokeAll: () => {
      access.clear();
      refresh.clear();
    },
    close: async () => {},
  };
  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  const issue = (clientId: string) => {
    const accessToken = `at_${randomBytes(16).toString('hex')}`;
    const refreshToken = `rt_${randomBytes(16).toString('hex')}`;
    access.set(accessToken, Date.now() + state.expiresIn * 1000);
    state.issued.push(accessToken);
    refresh.set(refreshToken, clientId);
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: state.expiresIn,
      refresh_token: refreshToken,
    };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', state.issuer);
    const path = url.pathname;
    if (path === '/.well-known/oauth-protected-resource/mcp' || path === '/.well-known/oauth-protected-resource')
      return json(res, 200, {
        resource: state.url,
        authorization_servers: [state.issuer],
        scopes_supported: ['tools'],
      });
    if (path === '/.well-known/oauth-authorization-server')
      return json(res, 200, {
        issuer: state.issuer,
        authorization_endpoint: `${state.issuer}/authorize`,
        token_endpoint: `${state.issuer}/token`,
        ...(state.registration ? { registration_endpoint: `${state.issuer}/register` } : {}),
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
      });
    if (path === '/register' && req.method === 'POST' && state.registration) {
      const meta = JSON.parse(await readBody(req)) as { redirect_uris: string[] };
      const client = { client_id: `client_${randomBytes(6).toString('hex')}`, redirect_uris: meta.redirect_uris };
      state.registered.push(client);
      return json(res, 201, { ...meta, ...client, client_id_issued_at: Math.floor(Date.now() / 1000) });
    }
    if (path === '/authorize' && req.method === 'GET') {
      const q = Object.fromEntries(url.searchParams);
      state.authorizations.push(q);
      const known =
        state.registered.some((c) => c.client_id === q.client_id && c.redirect_uris.includes(q.redirect_uri ?? '')) ||
        (!state.registration && q.client_id === 'configured-client');
      if (!known || q.response_type !== 'code' || q.code_challenge_method !== 'S256' || !q.code_challenge)
        return json(res, 400, { error: 'invalid_request' });
      const code = `code_${randomBytes(12).toString('hex')}`;
      codes.set(code, { clientId: q.client_id!, redirectUri: q.redirect_uri!, challenge: q.code_challenge });
      const back = new URL(q.redirect_uri!);
      back.searchParams.set('code', code);
      if (q.state) back.searchParams.set('state', q.state);
      res.writeHead(302, { location: back.href }).end();
      return;
    }
    if (path === '/token' && req.method === 'POST') {
      const form = new URLSearchParams(await readBody(req));
      const grant = form.get('grant_type') ?? '';
      const clientId = form.get('client_id') ?? undefined;
      state.tokenRequests.push({ grant_type: grant, client_id: clientId });
      if (grant === 'authorization_code') {
        const code = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        if (
          !code ||
          code.clientId !== clientId ||
          code.redirectUri !== form.get('redirect_uri') ||
          s256(form.get('code_verifier') ?? '') !== code.challenge
        )
          return json(res, 400, {
            error: 'invalid_grant',
            error_description: 'bad code, client, redirect or verifier',
          });
        return json(res, 200, issue(code.clientId));
      }
      if (grant === 'refresh_token') {
        const token = form.get('refresh_token') ?? '';
        const owner = refresh.get(token);
        if (!owner || owner !== clientId)
          return json(res, 400, { error: 'invalid_grant', error_description: 'revoked' });
        refresh.delete(token); // rotated
        return json(res, 200, issue(owner));
      }
      return json(res, 400, { error: 'unsupported_grant_type' });
    }
    if (path === '/mcp') {
      const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
      const expiry = bearer ? access.get(bearer) : undefined;
      if (!bearer || expiry === undefined || expiry <= Date.now())
        return json(
          res,
          401,
          { error: 'invalid_token' },
          {
            'www-authenticate': `Bearer error="invalid_token", resource_metadata="${state.issuer}/.well-known/oauth-protected-resource/mcp"`,
          },
        );
      state.acceptedTokens.push(bearer);
      const mcp = new McpServer({ name: 'oauth-crm', version: '1.0.0' }, { capabilities: { tools: {} } });
      mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({
        tools: [
          {
            name: 'lookup',
            description: 'Look up an account by id.',
            inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
            annotations: { readOnlyHint: true },
          },
        ],
      }));
      mcp.server.setRequestHandler(CallToolRequestSchema, (request) => {
        state.calls++;
        return {
          content: [{ type: 'text', text: `Account ${String(request.params.arguments?.id)}: Acme, renewal due.` }],
        };
      });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await mcp.connect(transport);
      res.on('close', () => void mcp.close());
      await transport.handleRequest(req, res);
      return;
    }
    json(res, 404, { error: 'not_found' });
  };

  const http = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end('test server error');
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  state.issuer = `http://127.0.0.1:${port}`;
  state.url = `${state.issuer}/mcp`;
  state.close = async () => {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
  return state;
}
