import type { ServerResponse } from 'node:http';
import type { MiddlewareHandler } from 'hono';
import { secureHeaders } from 'hono/secure-headers';

/**
 * The headers every HTML page we serve carries, whoever renders it: the operator console (Hono,
 * `pageHeaders`) and the Slack install pages (@slack/oauth writes to node:http's response,
 * `setPageHeaders`). One table, so both say the same: no sniffing, no referrer, never framed,
 * a window of its own, and the page's own Content-Security-Policy (`default-src 'none'` plus
 * what that page needs).
 */

/** A CSP as directives, Hono's spelling: `{ defaultSrc: ["'none'"], frameAncestors: ["'none'"] }`. */
export type CspDirectives = NonNullable<NonNullable<Parameters<typeof secureHeaders>[0]>['contentSecurityPolicy']>;

/** Hono's secureHeaders option name → its value (the header name is the option in kebab case). */
const FIXED = {
  xContentTypeOptions: 'nosniff',
  xFrameOptions: 'DENY',
  referrerPolicy: 'no-referrer',
  crossOriginOpenerPolicy: 'same-origin',
  crossOriginResourcePolicy: 'same-origin',
} as const;

/**
 * secureHeaders' other defaults, off: Strict-Transport-Security belongs to the TLS proxy in front
 * (its `includeSubDomains` would bind the operator's whole domain), and the rest are obsolete
 * or say nothing for a page without script.
 */
const OFF = {
  strictTransportSecurity: false,
  originAgentCluster: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
} as const;

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The CSP header's value, as secureHeaders writes it. */
export function cspValue(csp: CspDirectives): string {
  return Object.entries(csp)
    .map(([directive, values]: [string, unknown]) => [kebab(directive), ...[values].flat()].join(' '))
    .join('; ');
}

/** Hono middleware: the page headers on every response of the routes it guards. */
export function pageHeaders(csp: CspDirectives): MiddlewareHandler {
  return secureHeaders({ ...OFF, ...FIXED, contentSecurityPolicy: csp });
}

/** The same headers on a node:http response, before whoever renders the page writes its head. */
export function setPageHeaders(res: ServerResponse, csp: CspDirectives): void {
  for (const [option, value] of Object.entries(FIXED)) res.setHeader(kebab(option), value);
  res.setHeader('content-security-policy', cspValue(csp));
}
