import { BlockList, isIP } from 'node:net';
import type { Context } from 'hono';
import type { Logger } from '../../telemetry/logger.js';
import { bearerMatches } from './bearer.js';

/**
 * Who may reach which HTTP route: the one place that decides it (README, "What is open by default":
 * a port is closed to strangers unless a token opens it).
 *
 * - `/api/*` with `API_TOKEN`: that bearer token, from anywhere. Without it: loopback clients
 *   only (127.0.0.0/8, ::1, ::ffff:127.x), as guests; everyone else gets 401.
 * - `/api/usage`: always a token (the operator's view of every tenant's spend is not for guests).
 * - `/metrics` with `METRICS_TOKEN`: that bearer token, from everyone (loopback too). Without it:
 *   loopback only.
 * - A caller let in without a token (loopback) must also be a program on this machine, not a web
 *   page in a browser on it: `Host` names this machine, and no foreign `Origin` or
 *   `Sec-Fetch-Site` says a page sent it (`browserPageProblem`); else 403.
 * - `/healthz`, `/readyz` and the platforms' webhooks (signed) are open; the admin API has
 *   ADMIN_TOKEN (admin.ts); the operator console `/admin` is off without ADMIN_TOKEN and with it
 *   needs a session opened by typing ADMIN_TOKEN into its sign-in form (admin-console/session.ts).
 */

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** 127.0.0.0/8, ::1 and their IPv4-mapped forms (`::ffff:127.0.0.1`). Anything unparsable is not. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const family = isIP(address);
  if (family === 0) return false;
  return loopback.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** The peer of the TCP connection; undefined when the request did not come through a socket. */
export function socketAddress(c: Context): string | undefined {
  // @hono/node-server's bindings (`c.env.incoming`); read defensively, so an in-process
  // `app.request()` without them is simply "no address" (and so not loopback: closed).
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress;
}

/** One X-Forwarded-For entry as an address: bare, `1.2.3.4:5678` or `[::1]:80`; else undefined. */
function forwardedAddress(entry: string): string | undefined {
  const bare = entry.trim();
  if (isIP(bare)) return bare;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(bare)?.[1];
  if (bracketed && isIP(bracketed) === 6) return bracketed;
  const v4port = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(bare)?.[1];
  if (v4port && isIP(v4port) === 4) return v4port;
  return undefined;
}

/**
 * The client's address. `trustedHops` 0 (TRUST_PROXY off): the socket's peer; X-Forwarded-For
 * is ignored, so nobody can claim 127.0.0.1 with a header. `trustedHops` N: the hops are
 * X-Forwarded-For's entries followed by the socket's peer, and the last N of them are our own
 * proxies; the client is the hop just before them (N = 1: the last X-Forwarded-For entry, the
 * one our proxy appended). Entries further left were written by the client and are never read.
 * An entry that is not an address, or fewer hops than N, makes the client unknown (undefined:
 * never loopback). This trusts the hop count, so the port must be reachable only through the
 * proxies (a client that reaches it directly could send a forged X-Forwarded-For).
 */
export function clientAddress(c: Context, trustedHops: number): string | undefined {
  const peer = socketAddress(c);
  if (trustedHops <= 0) return peer;
  const forwarded = (c.req.header('x-forwarded-for') ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const hops = [...forwarded, peer ?? ''];
  const index = hops.length - 1 - trustedHops;
  // Fewer hops than proxies: the request did not come through all of them; its address is unknown.
  if (index < 0) return undefined;
  return index === hops.length - 1 ? peer : forwardedAddress(hops[index]!);
}

/** Who is calling, once a route's guard let them in. */
export type Caller =
  /** No token: a loopback client, known only by its address. */
  | { kind: 'anonymous'; address: string }
  /** API_TOKEN (the default tenant's; METRICS_TOKEN on /metrics), or a tenant's own token (`tenant`: its slug). */
  | { kind: 'token'; tenant?: string };

/** The bearer token of `Authorization: Bearer <token>`, if any. */
export function bearerOf(c: Context): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '')?.[1];
}

const FORWARD_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip'];

