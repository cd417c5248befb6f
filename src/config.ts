import { existsSync } from 'node:fs';
import dotenv from 'dotenv';
import { z } from 'zod';
import { parseToolLimits } from './security/rate-limits.js';

/**
 * Every setting, parsed once from the environment. Each entry documents itself:
 * `.env.example` and the README's configuration table list the same names.
 * One family is not parsed here: OpenTelemetry's standard `OTEL_*` variables, which
 * src/telemetry/start.ts reads and the OTLP exporter reads for itself (headers, timeout,
 * compression); parsing them twice would let the two disagree. docs/observability.md lists them.
 */
const optionalString = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .optional();
/** An optional 32-byte key as 64 hex characters (empty means unset). */
const hex32 = (message: string) =>
  z
    .string()
    .trim()
    .regex(/^[0-9a-fA-F]{64}$/, message)
    .optional()
    .or(z.literal('').transform(() => undefined));

const optionalUrl = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .pipe(z.url({ protocol: /^(https?|redis|rediss|postgres|postgresql|wss?)$/ }).optional())
  .optional();
/** Comma-separated domain names (`example.com, docs.example.org`), lower-cased; a leading `*.` or `.` is dropped. Empty: none. */
const domainList = z
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
const int = (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().min(min).max(max).default(def);
const optionalPositiveInt = z
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
const optionalUsd = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v === undefined || v === '' ? undefined : Number(v)))
  .pipe(
    z.number({ error: 'expected an amount in USD, e.g. 25 or 12.50' }).positive('must be greater than 0').optional(),
  );

/** USD per 1M tokens; `cachedInput` defaults to `input`. */
const modelPrice = z.strictObject({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cachedInput: z.number().nonnegative().optional(),
  /** The model's context window in tokens (sets HISTORY_MAX_TOKENS' default like the catalogue's). */
  contextWindow: z.number().int().positive().optional(),
});
export type ModelPrice = z.infer<typeof modelPrice>;
/** `MODEL_PRICES`: {"<model>": {"input": 0.2, "output": 0.6, "cachedInput": 0.05}}, by the model name as configured. */
const modelPrices = z
  .string()
  .trim()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v === '') return {};
    try {
      return JSON.parse(v) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'is not valid JSON' });
      return z.NEVER;
    }
  })
  .pipe(
    z.record(z.string().min(1), modelPrice, {
      error: 'expected {"<model>": {"input": <USD per 1M>, "output": <USD per 1M>, "cachedInput"?: <USD per 1M>}}',
    }),
  );

const flag = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', ''])
  .optional()
  .transform((v) => v === '1' || v === 'true' || v === 'yes');

