import { timingSafeEqual } from 'node:crypto';

/** `Authorization: Bearer <token>` compared in constant time (API_TOKEN, ADMIN_TOKEN). */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header?.replace(/^Bearer\s+/i, '') ?? '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