export type AccessDecision =
  | { ok: true; caller: Caller }
  /** 401: no or a wrong token, or not this machine. */
  | { ok: false; status: 401; message: string }
  /** 403: this machine, but a web page's request (`reason`: which header said so). */
  | { ok: false; status: 403; reason: BrowserProblem; message: string };

export type BrowserProblem = 'host' | 'origin' | 'sec-fetch-site';

/** `localhost`, 127.x.x.x or `[::1]`, with or without a port: the names of this machine a browser can send. */
export function isLoopbackHost(host: string): boolean {
  const name = /^(\[[^\]]*\]|[^:]*)(?::\d{1,5})?$/.exec(host.trim().toLowerCase())?.[1];
  if (name === undefined) return false;
  if (name === 'localhost') return true;
  const literal = name.startsWith('[') ? name.slice(1, -1) : name;
  // `isIP` first: a hostname such as `127.0.0.1.evil.example` is not an address.
  return isIP(literal) !== 0 && isLoopback(literal);
}

/**
 * Why a loopback request is a web page's, not a program's on this machine (undefined: it is not).
 * A loopback port is reachable from every page the machine's browser opens, so the address alone
 * is not enough:
 * - `Host` must be this machine's name (`isLoopbackHost`): a page that rebinds its own name to
 *   127.0.0.1 (DNS rebinding) sends its own name, and would otherwise read our answers.
 *   No `Host` at all is no browser (HTTP/1.1 requires one; Node answers 400 without it).
 * - `Origin`, when sent, must be this same loopback origin: a page elsewhere can still send a
 *   request it cannot read (a form, a no-cors `text/plain` POST), and that runs a turn.
 * - `Sec-Fetch-Site` must be `same-origin` or `none` (the user typed the URL). `same-site` is
 *   refused too: every `localhost` port is one site, so a page served by any other program on
 *   this machine (a dev server, a notebook) is `same-site` with us.
 * Programs (curl, scripts) send no `Origin` or `Sec-Fetch-*`, so this costs them nothing.
 */
export function browserPageProblem(c: Context): BrowserProblem | undefined {
  const host = c.req.header('host');
  if (host !== undefined && !isLoopbackHost(host)) return 'host';
  const origin = c.req.header('origin');
  if (origin !== undefined && !(host !== undefined && sameOrigin(origin, host))) return 'origin';
  const site = c.req.header('sec-fetch-site')?.trim().toLowerCase();
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return 'sec-fetch-site';
  return undefined;
}

/** `Origin` is this server's own origin, as the browser reached it (`http(s)://` + the `Host` it sent). */
function sameOrigin(origin: string, host: string): boolean {
  try {
    const o = new URL(origin);
    if (o.protocol !== 'http:' && o.protocol !== 'https:') return false;
    return o.origin === new URL(`${o.protocol}//${host}`).origin;
  } catch {
    // `null` (a sandboxed frame, a file: page) or anything unparsable: not us.
    return false;
  }
}

/**
 * A route's rule: with a token configured the bearer must match (from anywhere); without one,
 * `loopbackWithoutToken` lets loopback clients in as anonymous callers, and nobody else.
 */
export function decideAccess(
  c: Context,
  rule: { token: string | undefined; tokenName: string; loopbackWithoutToken: boolean; trustedHops: number },
): AccessDecision {
  if (rule.token) {
    return bearerMatches(c.req.header('authorization'), rule.token)
      ? { ok: true, caller: { kind: 'token' } }
      : { ok: false, status: 401, message: `Missing or wrong bearer token (${rule.tokenName}).` };
  }
  const address = clientAddress(c, rule.trustedHops);
  // A loopback peer forwarding someone else's request (a reverse proxy on this machine, with
  // TRUST_PROXY off) would make every stranger look local: a forwarded request is not local.
  const forwarded = rule.trustedHops === 0 && FORWARD_HEADERS.some((h) => c.req.header(h) !== undefined);
  if (forwarded && rule.loopbackWithoutToken && isLoopback(address))
    return {
      ok: false,
      status: 401,
      message: `This request came through a proxy: set TRUST_PROXY so the client's address is known, or set ${rule.tokenName}.`,
    };
  if (rule.loopbackWithoutToken && address && isLoopback(address)) {
    // Let in by where it comes from (ambient authority), so it must not be a web page's request.
    const problem = browserPageProblem(c);
    if (problem)
      return {
        ok: false,
        status: 403,
        reason: problem,
        message:
          problem === 'host'
            ? `The Host header does not name this machine: without ${rule.tokenName}, this endpoint answers only requests to localhost or a loopback address (e.g. http://127.0.0.1:<port>). Set ${rule.tokenName} to call it by another name.`
            : `This endpoint does not answer web pages: without ${rule.tokenName} it answers programs on this machine only (no Origin from another site). Set ${rule.tokenName} and send Authorization: Bearer <${rule.tokenName}>.`,
      };
    return { ok: true, caller: { kind: 'anonymous', address } };
  }
  return {
    ok: false,
    status: 401,
    message: rule.loopbackWithoutToken
      ? `This endpoint answers only this machine's own clients until ${rule.tokenName} is set; then send Authorization: Bearer <${rule.tokenName}>.`
      : `This endpoint needs ${rule.tokenName}: set it and send Authorization: Bearer <${rule.tokenName}>.`,
  };
}

