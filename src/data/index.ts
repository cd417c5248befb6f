import { ConfigError, type Config } from '../config/index.js';
import type { Logger } from '../telemetry/logger.js';
import { cliCommand } from './cli-command.js';
import { seedDemo } from './demo/seed.js';
import { embedMissing, type EmbedFn } from './embed.js';
import { migrate, SCHEMA_VERSION } from './migrate.js';
import type { DataPort, Tenant } from '../contract/data.js';
import { portOverTransport, toDataError, type AdminDataPort } from './rpc-port.js';
import { embeddingStatusRow, schemaInfoRow } from './rows.js';
import { openPglite, sharedBuffersFor } from './transports/pglite.js';
import { createFromTemplate, readTemplate, templateFits } from './transports/pglite-template.js';
import { sqlRpcTransport } from './transports/sql-rpc.js';
import type { Transport, TransportKind } from './transports/types.js';
import type { SqlClient } from './transports/types.js';

export { DataError, type DataErrorCode, type DataPort, type Tenant } from '../contract/data.js';
export { isAdminPort, type AdminDataPort } from './rpc-port.js';
export { migrate, loadMigrations, SCHEMA_VERSION } from './migrate.js';
export { seedDemo } from './demo/seed.js';
export { DEMO_ANCHOR } from './demo/prng.js';
export { embedMissing, type EmbedFn } from './embed.js';
export { importFile, type ImportResult } from './import/run.js';
export * as rows from './rows.js';
export type { ReadFunctionArgs, ReadFunctionName } from '../contract/catalogue.js';

export interface DataPortOptions {
  /** Embeddings for the demo campaigns of a fresh embedded database (the LlmClient's `embed`). */
  embed?: EmbedFn;
  /** Seed a fresh embedded database with the demo data (default true). */
  seedDemo?: boolean;
  /** Demo capture dates and bookings are placed relative to this date (default: today, UTC). */
  demoAnchor?: Date;
  /** How long tenant lookups are cached (default 10 s; 0 disables). */
  tenantCacheMs?: number;
  /** The fetch supabase-js uses (tests point it at a loopback server). */
  fetch?: typeof fetch;
}

/** Which transport a configuration selects: Supabase, Postgres, or the embedded PGlite. */
export function dataSourceKind(config: Config): TransportKind {
  if (config.DATABASE_URL && config.SUPABASE_URL) {
    throw new ConfigError(['DATABASE_URL and SUPABASE_URL are both set; choose one data source (unset the other)']);
  }
  if (config.SUPABASE_URL) return 'supabase';
  if (config.DATABASE_URL) return 'postgres';
  return 'pglite';
}

function host(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the configured host';
  }
}

/** Reads schema_info(), turning "not migrated" and "cannot connect" into plain instructions. */
async function checkSchema(transport: Transport, config: Config): Promise<{ vectors: boolean; dims: number | null }> {
  const setting = transport.kind === 'supabase' ? 'SUPABASE_URL' : 'DATABASE_URL';
  const target = transport.kind === 'supabase' ? config.SUPABASE_URL : config.DATABASE_URL;
  const howToMigrate =
    transport.kind === 'supabase'
      ? `Apply the migrations with \`supabase db push\` (or \`${cliCommand('db:migrate')}\` with DATABASE_URL set to the project's connection string).`
      : `Run \`${cliCommand('db:migrate')}\`, or start with MIGRATE_ON_START=true.`;
  let raw: unknown[];
  try {
    raw = await transport.rpc('schema_info', {});
  } catch (err) {
    const error = toDataError('schema_info', err);
    if (error.code === 'not_migrated') {
      throw new ConfigError([
        `${setting}: the database at ${host(target ?? '')} has no Switchboard schema. ${howToMigrate}`,
      ]);
    }
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new ConfigError([`${setting}: cannot query the database at ${host(target ?? '')}: ${reason}`]);
  }
  const info = schemaInfoRow.parse(raw[0]);
  if (info.version < SCHEMA_VERSION) {
    throw new ConfigError([
      `${setting}: the database schema is at ${info.version} but this version of Switchboard needs ${SCHEMA_VERSION}. ${howToMigrate}`,
    ]);
  }
  return { vectors: info.vectors_available, dims: info.embedding_dimensions };
}

