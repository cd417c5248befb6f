import { z } from 'zod';

/** The kinds of field the settings are made of: each reads one environment variable's text. */

export const optionalString = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .optional();
/**
 * An optional secret bearer token (API_TOKEN, ADMIN_TOKEN, METRICS_TOKEN): unset when empty, else
 * at least 32 characters, so it cannot be guessed (the admin API and the console also slow guessing).
 */
export const secretToken = optionalString.pipe(
  z
    .string()
    .min(
      32,
      'is shorter than 32 characters; make one with `openssl rand -hex 32` or ' +
        `\`node -e "console.log(require('crypto').randomBytes(32).toString('hex'))"\``,
    )
    .optional(),
);
/** An optional 32-byte key as 64 hex characters (empty means unset). */
export const hex32 = (message: string) =>
  z
    .string()
    .trim()
    .regex(/^[0-9a-fA-F]{64}$/, message)
    .optional()
    .or(z.literal('').transform(() => undefined));

export const optionalUrl = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .pipe(z.url({ protocol: /^(https?|redis|rediss|postgres|postgresql|wss?)$/ }).optional())
  .optional();
/** Comma-separated domain names (`example.com, docs.example.org`), lower-cased; a leading `*.` or `.` is dropped. Empty: none. */
export const domainList = z
  .string()
  .default('')
  .transform((v) =>
    v
      .split(',')
      .map((d) =>
        d
          .trim()
          .toLowerCase()
          .replace(/^\*?\./, '')
          .replace(/\.$/, ''),
      )
      .filter(Boolean),
  )
  .pipe(
    z.array(
      z
        .string()
        .regex(/^[a-z0-9-]+(\.[a-z0-9-]+)*$/, 'lists domain names only (example.com), without a scheme, port or path'),
    ),
  );
export const int = (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().min(min).max(max).default(def);
export const optionalPositiveInt = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v === undefined || v === '' ? undefined : Number(v)))
  .pipe(
    z
      .number({ error: 'expected a whole number' })
      .int('expected a whole number')
      .positive('must be greater than 0')
      .optional(),
  );
/** A positive amount of US dollars, e.g. `25` or `12.50` (empty means unset). */
export const optionalUsd = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v === undefined || v === '' ? undefined : Number(v)))
  .pipe(
    z.number({ error: 'expected an amount in USD, e.g. 25 or 12.50' }).positive('must be greater than 0').optional(),
  );

export const flag = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', ''])
  .optional()
  .transform((v) => v === '1' || v === 'true' || v === 'yes');

/**
 * How a concern's cross-field check reports a problem: the variable to name and what is wrong.
 * `src/config/index.ts` turns each into one line of the one configuration error.
 */
export type Report = (name: string, message: string) => void;
