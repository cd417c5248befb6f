import type { MiddlewareHandler } from 'hono';

/** `application/json`, with at most a UTF-8 charset parameter (JSON is UTF-8, RFC 8259). */
const JSON_MEDIA_TYPE = /^application\/json\s*(?:;\s*charset\s*=\s*(?:utf-8|"utf-8")\s*)?$/i;

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * JSON request bodies only: a POST, PUT or PATCH whose Content-Type is not `application/json`
 * is answered 415 before its body is read. Why it matters: a web page may send `text/plain`,
 * a form or multipart to any address without asking (a "simple" cross-origin request), but
 * `application/json` makes the browser ask first (a CORS preflight), which we never grant. So
 * parsing JSON whatever the Content-Type would let any page's no-cors POST run a turn.
 * `shape` writes the error body in the caller's own error format.
 */
export function jsonBodiesOnly(shape: (message: string) => unknown): MiddlewareHandler {
  return async (c, next) => {
    if (!BODY_METHODS.has(c.req.method)) return next();
    const type = c.req.header('content-type');
    if (type !== undefined && JSON_MEDIA_TYPE.test(type.trim())) return next();
    const got = type === undefined ? 'none' : JSON.stringify(type.slice(0, 100));
    return c.json(
      shape(`The request body must be JSON, sent with Content-Type: application/json (this request's: ${got}).`),
      415,
    );
  };
}
