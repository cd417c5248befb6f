import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { deleteCookie, getCookie, getSignedCookie, setCookie, setSignedCookie } from 'hono/cookie';

/**
 * The operator console's sign-in: ADMIN_TOKEN, typed into a password field, opens a session
 * cookie. The cookie is signed (HMAC-SHA-256, by hono/cookie) with a key derived from
 * ADMIN_TOKEN, so changing the token signs everyone out; it holds its own expiry (checked here,
 * not trusted to the browser) and the session's CSRF token, which every state-changing form
 * carries back. HttpOnly, SameSite=Strict, Path=/admin, and Secure when the request came over
 * HTTPS (directly, or through a trusted proxy that says so).
 */

export const SESSION_COOKIE = 'sb_admin';
/** Set by the sign-in page: its form's CSRF token is bound to this (login CSRF). */
const PRE_COOKIE = 'sb_admin_pre';
export const SESSION_MS = 8 * 3_600_000;

export interface Session {
  csrf: string;
  expiresAt: number;
}

export interface SessionKeys {
  /** Signs the session cookie. */
  cookie: string;
  /** Binds CSRF tokens. */
  csrf: Buffer;
}

export function sessionKeys(adminToken: string): SessionKeys {
  const derive = (purpose: string) => createHmac('sha256', adminToken).update(`switchboard console ${purpose}`);
  return { cookie: derive('session v1').digest('base64url'), csrf: derive('csrf v1').digest() };
}

/** Whether `given` is ADMIN_TOKEN, compared in constant time (both hashed first: equal lengths). */
export function tokenMatches(given: string, adminToken: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(adminToken).digest();
  return timingSafeEqual(a, b) && given.length > 0;
}

function equal(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function cookieOptions(secure: boolean, maxAgeSeconds: number) {
  return {
    path: '/admin',
    httpOnly: true,
    sameSite: 'Strict' as const,
    secure,
    maxAge: maxAgeSeconds,
  };
}

/** HTTPS directly, or X-Forwarded-Proto https from a proxy we trust (TRUST_PROXY). */
export function isHttps(c: Context, trustProxy: number): boolean {
  if (new URL(c.req.url).protocol === 'https:') return true;
  if (trustProxy <= 0) return false;
  const proto = c.req.header('x-forwarded-proto')?.split(',').pop()?.trim().toLowerCase();
  return proto === 'https';
}

export async function startSession(c: Context, keys: SessionKeys, secure: boolean, now = Date.now()): Promise<void> {
  const session: Session = { csrf: randomBytes(24).toString('base64url'), expiresAt: now + SESSION_MS };
  await setSignedCookie(
    c,
    SESSION_COOKIE,
    `${session.expiresAt}.${session.csrf}`,
    keys.cookie,
    cookieOptions(secure, SESSION_MS / 1000),
  );
  deleteCookie(c, PRE_COOKIE, { path: '/admin' });
}

/** The live session of this request, or null (none, forged, or expired). */
export async function readSession(c: Context, keys: SessionKeys, now = Date.now()): Promise<Session | null> {
  const value = await getSignedCookie(c, keys.cookie, SESSION_COOKIE);
  if (!value) return null;
  const dot = value.indexOf('.');
  const expiresAt = Number(value.slice(0, dot));
  const csrf = value.slice(dot + 1);
  if (dot < 1 || !Number.isSafeInteger(expiresAt) || expiresAt <= now || !csrf) return null;
  return { csrf, expiresAt };
}

export function endSession(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, { path: '/admin' });
}

/** Whether a posted form's CSRF token is this session's. */
export function csrfMatches(session: Session, posted: unknown): boolean {
  return typeof posted === 'string' && equal(posted, session.csrf);
}

/**
 * The sign-in form's CSRF token: bound (HMAC) to a random value in a SameSite=Strict cookie set
 * with the form, so another site cannot post a sign-in (login CSRF) on the operator's behalf.
 */
export function signInCsrf(c: Context, keys: SessionKeys, secure: boolean): string {
  let pre = getCookie(c, PRE_COOKIE);
  if (!pre || !/^[A-Za-z0-9_-]{32}$/.test(pre)) {
    pre = randomBytes(24).toString('base64url');
    setCookie(c, PRE_COOKIE, pre, cookieOptions(secure, 3_600));
  }
  return createHmac('sha256', keys.csrf).update(`sign-in ${pre}`).digest('base64url');
}

export function signInCsrfMatches(c: Context, keys: SessionKeys, posted: unknown): boolean {
  const pre = getCookie(c, PRE_COOKIE);
  if (!pre || typeof posted !== 'string') return false;
  return equal(posted, createHmac('sha256', keys.csrf).update(`sign-in ${pre}`).digest('base64url'));
}