function checkDimensions(config: Config, kind: TransportKind, vectors: boolean, dims: number | null): void {
  if (!vectors || !config.EMBEDDING_MODEL || dims === null || dims === config.EMBEDDING_DIMENSIONS) return;
  const fix =
    kind === 'pglite'
      ? `or delete ${config.PGLITE_DIR} so the embedded database is rebuilt with the new dimension`
      : 'or change the column (alter table campaigns drop column embedding; then run select sb_private.setup_vectors() ' +
        'with switchboard.embedding_dimensions set) and run `npm run db:embed`';
  throw new ConfigError([
    `EMBEDDING_DIMENSIONS: is ${config.EMBEDDING_DIMENSIONS} but the database stores ${dims}-dimensional embeddings. ` +
      `Set EMBEDDING_DIMENSIONS=${dims} (with an EMBEDDING_MODEL that produces it), ${fix}.`,
  ]);
}

/**
 * Opens the configured data source with the admin surface the CLIs need. PGlite is
 * migrated (and, when fresh, seeded) on the spot; Postgres and Supabase are only
 * checked: migrating them is an explicit step.
 */
export async function openDataPort(config: Config, log: Logger, opts: DataPortOptions = {}): Promise<AdminDataPort> {
  const kind = dataSourceKind(config);
  let transport: Transport;
  let fresh = false;
  if (kind === 'pglite') {
    const dir = config.PGLITE_MEMORY ? undefined : config.PGLITE_DIR;
    // A new directory, or a database in memory, starts from the migrated template when it fits
    // (skips initdb); see pglite-template.ts.
    const want = { embeddingDimensions: config.EMBEDDING_DIMENSIONS, schemaVersion: SCHEMA_VERSION };
    const further = config.PGLITE_TEMPLATE_DIR;
    const templateDir = further !== undefined && templateFits(further, want) ? further : undefined;
    const template = dir === undefined ? await readTemplate(want, log, templateDir) : null;
    const fromTemplate = dir !== undefined ? await createFromTemplate(dir, want, log, templateDir) : template !== null;
    const sharedBuffers = sharedBuffersFor(config.PGLITE_SHARED_BUFFERS, dir === undefined);
    const sql = await openPglite(dir, { sharedBuffers, log, ...(template ? { template } : {}) });
    try {
      await warnUnlessSharedBuffers(sql, sharedBuffers, log);
      const result = await migrate(sql, { embeddingDimensions: config.EMBEDDING_DIMENSIONS, log });
      // Fresh: nothing was in the directory before this start (the template holds no data).
      fresh = result.fresh || fromTemplate;
    } catch (err) {
      await sql.close();
      throw err;
    }
    transport = sqlRpcTransport('pglite', sql);
    log.info({ dataDir: dir ?? 'memory', fresh, template: fromTemplate }, 'embedded database ready');
  } else if (kind === 'postgres') {
    // Each driver is imported only when it is the one configured (they add to every start-up otherwise).
    const { openPostgres } = await import('./transports/postgres.js');
    const sql = openPostgres(config.DATABASE_URL ?? '');
    if (config.MIGRATE_ON_START) {
      try {
        const result = await migrate(sql, { embeddingDimensions: config.EMBEDDING_DIMENSIONS, log });
        log.info({ applied: result.applied.length }, 'MIGRATE_ON_START: the database schema is up to date');
      } catch (err) {
        await sql.close().catch(() => {});
        const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
        throw new ConfigError([
          `MIGRATE_ON_START: migrating the database at ${host(config.DATABASE_URL ?? '')} failed: ${reason}`,
        ]);
      }
    }
    transport = sqlRpcTransport('postgres', sql);
  } else {
    if (config.MIGRATE_ON_START)
      throw new ConfigError([
        'MIGRATE_ON_START: works with DATABASE_URL only; for Supabase apply the migrations with `supabase db push` (or set DATABASE_URL to the project’s connection string)',
      ]);
    const { openSupabase } = await import('./transports/supabase.js');
    transport = openSupabase(config.SUPABASE_URL ?? '', config.SUPABASE_SERVICE_ROLE_KEY ?? '', opts.fetch);
  }

  try {
    const { vectors, dims } = await checkSchema(transport, config);
    checkDimensions(config, kind, vectors, dims);
    const port = portOverTransport(transport, log, {
      vectorsAvailable: vectors,
      embeddingDimensions: dims,
      ...(opts.tenantCacheMs !== undefined ? { tenantCacheMs: opts.tenantCacheMs } : {}),
      tenantStaleMs: config.TENANT_STALE_MAX_MS,
    });
    if (!vectors) log.info({ transport: kind }, 'pgvector is not installed: semantic search falls back to full-text');
    if (fresh && opts.seedDemo !== false)
      await seedDemo(port, { log, ...(opts.demoAnchor ? { anchor: opts.demoAnchor } : {}) });
    await reportEmbeddings(port, config, log, fresh ? opts.embed : undefined);
    if (!(fresh && opts.seedDemo !== false)) await hintIfEmpty(port, log);
    return port;
  } catch (err) {
    await transport.close().catch(() => {});
    throw err;
  }
}

