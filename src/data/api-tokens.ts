import { createHash, randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { AdminDataPort } from './rpc-port.js';
import { apiTokenRow, apiTokenTenantRow } from './rows.js';

/**
 * Per-tenant API tokens: `sbt_` and 32 random bytes in base64url. The database keeps only the
 * SHA-256 of a token and its first characters (`prefix`, not secret: it names the token in a
 * list and in `revoke`).
 *
 * SHA-256 rather than a password hash (scrypt, argon2): those slow a guesser down when the
 * secret is a low-entropy password; a token of 256 random bits cannot be guessed at any speed,
 * and an unsalted fast hash lets each request find its token with one index probe.
 */
const TOKEN = /^sbt_[A-Za-z0-9_-]{43}$/;
export const TOKEN_PREFIX_LENGTH = 12; // `sbt_` and 8 characters: 48 of the 256 bits

export type ApiToken = z.infer<typeof apiTokenRow>;

export function hashApiToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Whether a bearer token has our tokens' shape (anything else is refused without a query). */
export function looksLikeApiToken(token: string): boolean {
  return TOKEN.test(token);
}

/** Makes a token for `tenant` (slug or id); the secret is returned once and never stored. */
export async function createApiToken(
  port: AdminDataPort,
  tenant: string,
  label?: string,
): Promise<{ token: string; record: ApiToken }> {
  const token = `sbt_${randomBytes(32).toString('base64url')}`;
  const [record] = await port.admin(
    'api_token_create',
    { tenant, token_hash: hashApiToken(token), prefix: token.slice(0, TOKEN_PREFIX_LENGTH), label: label ?? null },
    apiTokenRow,
  );
  if (!record) throw new Error('api_token_create returned no row');
  return { token, record };
}

/** Revokes one live token by id or prefix (8 characters or more); throws a DataError when none or several match. */
export async function revokeApiToken(port: AdminDataPort, idOrPrefix: string): Promise<ApiToken> {
  const [record] = await port.admin('api_token_revoke', { token: idOrPrefix }, apiTokenRow);
  if (!record) throw new Error('api_token_revoke returned no row');
  return record;
}

export function listApiTokens(port: AdminDataPort, tenant?: string): Promise<ApiToken[]> {
  return port.admin('api_token_list', { tenant: tenant ?? null }, apiTokenRow);
}

/** The tenant slug a live token belongs to, or null (unknown, revoked or not our shape). */
export async function tenantOfApiToken(port: AdminDataPort, token: string): Promise<string | null> {
  if (!looksLikeApiToken(token)) return null;
  const [row] = await port.admin('api_token_tenant', { token_hash: hashApiToken(token) }, apiTokenTenantRow);
  return row?.tenant_slug ?? null;
}
