import { z } from 'zod';
import { int, optionalPositiveInt, secretToken } from './fields.js';

/** The HTTP server: where it listens, the tokens of the API, the admin console and /metrics, proxies. */
export const httpSettings = z.object({
  PORT: int(3000, 0, 65_535),
  HOST: z.string().default('0.0.0.0'),
  /** The bearer token for /api/* (and the default tenant's); unset, /api answers loopback clients only. */
  API_TOKEN: secretToken,
  /**
   * `/api/chat` turns and `/mcp` tool calls (one count) this process runs at once; more are refused with 503 and Retry-After.
   * Unset: what the V8 heap limit holds (src/adapters/http/in-flight.ts), ~1,000 in 512 MB.
   */
  API_MAX_TURNS_IN_FLIGHT: optionalPositiveInt,
  /** The admin API's bearer token (/tts_admin) and the operator console's sign-in (/admin); both off when unset. */
  ADMIN_TOKEN: secretToken,
  /** The bearer token for /metrics (from everyone); unset, /metrics answers loopback clients only. */
  METRICS_TOKEN: secretToken,
  /**
   * Proxies in front of us whose X-Forwarded-For we believe: `false` (default; the header is
   * ignored), `true` (one: the last entry is the client) or a number of hops.
   */
  TRUST_PROXY: z
    .string()
    .trim()
    .optional()
    .transform((v, ctx): number => {
      const s = (v ?? '').toLowerCase();
      if (s === '' || s === 'false' || s === 'no' || s === '0') return 0;
      if (s === 'true' || s === 'yes') return 1;
      const n = Number(s);
      if (Number.isInteger(n) && n >= 1 && n <= 10) return n;
      ctx.addIssue({
        code: 'custom',
        message: 'is false, true (one proxy) or the number of proxies in front (1-10)',
      });
      return z.NEVER;
    }),
});