/** A database with no campaigns answers every search with nothing: say how to fill it. Never fatal. */
async function hintIfEmpty(port: AdminDataPort, log: Logger): Promise<void> {
  try {
    const tenant = await port.defaultTenant();
    const [status] = await port.call('embedding_status', { tenant_id: tenant.id }, embeddingStatusRow);
    if (status && status.campaigns === 0) {
      log.info(
        { tenant: tenant.slug ?? tenant.id },
        `the database has no campaigns yet: \`${cliCommand('db:migrate', '--seed-demo')}\` adds the demo data, \`${cliCommand('import', 'campaigns <file>')}\` your own`,
      );
    }
  } catch (err) {
    log.debug({ err }, 'could not count campaigns');
  }
}

/**
 * On a fresh embedded database, embeds the demo campaigns when an embedding model is
 * configured; otherwise says how many campaigns still lack embeddings. Never fatal.
 */
async function reportEmbeddings(
  port: AdminDataPort,
  config: Config,
  log: Logger,
  embed: EmbedFn | undefined,
): Promise<void> {
  if (!port.vectorsAvailable || !config.EMBEDDING_MODEL) return;
  try {
    const tenant = await port.defaultTenant();
    if (embed) await embedMissing(port, embed, { tenantId: tenant.id, log });
    const [status] = await port.call('embedding_status', { tenant_id: tenant.id }, embeddingStatusRow);
    if (status && status.embedded < status.campaigns) {
      log.info({ ...status }, 'some campaigns have no embeddings yet: run `npm run db:embed`');
    }
  } catch (err) {
    log.warn({ err }, 'could not compute campaign embeddings; semantic search will use what exists');
  }
}

/** Picks the transport from the configuration: see `openDataPort`. */
export async function createDataPort(config: Config, log: Logger, opts: DataPortOptions = {}): Promise<DataPort> {
  return openDataPort(config, log, opts);
}

/**
 * The tenant a message belongs to: the workspace's mapping, or its organization's (an
 * Enterprise Grid org-wide install maps the org); otherwise the default
 * tenant, except for unmapped Slack/Discord workspaces under TENANT_MODE=strict (null:
 * the caller answers that the workspace is not configured). The workspace `default`
 * (HTTP, the console, Discord DMs) is always the default tenant, unless the HTTP adapter
 * established `tenant` (a slug) from the caller's credential: then that tenant, or null.
 */
export async function tenantFor(
  port: DataPort,
  mode: Config['TENANT_MODE'],
  platform: string,
  workspaceId: string,
  orgId?: string,
  tenant?: string,
): Promise<Tenant | null> {
  if (tenant !== undefined) return port.tenantBySlug(tenant);
  if (workspaceId === 'default') return port.defaultTenant();
  const mapped =
    (await port.resolveTenant(platform, workspaceId)) ??
    (orgId && orgId !== workspaceId ? await port.resolveTenant(platform, orgId) : null);
  if (mapped) return mapped;
  if (mode === 'strict' && platform !== 'http' && platform !== 'console') return null;
  return port.defaultTenant();
}

/**
 * The embedded database's buffer cache is set on Postgres's command line (`startParams` in
 * transports/pglite.ts); a PGlite that stopped taking it would run with its own 128MB. Said
 * once at start, so an upgrade that loses the setting is not silent.
 */
export async function warnUnlessSharedBuffers(sql: SqlClient, wanted: string, log: Logger): Promise<void> {
  const [row] = await sql.query('show shared_buffers');
  const actual = String(row?.shared_buffers);
  if (actual !== wanted)
    log.warn(
      { wanted, actual },
      'PGLITE_SHARED_BUFFERS not applied: this PGlite build does not take it, so the embedded database uses its own buffer cache (more memory)',
    );
}