export const configSchema = z
  .object({
    // LLM
    OPENAI_API_KEY: optionalString,
    OPENAI_BASE_URL: optionalUrl,
    OPENAI_MODEL: z.string().trim().min(1).default('gpt-4o-mini'),
    OPENAI_TIMEOUT_MS: int(60_000, 1_000),
    OPENAI_MAX_RETRIES: int(2, 0, 10),
    /** `openai` (strict JSON Schema) or `gemini` (OpenAPI subset); `auto` decides by base URL. */
    LLM_SCHEMA_DIALECT: z.enum(['auto', 'openai', 'gemini']).default('auto'),
    EMBEDDING_MODEL: optionalString,
    EMBEDDING_DIMENSIONS: int(1536, 1, 16_000),
    IMAGE_MODEL: optionalString,
    /** Images from another OpenAI-compatible endpoint than chat (e.g. https://openrouter.ai/api/v1); default OPENAI_BASE_URL. */
    IMAGE_BASE_URL: optionalUrl,
    /** The key for IMAGE_BASE_URL (the chat key is never sent there); default OPENAI_API_KEY on the chat endpoint. */
    IMAGE_API_KEY: optionalString,
    /** `images` (/images/generations), `chat` (chat completions with image output) or `auto` (chat for OpenRouter and Gemini image models). */
    IMAGE_API: z.enum(['auto', 'images', 'chat']).default('auto'),
    /** The model that writes generate_artifact's code (same endpoint); default OPENAI_MODEL. */
    ARTIFACT_MODEL: optionalString,
    /** A faster model for web-search query rewriting (same endpoint); default OPENAI_MODEL. */
    REWRITE_MODEL: optionalString,
    /** A classifier model (e.g. a Prompt Guard model) asked about each user message beside the first step; off when unset. */
    GUARD_MODEL: optionalString,
    /** Its OpenAI-compatible endpoint; default OPENAI_BASE_URL. */
    GUARD_BASE_URL: optionalUrl,
    /** The key for GUARD_BASE_URL (the chat key is never sent there); default OPENAI_API_KEY on the chat endpoint. */
    GUARD_API_KEY: optionalString,
    /** The classifier's budget per message; past it the message goes on without its verdict (fail-open). */
    GUARD_TIMEOUT_MS: int(300, 20, 10_000),
    // HTTP
    PORT: int(3000, 0, 65_535),
    HOST: z.string().default('0.0.0.0'),
    /** The bearer token for /api/* (and the default tenant's); unset, /api answers loopback clients only. */
    API_TOKEN: optionalString,
    /**
     * `/api/chat` turns this process runs at once; more are refused with 503 and Retry-After.
     * Unset: what the V8 heap limit holds (src/adapters/http/in-flight.ts), ~1,000 in 512 MB.
     */
    API_MAX_TURNS_IN_FLIGHT: optionalPositiveInt,
    /** The admin API's bearer token (/tts_admin) and the operator console's sign-in (/admin); both off when unset. */
    ADMIN_TOKEN: optionalString,
    /** The bearer token for /metrics (from everyone); unset, /metrics answers loopback clients only. */
    METRICS_TOKEN: optionalString,
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
    // Agent
    AGENT_MAX_STEPS: int(5, 1, 50),
    AGENT_MAX_TOOL_CALLS: int(3, 1, 50),
    TOOL_TIMEOUT_MS: int(10_000, 100),
    TURN_TIMEOUT_MS: int(120_000, 1_000),
    /**
     * Token budget of the thread history sent to the model. Unset: 5% of the model's context
     * window when the price catalogue (or MODEL_PRICES) knows it, between 2,000 and 32,000; else 6,000.
     */
    HISTORY_MAX_TOKENS: z
      .string()
      .trim()
      .optional()
      .transform((v) => (v === undefined || v === '' ? undefined : Number(v)))
      .pipe(z.number({ error: 'expected a whole number' }).int('expected a whole number').min(200).optional()),
    THREAD_TTL_DAYS: int(30, 1),
    /** How long the turn record the operator console reads (/admin: turns, overview) is kept. */
    TURN_LOG_DAYS: int(90, 1, 3_650),
    /**
     * The key of the turn record's hashes of thread and user ids (HMAC-SHA-256), so the console
     * can group a user's turns without being able to say who they are. Unset: a random key per
     * process (hashes do not match across restarts or replicas). At least 16 characters.
     */
    TURN_LOG_HASH_KEY: z
      .string()
      .trim()
      .optional()
      .transform((v) => (v === '' ? undefined : v))
      .pipe(z.string().min(16, 'is at least 16 characters (a random secret)').optional()),
    /** A link to a turn's trace in the console, `{trace_id}` replaced (e.g. http://localhost:16686/trace/{trace_id}). */
    TRACE_URL_TEMPLATE: z
      .string()
      .trim()
      .optional()
      .transform((v) => (v === '' ? undefined : v))
      .pipe(
        z
          .string()
          .regex(/^https?:\/\/\S*\{trace_id\}\S*$/, 'is an http(s) URL containing {trace_id}')
          .optional(),
      ),
    /** Tokens (prompt + completion) one user may use per UTC day; unset = unlimited. */
    TOKEN_BUDGET_PER_USER_DAILY: optionalPositiveInt,
    /** Tokens one tenant may use per UTC month; unset = unlimited. */
    TOKEN_BUDGET_PER_TENANT_MONTHLY: optionalPositiveInt,
    /** USD one tenant may spend per UTC month (from the ledger's costs); unset = unlimited. */
    BUDGET_USD_PER_TENANT_MONTHLY: optionalUsd,
    /** Prices for models the bundled catalogue lacks or prices differently (self-hosted: 0). */
    MODEL_PRICES: modelPrices,
    // Business lookups (seed 004's router limits)
    /** One business lookup gives up after this long (the seed: 200–400 ms). */
    BUSINESS_TOOL_TIMEOUT_MS: int(400, 50, 60_000),
    /** All business lookups of one turn together; then they fail at once with the fallback. */
    BUSINESS_TURN_BUDGET_MS: int(1_000, 50, 120_000),
    /** Business tool calls per turn; more are refused with an error the model can act on. */
    BUSINESS_MAX_CALLS: int(2, 1, 20),
    /** Failed booking lookups (no booking, or a wrong phone/email) one user may make per hour; then lookups pause (0: off). */
    BOOKING_LOOKUP_FAILURES_PER_HOUR: int(5, 0, 10_000),
    // Limits
    /** Messages one user may send per minute; over it they get one notice and no answers (0: off). */
    USER_MESSAGES_PER_MINUTE: int(20, 0, 10_000),
    /** JSON over the default per-user tool limits, e.g. {"web_search":{"guest":20,"member":200,"windowHours":5}}. */
    TOOL_RATE_LIMITS: z
      .string()
      .optional()
      .transform((v, ctx) => {
        try {
          return parseToolLimits(v);
        } catch (err) {
          ctx.addIssue({ code: 'custom', message: err instanceof Error ? err.message : String(err) });
          return z.NEVER;
        }
      }),
    // Inbox (durable with REDIS_URL)
    /** Turns run at once by this process (different threads). */
    INBOX_CONCURRENCY: int(16, 1, 1_000),
    /** Messages one thread may have waiting; more get a "please wait" reply. */
    INBOX_THREAD_QUEUE_MAX: int(10, 1, 1_000),
    /** Redis: a dead replica's turns (and thread locks) are taken over after this long. */
    INBOX_LEASE_MS: int(6_000, 1_000, 600_000),
    /**
     * Before a thread's next turn starts, wait until no other message waiting in the thread arrived
     * in the last this-many ms, so one sent first but delivered a little later takes its place; 0 = off.
     */
    INBOX_ORDER_SETTLE_MS: int(150, 0, 10_000),
    /** The inbox's queue name on Redis (separate deployments sharing one Redis use different names). */
    INBOX_QUEUE: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, - and _ only')
      .default('turns'),
    /** On SIGTERM: how long running turns may finish before they are handed back. */
    SHUTDOWN_DRAIN_MS: int(10_000, 0, 600_000),
    // State
    REDIS_URL: optionalUrl,
    // Data
    DATABASE_URL: optionalUrl,
    SUPABASE_URL: optionalUrl,
    SUPABASE_SERVICE_ROLE_KEY: optionalString,
    PGLITE_DIR: z.string().default('.data/pglite'),
    PGLITE_MEMORY: flag,
    /**
     * The embedded database's buffer cache (Postgres `shared_buffers`): resident memory from the
     * first query. 1MB–999MB (it replaces PGlite's built-in 128MB in place, 5 characters at most).
     * Unset: 16MB on disk, 4MB in memory (see `sharedBuffersFor`).
     */
    PGLITE_SHARED_BUFFERS: z
      .string()
      .trim()
      .transform((v) => (v === '' ? undefined : v))
      .pipe(
        z
          .string()
          .regex(/^[1-9][0-9]{0,2}MB$/, 'a size such as 16MB or 128MB (1–999 MB)')
          .optional(),
      )
      .optional(),
    /** Postgres (DATABASE_URL): apply pending migrations at start-up, under an advisory lock (replicas wait in turn). */
    MIGRATE_ON_START: flag,
    TENANT_MODE: z.enum(['open', 'strict']).default('open'),
    // Web search
    TAVILY_API_KEY: optionalString,
    TAVILY_API_URL: optionalUrl,
    // Slack
    SLACK_BOT_TOKEN: optionalString,
    SLACK_SIGNING_SECRET: optionalString,
    SLACK_APP_TOKEN: optionalString,
    SLACK_API_URL: optionalUrl,
    /** OAuth (many workspaces): Basic Information → App Credentials. */
    SLACK_CLIENT_ID: optionalString,
    SLACK_CLIENT_SECRET: optionalString,
    /** Signs the OAuth `state` (any long random string). */
    SLACK_STATE_SECRET: optionalString,
    /** The redirect URL Slack sends installers back to, when the app lists more than one (default: Slack uses the first). */
    SLACK_REDIRECT_URL: optionalUrl,
    /** Seals installation tokens at rest: 32 bytes as 64 hex characters (`openssl rand -hex 32`). */
    SLACK_TOKEN_ENCRYPTION_KEY: hex32('is 32 bytes as 64 hexadecimal characters (openssl rand -hex 32)'),
    // Discord
    /** Comma-separated domains whose links may unfurl in Slack (a domain covers its subdomains); every other link is posted with unfurling off. */
    SLACK_UNFURL_DOMAINS: domainList,
    DISCORD_TOKEN: optionalString,
    DISCORD_APPLICATION_ID: optionalString,
    DISCORD_API_URL: optionalUrl,
    DISCORD_GUILD_ID: optionalString,
    /** Gateway shards: the total (`auto`: Discord's recommendation from GET /gateway/bot); unset, one shard. */
    DISCORD_SHARD_COUNT: z
      .string()
      .trim()
      .optional()
      .transform((v, ctx): number | 'auto' | undefined => {
        if (!v) return undefined;
        if (v === 'auto') return 'auto';
        const n = Number(v);
        if (Number.isInteger(n) && n >= 1 && n <= 100_000) return n;
        ctx.addIssue({ code: 'custom', message: 'is a whole number of shards (1 or more) or auto' });
        return z.NEVER;
      }),
    /** The shards this replica connects (`0,1` or `0-3`); unset, all of them. */
    DISCORD_SHARD_IDS: z
      .string()
      .optional()
      .transform((v, ctx) => {
        if (!v?.trim()) return undefined;
        const ids = new Set<number>();
        for (const part of v
          .split(',')
          .map((p) => p.trim())
          .filter(Boolean)) {
          const m = /^(\d+)(?:-(\d+))?$/.exec(part);
          if (!m || (m[2] !== undefined && Number(m[2]) < Number(m[1]))) {
            ctx.addIssue({ code: 'custom', message: `"${part}" is not a shard id or range (e.g. 0,1 or 0-3)` });
            return z.NEVER;
          }
          for (let id = Number(m[1]); id <= Number(m[2] ?? m[1]); id++) ids.add(id);
        }
        return [...ids].sort((a, b) => a - b);
      }),
    /** The application's public key (Developer Portal → General Information): enables the HTTP interactions endpoint. */
    DISCORD_PUBLIC_KEY: hex32(
      'is the application’s public key: 64 hexadecimal characters (Developer Portal → General Information)',
    ),
    /** Comma-separated role ids: users with none of them are guests for the tool limits (unset: everyone is a member). */
    DISCORD_MEMBER_ROLES: z
      .string()
      .optional()
      .transform((v) =>
        v
          ?.split(',')
          .map((id) => id.trim())
          .filter(Boolean),
      )
      .pipe(z.array(z.string().regex(/^\d{15,22}$/, 'role ids are Discord snowflakes (digits)')).optional()),
    /** Comma-separated domains whose links may show a preview (embed) in Discord; every other link in model text is posted with embeds suppressed. */
    DISCORD_EMBED_DOMAINS: domainList,
    // Logs
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  })
  .superRefine((c, ctx) => {
    if (c.DATABASE_URL && c.SUPABASE_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['DATABASE_URL'],
        message: 'DATABASE_URL and SUPABASE_URL are both set; choose one data source (unset the other)',
      });
    }
    if (c.SUPABASE_URL && !c.SUPABASE_SERVICE_ROLE_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['SUPABASE_SERVICE_ROLE_KEY'],
        message: 'is required when SUPABASE_URL is set (Project settings → API → service_role key)',
      });
    }
    const oauth = Boolean(c.SLACK_CLIENT_ID || c.SLACK_CLIENT_SECRET || c.SLACK_STATE_SECRET);
    if ((c.SLACK_SIGNING_SECRET || c.SLACK_APP_TOKEN) && !c.SLACK_BOT_TOKEN && !oauth) {
      ctx.addIssue({
        code: 'custom',
        path: ['SLACK_BOT_TOKEN'],
        message:
          'is required when Slack is configured (xoxb-…), unless the app is installed through OAuth (SLACK_CLIENT_ID…)',
      });
    }
    if (oauth) {
      for (const name of [
        'SLACK_CLIENT_ID',
        'SLACK_CLIENT_SECRET',
        'SLACK_STATE_SECRET',
        'SLACK_TOKEN_ENCRYPTION_KEY',
      ] as const) {
        if (!c[name])
          ctx.addIssue({
            code: 'custom',
            path: [name],
            message:
              'is required for Slack OAuth (SLACK_CLIENT_ID, SLACK_CLIENT_SECRET, SLACK_STATE_SECRET and SLACK_TOKEN_ENCRYPTION_KEY go together)',
          });
      }
      if (c.SLACK_BOT_TOKEN) {
        ctx.addIssue({
          code: 'custom',
          path: ['SLACK_BOT_TOKEN'],
          message:
            'is for one workspace; with SLACK_CLIENT_ID every workspace installs through /slack/install. Unset one of them',
        });
      }
      if (!c.SLACK_SIGNING_SECRET && !c.SLACK_APP_TOKEN) {
        ctx.addIssue({
          code: 'custom',
          path: ['SLACK_SIGNING_SECRET'],
          message:
            'Slack OAuth is configured but events cannot arrive: set SLACK_SIGNING_SECRET (HTTP events) or SLACK_APP_TOKEN (Socket Mode)',
        });
      }
    }
    if (c.SLACK_BOT_TOKEN && !c.SLACK_SIGNING_SECRET && !c.SLACK_APP_TOKEN) {
      ctx.addIssue({
        code: 'custom',
        path: ['SLACK_APP_TOKEN'],
        message:
          'SLACK_BOT_TOKEN is set but neither SLACK_APP_TOKEN (Socket Mode) nor SLACK_SIGNING_SECRET (HTTP events) is; set one',
      });
    }
    if (c.DISCORD_SHARD_IDS && c.DISCORD_SHARD_COUNT === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['DISCORD_SHARD_COUNT'],
        message: 'is required with DISCORD_SHARD_IDS (the total number of shards across replicas, or auto)',
      });
    }
    if (c.DISCORD_SHARD_IDS && typeof c.DISCORD_SHARD_COUNT === 'number') {
      const outside = c.DISCORD_SHARD_IDS.filter((id) => id >= (c.DISCORD_SHARD_COUNT as number));
      if (outside.length > 0)
        ctx.addIssue({
          code: 'custom',
          path: ['DISCORD_SHARD_IDS'],
          message: `${outside.join(', ')} ${outside.length > 1 ? 'are' : 'is'} not below DISCORD_SHARD_COUNT (${c.DISCORD_SHARD_COUNT}); shard ids run from 0`,
        });
    }
    if ((c.DISCORD_SHARD_COUNT !== undefined || c.DISCORD_SHARD_IDS) && !c.DISCORD_TOKEN) {
      ctx.addIssue({
        code: 'custom',
        path: ['DISCORD_SHARD_COUNT'],
        message: 'shards are gateway connections: set DISCORD_TOKEN too, or unset the DISCORD_SHARD_* settings',
      });
    }
    if (c.DISCORD_PUBLIC_KEY && !c.DISCORD_APPLICATION_ID) {
      ctx.addIssue({
        code: 'custom',
        path: ['DISCORD_APPLICATION_ID'],
        message: 'is required when DISCORD_PUBLIC_KEY is set (Developer Portal → General Information)',
      });
    }
    if (c.DISCORD_TOKEN && !c.DISCORD_APPLICATION_ID) {
      ctx.addIssue({
        code: 'custom',
        path: ['DISCORD_APPLICATION_ID'],
        message: 'is required when DISCORD_TOKEN is set (Developer Portal → General Information)',
      });
    }
  });

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses an environment into a Config, or throws a ConfigError naming each bad variable. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const result = configSchema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.join('.') || 'environment';
    const got = typeof issue.path[0] === 'string' ? env[issue.path[0]] : undefined;
    const secret = /KEY|TOKEN|SECRET/.test(name);
    const shown = got === undefined || secret ? '' : ` (got "${got.slice(0, 60)}")`;
    return `${name}: ${issue.message}${shown}`;
  });
  throw new ConfigError(problems);
}

