import type { MiddlewareHandler } from 'hono';
import type { DataPort } from '../../contract/data.js';
import { tenantOfApiToken } from '../../data/api-tokens.js';
import { isAdminPort } from '../../data/rpc-port.js';
import type { Logger } from '../../telemetry/logger.js';
import { bearerOf, type Caller, createRefusal, decideAccess, unauthorized } from './access.js';
import { bearerMatches } from './bearer.js';
import { errorBody } from './error-body.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** Set by the `/api/*` guard: who is calling. */
    caller: Caller;
  }
}

/**
 * The `/api/*` guard: who is calling, or a refusal. Closed by default (access.ts): API_TOKEN's
 * bearer, a tenant's token, or without API_TOKEN a loopback client. A wrong bearer never falls
 * back to anonymous.
 */
export function apiCaller(opts: {
  apiToken: string | undefined;
  trustProxy: number;
  data: DataPort | undefined;
  log: Logger;
}): MiddlewareHandler {
  const { apiToken, trustProxy, data, log } = opts;
  const refuse = createRefusal(log);
  return async (c, next) => {
    const bearer = bearerOf(c);
    if (bearer !== undefined) {
      // API_TOKEN (checked once here: decideAccess would check it again, an HMAC each time).
      if (apiToken && bearerMatches(c.req.header('authorization'), apiToken)) {
        c.set('caller', { kind: 'token' });
        return next();
      }
      // Not API_TOKEN: a tenant's token, or nothing.
      let tenant: string | null = null;
      if (data && isAdminPort(data)) {
        try {
          tenant = await tenantOfApiToken(data, bearer);
        } catch (err) {
          log.warn({ err, code: 'unavailable' }, 'could not check an API token');
          return c.json(errorBody('unavailable', 'The token could not be checked. Try again shortly.'), 503);
        }
      }
      if (!tenant) {
        log.debug({ path: c.req.path, code: 'unauthorized' }, 'http request refused');
        return unauthorized(c, 'Wrong bearer token: not API_TOKEN and not a live tenant token.');
      }
      c.set('caller', { kind: 'token', tenant });
      return next();
    }
    const decision = decideAccess(c, {
      token: apiToken,
      tokenName: 'API_TOKEN',
      loopbackWithoutToken: true,
      trustedHops: trustProxy,
    });
    if (!decision.ok) return refuse(c, decision);
    c.set('caller', decision.caller);
    return next();
  };
}