export function unauthorized(c: Context, message: string): Response {
  return c.json({ error: { code: 'unauthorized', message } }, 401, { 'www-authenticate': 'Bearer' });
}

/** How often a web page's refused request is logged at warn, per reason; the rest are counted into the next line. */
const BROWSER_WARN_EVERY_MS = 60_000;

/**
 * The answer to a refused decision: 401 `unauthorized`, or 403 `forbidden` for a web page's
 * request. 401s are logged at debug (anyone on the network can make them, as often as they like);
 * a 403 means a page in a browser on this machine tried to use it, worth a warn line, but a page
 * can loop, so at most one line a minute per reason, carrying how many were refused since.
 */
export function createRefusal(log: Logger, now: () => number = Date.now) {
  const quietUntil = new Map<BrowserProblem, number>();
  const unlogged = new Map<BrowserProblem, number>();
  return (c: Context, decision: Extract<AccessDecision, { ok: false }>): Response => {
    if (decision.status === 401) {
      log.debug({ path: c.req.path, code: 'unauthorized' }, 'http request refused');
      return unauthorized(c, decision.message);
    }
    const { reason } = decision;
    const t = now();
    if (t >= (quietUntil.get(reason) ?? 0)) {
      quietUntil.set(reason, t + BROWSER_WARN_EVERY_MS);
      const clip = (h: string) => c.req.header(h)?.slice(0, 200);
      log.warn(
        {
          path: c.req.path,
          code: 'forbidden',
          reason,
          host: clip('host'),
          origin: clip('origin'),
          secFetchSite: clip('sec-fetch-site'),
          refusedSinceLastLine: unlogged.get(reason) ?? 0,
        },
        'http request from a web page refused: loopback without a token answers programs on this machine only',
      );
      unlogged.set(reason, 0);
    } else unlogged.set(reason, (unlogged.get(reason) ?? 0) + 1);
    return c.json({ error: { code: 'forbidden', message: decision.message } }, 403);
  };
}

/** The one start-up line: what is open to whom, and where it listens. */
export function describeAccess(opts: {
  apiToken: string | undefined;
  metricsToken: string | undefined;
  adminToken: string | undefined;
  trustedHops: number;
  listen: string;
}): string {
  const api = opts.apiToken ? 'bearer API_TOKEN or a tenant token' : 'loopback only (no API_TOKEN) or a tenant token';
  const usage = opts.apiToken ? 'bearer API_TOKEN or a tenant token' : 'a tenant token only (no API_TOKEN)';
  const metrics = opts.metricsToken ? 'bearer METRICS_TOKEN' : 'loopback only (no METRICS_TOKEN)';
  const admin = opts.adminToken ? 'bearer ADMIN_TOKEN, console /admin signs in with it' : 'off (no ADMIN_TOKEN)';
  const proxy =
    opts.trustedHops > 0
      ? `client address from X-Forwarded-For (TRUST_PROXY: ${opts.trustedHops} hop${opts.trustedHops > 1 ? 's' : ''})`
      : 'X-Forwarded-For ignored';
  return `Switchboard listening on ${opts.listen}: /api and /mcp ${api}; /api/usage ${usage}; /metrics ${metrics}; admin ${admin}; /healthz /readyz open; ${proxy}`;
}