/** The LLM must be reachable somehow: a key for a hosted API, or a base URL (Ollama, vLLM). */
export function requireLlm(config: Config): void {
  if (!config.OPENAI_API_KEY && !config.OPENAI_BASE_URL) {
    throw new ConfigError([
      'OPENAI_API_KEY / OPENAI_BASE_URL: no LLM is configured. Set OPENAI_API_KEY (OpenAI, Gemini, Fireworks…) ' +
        'and, for a non-OpenAI endpoint, OPENAI_BASE_URL (e.g. http://localhost:11434/v1 for Ollama).',
    ]);
  }
}

/** Reads `.env` when present, then the process environment (which wins). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  if (existsSync('.env')) dotenv.config({ path: '.env', quiet: true });
  return parseConfig(env);
}

/** For entry points: print a ConfigError plainly and exit 2; never a stack trace. */
export function exitOnConfigError(err: unknown): never {
  if (err instanceof ConfigError) {
    console.error(err.message);
    console.error("See .env.example and the README's configuration table.");
    process.exit(2);
  }
  throw err;
}

/** For entry points that talk to the LLM: the config, or exit 2 with a plain message. */
export function loadConfigForStartup(): Config {
  try {
    const config = loadConfig();
    requireLlm(config);
    return config;
  } catch (err) {
    return exitOnConfigError(err);
  }
}

export function schemaDialect(config: Config): 'openai' | 'gemini' {
  if (config.LLM_SCHEMA_DIALECT !== 'auto') return config.LLM_SCHEMA_DIALECT;
  return config.OPENAI_BASE_URL?.includes('generativelanguage.googleapis.com') ? 'gemini' : 'openai';
}
