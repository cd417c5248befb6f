import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { BlockedAddressError } from '../net/public-fetch.js';
import { connectMcpServer, type McpConnection } from './connect.js';
import { isMcpErrorCode, isSdkError, mcpSdk } from './sdk.js';
import type { McpServer } from './store.js';

/** Supplies the OAuth client provider of an `auth_kind = 'oauth'` server (src/mcp/oauth.ts). */
export type AuthProviderFor = (
  server: McpServer,
) => OAuthClientProvider | undefined | Promise<OAuthClientProvider | undefined>;

export interface ConnectionPoolOptions {
  fetch: typeof fetch;
  connectTimeoutMs: number;
  authProviderFor?: AuthProviderFor;
  /** A server said its tools changed. */
  onToolsChanged: (server: McpServer) => void;
}

/** One live connection per server of a tenant, reused by its calls; a changed row or a closed connection starts anew. */
export function createConnectionPool(opts: ConnectionPoolOptions) {
  const conns = new Map<string, { key: string; promise: Promise<McpConnection> }>();
  const keyOf = (s: McpServer) => `${s.url}|${s.updatedAt}`;
  const drop = (id: string) => {
    const held = conns.get(id);
    conns.delete(id);
    held?.promise.then((c) => c.close()).catch(() => {});
  };
  return {
    get(server: McpServer): Promise<McpConnection> {
      const held = conns.get(server.id);
      if (held && held.key === keyOf(server)) return held.promise;
      if (held) drop(server.id);
      const promise = (async () => {
        const authProvider = server.authKind === 'oauth' ? await opts.authProviderFor?.(server) : undefined;
        if (server.authKind === 'oauth' && !authProvider) {
          const { UnauthorizedError } = await mcpSdk();
          throw new UnauthorizedError('this server needs an OAuth grant: connect it from the console');
        }
        return connectMcpServer(server, {
          fetch: opts.fetch,
          timeoutMs: opts.connectTimeoutMs,
          ...(authProvider ? { authProvider } : {}),
          onToolsChanged: () => opts.onToolsChanged(server),
          onClose: () => {
            if (conns.get(server.id)?.promise === promise) conns.delete(server.id);
          },
        });
      })();
      conns.set(server.id, { key: keyOf(server), promise });
      promise.catch(() => {
        if (conns.get(server.id)?.promise === promise) conns.delete(server.id);
      });
      return promise;
    },
    drop,
    async closeAll(): Promise<void> {
      const all = [...conns.values()];
      conns.clear();
      await Promise.allSettled(all.map((c) => c.promise.then((conn) => conn.close())));
    },
  };
}
export type ConnectionPool = ReturnType<typeof createConnectionPool>;

/** What went wrong with a server, said for an operator and a log line (no headers, no long bodies). */
export function describeFailure(err: unknown): { state: 'failing' | 'needs_auth'; message: string } {
  if (isSdkError(err, 'UnauthorizedError'))
    return { state: 'needs_auth', message: 'not authorized (OAuth grant missing, expired or revoked)' };
  if (err instanceof BlockedAddressError) return { state: 'failing', message: err.message };
  if (isMcpErrorCode(err, 'RequestTimeout')) return { state: 'failing', message: 'timed out' };
  if (isSdkError(err, 'StreamableHTTPError')) {
    if (err.code === 401 || err.code === 403)
      return { state: 'failing', message: `HTTP ${err.code}: check the server's headers` };
    return { state: 'failing', message: cap(`HTTP ${err.code ?? '?'}: ${err.message}`) };
  }
  const code =
    (err as { code?: unknown; cause?: { code?: unknown } } | undefined)?.cause?.code ??
    (err as { code?: unknown })?.code;
  if (code === 'ECONNREFUSED') return { state: 'failing', message: 'connection refused (is the server running?)' };
  if (code === 'ENOTFOUND') return { state: 'failing', message: 'host not found' };
  if (code === 'ECONNRESET') return { state: 'failing', message: 'connection reset' };
  if (err instanceof Error) return { state: 'failing', message: cap(err.message || err.name) };
  return { state: 'failing', message: 'failed' };
}

function cap(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** The job's result, or undefined when it takes longer than `ms` (the job goes on). */
export function waitFor<T>(job: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    job.catch(() => undefined),
    new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** A URL's host for logs and the Health page (never its path or query). */
export function host(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '?';
  }
}
