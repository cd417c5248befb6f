import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { deleteCookie, getCookie, getSignedCookie, setCookie, setSignedCookie } from 'hono/cookie';
import type { KvStore } from '../../../state/kv.js';
import { secretMatches } from '../bearer.js';

/**
 * The operator console's sign-in: ADMIN_TOKEN, typed into a password field, opens a session.
 * The session lives in the shared store (state/kv.ts: memory, or Redis with REDIS_URL so every
 * replica sees a sign-out), under a random id (256 bits) that the cookie carries. The cookie is
 * signed (HMAC-SHA-256, by hono/cookie) with a key derived from ADMIN_TOKEN, so changing the
 * token signs everyone out. Every request looks the id up: signing out deletes it, so the same
 * cookie replayed afterwards opens nothing; "sign out everywhere" replaces the admin's
 * generation, which every session records at sign-in, so all of them end at once. The record
 * holds the expiry (checked here, not trusted to the browser or the store's TTL alone) and the
 * session's CSRF token, which every state-changing form carries back. The cookie is HttpOnly,
 * SameSite=Strict, Path=/admin, and Secure when the request came over HTTPS (directly, or
 * through a trusted proxy that says so).
 */

export const SESSION_COOKIE = 'sb_admin';
/** Set by the sign-in page: its form's CSRF token is bound to this (login CSRF). */
const PRE_COOKIE = 'sb_admin_pre';
export const SESSION_MS = 8 * 3_600_000;
/** The generation outlives any session that records it (a lost one signs everyone out: safe). */
const GENERATION_MS = 365 * 86_400_000;

export interface Session {
  id: string;
  csrf: string;
  expiresAt: number;
}

/** What the store keeps per session, under a hash of its id (a copy of the store holds no cookie). */
interface StoredSession {
  csrf: string;
  expiresAt: number;
  generation: string;
}

export interface SessionKeys {
  /** Signs the session cookie. */
  cookie: string;
  /** Binds CSRF tokens. */
  csrf: Buffer;
  /** Names this ADMIN_TOKEN's sessions in the store (a fingerprint, not the token). */
  scope: string;
}

export function sessionKeys(adminToken: string): SessionKeys {
  const derive = (purpose: string) => createHmac('sha256', adminToken).update(`switchboard console ${purpose}`);
  return {
    cookie: derive('session v1').digest('base64url'),
    csrf: derive('csrf v1').digest(),
    scope: derive('store v1').digest('hex').slice(0, 24),
  };
}

/** Whether `given` is ADMIN_TOKEN, compared in constant time (bearer.ts). */
export function tokenMatches(given: string, adminToken: string): boolean {
  return secretMatches(given, adminToken);
}

function equal(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const sessionKey = (keys: SessionKeys, id: string) =>
  `console:session:${keys.scope}:${createHash('sha256').update(id).digest('base64url')}`;
const generationKey = (keys: SessionKeys) => `console:generation:${keys.scope}`;

/** This admin's generation: the one every live session recorded at sign-in. */
async function generation(kv: KvStore, keys: SessionKeys): Promise<string> {
  const current = await kv.get<string>(generationKey(keys));
  if (current) return current;
  await kv.setIfAbsent(generationKey(keys), randomBytes(16).toString('base64url'), GENERATION_MS);
  return (await kv.get<string>(generationKey(keys))) ?? '';
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

export async function startSession(
  c: Context,
  keys: SessionKeys,
  kv: KvStore,
  secure: boolean,
  now = Date.now(),
): Promise<void> {
  const id = randomBytes(32).toString('base64url');
  const stored: StoredSession = {
    csrf: randomBytes(24).toString('base64url'),
    expiresAt: now + SESSION_MS,
    generation: await generation(kv, keys),
  };
  // Recorded before the cookie is sent: a cookie never names a session the store lacks.
  await kv.set(sessionKey(keys, id), stored, SESSION_MS);
  await setSignedCookie(c, SESSION_COOKIE, id, keys.cookie, cookieOptions(secure, SESSION_MS / 1000));
  deleteCookie(c, PRE_COOKIE, { path: '/admin' });
}

/**
 * The live session of this request, or null (none, forged, signed out, signed out everywhere, or
 * expired). Throws when the store cannot be reached (the caller says so; never "signed in").
 */
export async function readSession(
  c: Context,
  keys: SessionKeys,
  kv: KvStore,
  now = Date.now(),
): Promise<Session | null> {
  const id = await getSignedCookie(c, keys.cookie, SESSION_COOKIE);
  if (!id || !/^[A-Za-z0-9_-]{43}$/.test(id)) return null;
  const [stored, current] = await Promise.all([
    kv.get<StoredSession>(sessionKey(keys, id)),
    kv.get<string>(generationKey(keys)),
  ]);
  if (!stored || stored.expiresAt <= now || !current || stored.generation !== current) return null;
  return { id, csrf: stored.csrf, expiresAt: stored.expiresAt };
}

/** Signs this session out: its id is deleted from the store (on every replica), its cookie cleared. */
export async function endSession(c: Context, keys: SessionKeys, kv: KvStore, session: Session): Promise<void> {
  await kv.delete(sessionKey(keys, session.id));
  deleteCookie(c, SESSION_COOKIE, { path: '/admin' });
}

/** Signs out every session of this ADMIN_TOKEN, on every replica: a new generation none of them recorded. */
export async function endEverySession(c: Context, keys: SessionKeys, kv: KvStore, session: Session): Promise<void> {
  await kv.set(generationKey(keys), randomBytes(16).toString('base64url'), GENERATION_MS);
  await endSession(c, keys, kv, session);
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
