import { z } from 'zod';
import { flag, int, optionalString, optionalUrl, type Report } from './fields.js';

/** Where things are kept: the inbox (durable on Redis), the state store, the database. */
export const dataSettings = z.object({
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
  /**
   * A turn that cannot reach Redis or Postgres before anything was shown runs again this many
   * times at most, waiting 0.5 s, 1 s, 2 s… up to INBOX_RETRY_MAX_MS between runs (the defaults
   * ride out about 90 s); only then is the user told. 0 = tell at once.
   */
  INBOX_RETRY_ATTEMPTS: int(10, 0, 100),
  INBOX_RETRY_MAX_MS: int(15_000, 1, 600_000),
  /** The inbox's queue name on Redis (separate deployments sharing one Redis use different names). */
  INBOX_QUEUE: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, - and _ only')
    .default('turns'),
  /**
   * Usage rows (token ledger and turn record) kept while the database is away, at most; past it
   * a row is dropped with one error line and `switchboard_usage_journal_dropped_total`.
   */
  USAGE_JOURNAL_MAX: int(10_000, 1, 1_000_000),
  /** On SIGTERM: how long running turns may finish before they are handed back. */
  SHUTDOWN_DRAIN_MS: int(10_000, 0, 600_000),
  // State
  REDIS_URL: optionalUrl,
  /**
   * With REDIS_URL: /readyz answers 503 while Redis may lose acked events (no AOF or RDB save, or a
   * maxmemory-policy that evicts). On by default; `false` only turns the 503 off, the error line stays.
   */
  REDIS_REQUIRE_PERSISTENCE: z
    .enum(['1', '0', 'true', 'false', 'yes', 'no', ''])
    .optional()
    .transform((v) => !(v === '0' || v === 'false' || v === 'no')),
  // Data
  DATABASE_URL: optionalUrl,
  SUPABASE_URL: optionalUrl,
  SUPABASE_SERVICE_ROLE_KEY: optionalString,
  PGLITE_DIR: z.string().default('.data/pglite'),
  PGLITE_MEMORY: flag,
  // A folder holding a further embedded database template (pglite-template.tar.br and .json),
  // tried before the built-in one when it fits the settings; the test suite makes one for its
  // own embedding dimensions. Unset: the built-in template (assets/) only.
  PGLITE_TEMPLATE_DIR: optionalString,
  /**
   * The embedded database's buffer cache (Postgres `shared_buffers`): resident memory from the
   * first query. 1MB–999MB (on Postgres's command line; PGlite's own default is 128MB).
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
  /**
   * While the database is unreachable, a workspace's last known tenant mapping is served for this
   * long after it was last read (it is re-read every 10 s while the database answers); 0 = never.
   */
  TENANT_STALE_MAX_MS: int(600_000, 0, 86_400_000),
});

/** One data source at a time, and Supabase with its key. */
export function checkDataSettings(c: z.infer<typeof dataSettings>, report: Report): void {
  if (c.DATABASE_URL && c.SUPABASE_URL)
    report('DATABASE_URL', 'DATABASE_URL and SUPABASE_URL are both set; choose one data source (unset the other)');
  if (c.SUPABASE_URL && !c.SUPABASE_SERVICE_ROLE_KEY)
    report(
      'SUPABASE_SERVICE_ROLE_KEY',
      'is required when SUPABASE_URL is set (Project settings → API → service_role key)',
    );
}
