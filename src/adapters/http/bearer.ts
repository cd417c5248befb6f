import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Secret tokens (API_TOKEN, ADMIN_TOKEN, METRICS_TOKEN) and how a request presents them.
 *
 * Compared in constant time whatever the lengths: both sides are HMAC'd with a key of this
 * process first, so the comparison is always of two 32-byte digests and neither the token's
 * length nor its first differing byte shows in the time an answer takes.
 */
const COMPARE_KEY = randomBytes(32);

const digest = (value: string) => createHmac('sha256', COMPARE_KEY).update(value).digest();

/**
 * The secrets' own digests, made once: they are the few configured tokens, checked on every
 * request (an HMAC each is most of a check's CPU). Bounded all the same.
 */
const secretDigests = new Map<string, Buffer>();
const SECRET_DIGESTS_KEPT = 16;

function secretDigest(secret: string): Buffer {
  let known = secretDigests.get(secret);
  if (!known) {
    if (secretDigests.size >= SECRET_DIGESTS_KEPT) secretDigests.clear();
    secretDigests.set(secret, (known = digest(secret)));
  }
  return known;
}

/** Whether `given` is `secret`, in constant time. An empty secret matches nothing. */
export function secretMatches(given: string, secret: string): boolean {
  const equal = timingSafeEqual(digest(given), secretDigest(secret));
  return equal && secret.length > 0;
}

/**
 * The token of `Authorization: Bearer <token>`, or undefined. Only that form: a bare token
 * (no `Bearer `) is not read, so a client that sends one is told plainly instead of being let in.
 */
export function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer +(\S+) *$/i.exec(header ?? '')?.[1];
}

/** `Authorization: Bearer <token>` with `token`, compared in constant time. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const given = bearerToken(header);
  return given !== undefined && secretMatches(given, token);
}
