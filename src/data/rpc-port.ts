import { LRUCache } from 'lru-cache';
import type { z } from 'zod';
import type { Logger } from '../telemetry/logger.js';
import { checkArgs } from './args.js';
import {
  isReadFunction,
  isSqlFunction,
  type AdminFunctionArgs,
  type AdminFunctionName,
  type SqlFunctionName,
} from '../contract/catalogue.js';
import {
  DataError,
  scopeToTenant,
  type DataErrorCode,
  type DataPort,
  type Tenant,
  type TurnRecord,
  type UsageRow,
} from '../contract/data.js';
import { createLedgerWriter } from './ledger-writer.js';
import { ROW_SCHEMAS, tenantRow, usageTotalsRow } from './rows.js';
import { sqlStateOf, type RpcOptions, type Transport } from './transports/types.js';
import { inTrace, SpanKind, traced } from '../telemetry/tracing.js';
import { isConnectionError } from '../contract/infra-errors.js';
import { retryRead } from './read-retry.js';
import { createOutageNotice } from '../telemetry/outage-notice.js';

/** What the CLIs (import, embed, migrate) need beyond the tools' port. */
export interface AdminDataPort extends DataPort {
  readonly transport: Transport;
  /** The embedding column's dimension, or null without pgvector. */
  readonly embeddingDimensions: number | null;
  /**
   * Forgets this process's cached tenant lookups (a workspace just mapped or approved is seen at
   * once here; other replicas see it when their 10 s cache entries expire).
   */
  forgetTenants?(): void;
  /** Calls an admin function (import, embeddings, tenants); same checks as `call`. */
  admin<F extends AdminFunctionName, S extends z.ZodType>(
    fn: F,
    args: AdminFunctionArgs[F],
    row: S,
  ): Promise<z.infer<S>[]>;
}

/** Whether a port offers the admin functions (every port this module builds does; a test double may not). */
export function isAdminPort(data: DataPort): data is AdminDataPort {
  return typeof (data as Partial<AdminDataPort>).admin === 'function';
}

export interface PortOptions {
  vectorsAvailable: boolean;
  embeddingDimensions: number | null;
  /** How long tenant lookups are cached; 0 disables. */
  tenantCacheMs?: number;
  /**
   * While the database cannot be reached, a cached tenant lookup is served for this long after it
   * was last read (TENANT_STALE_MAX_MS, default 10 min); 0 never serves one past `tenantCacheMs`.
   */
  tenantStaleMs?: number;
}

/** Maps a SQLSTATE (or PostgREST code) to what a caller can act on. */
export function classify(sqlState: string | undefined): DataErrorCode {
  if (!sqlState) return 'failed';
  if (sqlState === '0A000') return 'unavailable';
  if (sqlState === 'SB001' || sqlState.startsWith('22') || sqlState.startsWith('23')) return 'invalid_input';
  // undefined_function / undefined_table, or PostgREST's "not in the schema cache".
  if (sqlState === '42883' || sqlState === '42P01' || sqlState === 'PGRST202') return 'not_migrated';
  return 'failed';
}

export function toDataError(fn: string, err: unknown): DataError {
  if (err instanceof DataError) return err;
  const state = sqlStateOf(err);
  const code = classify(state);
  const message = err instanceof Error ? err.message : String(err);
  const words: Record<DataErrorCode, string> = {
    unavailable: 'is unavailable in this database',
    invalid_input: 'rejected its input',
    not_migrated: 'is missing: the database schema is not migrated',
    failed: 'failed',
  };
  return new DataError(fn, `Database call ${fn} ${words[code]}${state ? ` (${state})` : ''}`, {
    cause: err,
    code,
    ...(state === 'SB001' ? { detail: message } : {}),
  });
}

function toTenant(row: z.infer<typeof tenantRow>): Tenant {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    businessId: row.business_id,
    defaultCampaignId: row.default_campaign_id,
    settings: row.settings,
    isDefault: row.is_default,
  };
}

/** A turn's record as the SQL functions read it (snake_case JSON). */
function turnJson(turn: TurnRecord): Record<string, unknown> {
  return {
    outcome: turn.outcome,
    error_code: turn.errorCode ?? null,
    flags: turn.flags,
    tools: turn.tools.map(({ tool, ok, approval }) => ({ tool, ok, ...(approval ? { approval } : {}) })),
    duration_ms: Math.max(0, Math.round(turn.durationMs)),
    thread_hash: turn.threadHash,
    user_hash: turn.userHash,
    trace_id: turn.traceId ?? null,
    // The turn's id and time: a row written again is skipped, a late one keeps its time (usage journal).
    ...(turn.id ? { id: turn.id, at: turn.at ?? null } : {}),
    ...(turn.settings ? { settings: turn.settings } : {}),
    // Long-term memory notes the turn recalled (issue 45): a count, never their text.
    ...(turn.memories ? { memories: turn.memories } : {}),
  };
}

/** Wraps a transport into the DataPort: allow-list, argument checks, row validation, errors, logs. */
export function portOverTransport(transport: Transport, log: Logger, opts: PortOptions): AdminDataPort {
  const cacheMs = opts.tenantCacheMs ?? 10_000;
  const staleMs = Math.max(cacheMs, opts.tenantStaleMs ?? 600_000);
  // One warn line when the database stops answering, debug for every failed call after it, one info line when it is back.
  const outage = createOutageNotice(log, 'the database answers again');
  // Bounded: one entry per workspace seen, the least recently used dropped past 10,000.
  const tenantCache = new LRUCache<string, { at: number; tenant: Tenant | null }>({ max: 10_000 });

  /**
   * Every SQL function call passes here: with tracing on, each call made inside a trace (a turn)
   * is a client span named after the function; calls outside any (probes, caches warming) make none.
   */
  function invoke<S extends z.ZodType>(
    fn: SqlFunctionName,
    args: Record<string, unknown>,
    row: S,
    rpcOptions?: RpcOptions,
  ): Promise<z.infer<S>[]> {
    if (!inTrace()) return invokeNow(fn, args, row, rpcOptions);
    return traced(
      fn,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'db.system.name': 'postgresql',
          'db.operation.name': 'CALL',
          'db.stored_procedure.name': fn,
          'switchboard.data.transport': transport.kind,
        },
      },
      () => invokeNow(fn, args, row, rpcOptions),
      (span, rows) => span.setAttribute('db.response.returned_rows', rows.length),
      (err) => (err instanceof DataError ? `data_${err.code}` : 'data_failed'),
    );
  }

  async function invokeNow<S extends z.ZodType>(
    fn: SqlFunctionName,
    args: Record<string, unknown>,
    row: S,
    rpcOptions?: RpcOptions,
  ): Promise<z.infer<S>[]> {
    const problem = checkArgs(fn, args);
    if (problem) throw new DataError(fn, `${fn}: ${problem}`, { code: 'invalid_input', detail: problem });
    if (fn === 'search_campaigns' && !opts.vectorsAvailable) {
      throw new DataError(fn, 'Semantic search is unavailable: pgvector is not installed in this database', {
        code: 'unavailable',
      });
    }
    const started = performance.now();
    let raw: unknown[];
    try {
      raw = await transport.rpc(fn, args, rpcOptions);
    } catch (err) {
      const error = toDataError(fn, err);
      const fields = { fn, code: error.code, transport: transport.kind, err };
      // An outage is told once (and its end), not once per call.
      if (!isConnectionError(err)) log.warn(fields, 'data call failed');
      else
        outage.failed(
          fields,
          'the database is unreachable: reads are retried, known tenants served from cache, turns wait (told once per outage)',
        );
      throw error;
    }
    outage.ok();
    const ms = Math.round((performance.now() - started) * 10) / 10;
    const rows: z.infer<S>[] = [];
    for (const [i, value] of raw.entries()) {
      const parsed = row.safeParse(value);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const where = issue ? `${issue.path.join('.') || 'row'}: ${issue.message}` : 'invalid row';
        log.error({ fn, row: i, issue: where }, 'data call returned an unexpected row');
        throw new DataError(fn, `${fn} returned a row that does not match its schema (${where})`);
      }
      rows.push(parsed.data);
    }
    log.debug({ fn, ms, rows: rows.length, transport: transport.kind }, 'data call');
    return rows;
  }

  /**
   * A tenant lookup, cached `cacheMs`. While the database cannot be reached, the last known answer
   * is served until `staleMs` after it was read (one try, then the stale answer); without one the
   * read is tried three times before it fails.
   */
  async function cachedTenant(key: string, load: () => Promise<Tenant | null>): Promise<Tenant | null> {
    const hit = tenantCache.get(key);
    const age = hit ? performance.now() - hit.at : Infinity;
    if (hit && age < cacheMs) return hit.tenant;
    const stale = hit && cacheMs > 0 && age < staleMs ? hit : undefined;
    try {
      const tenant = await (stale ? load() : retryRead(load));
      if (cacheMs > 0) tenantCache.set(key, { at: performance.now(), tenant });
      return tenant;
    } catch (err) {
      if (!stale || !isConnectionError(err)) throw err;
      log.debug({ key, ageMs: Math.round(age) }, 'tenant served from cache: the database is unreachable');
      return stale.tenant;
    }
  }

  const usageArgs = (row: UsageRow) => ({
    tenant_id: row.tenantId,
    platform: row.platform,
    channel_id: row.channelId,
    thread_id: row.threadId,
    user_id: row.userId,
    model: row.model,
    prompt_tokens: row.promptTokens,
    completion_tokens: row.completionTokens,
    tool_calls: row.toolCalls,
    cached_prompt_tokens: row.cachedPromptTokens ?? 0,
    reasoning_tokens: row.reasoningTokens ?? 0,
    cost_usd: row.costUsd ?? null,
    // The turn row goes in the same statement as the ledger row (both functions insert both).
    ...(row.turn ? { turn: turnJson(row.turn) } : {}),
  });
  // The ledger's ids are not needed: its writes ask for no rows back.
  const write = { discardRows: true };
  const ledger = createLedgerWriter(
    {
      one: async (row) =>
        void (await invoke('record_turn_usage', usageArgs(row), ROW_SCHEMAS.record_turn_usage, write)),
      many: async (rows) =>
        void (await invoke('record_turn_usages', { rows: rows.map(usageArgs) }, ROW_SCHEMAS.record_turn_usages, write)),
    },
    // PGlite runs in this thread: rows gather for one event-loop turn (see LedgerWriterOptions).
    { gather: transport.kind === 'pglite' },
  );

  const port: AdminDataPort = {
    kind: transport.kind,
    transport,
    vectorsAvailable: opts.vectorsAvailable,
    embeddingDimensions: opts.embeddingDimensions,

    call(fn, args, row) {
      // The type system already says so; this keeps a cast or a JS caller honest.
      if (!isReadFunction(fn)) {
        return Promise.reject(
          new DataError(String(fn), `Unknown data function "${String(fn)}"`, { code: 'invalid_input' }),
        );
      }
      // A read asks the same again: a connection that dropped or a database starting up gets three tries.
      return retryRead(() => invoke(fn, args, row));
    },

    forTenant(tenant) {
      return scopeToTenant(port, tenant.id);
    },

    admin(fn, args, row) {
      if (!isSqlFunction(fn) || isReadFunction(fn)) {
        return Promise.reject(
          new DataError(String(fn), `Unknown admin function "${String(fn)}"`, { code: 'invalid_input' }),
        );
      }
      return invoke(fn, args, row, { unbounded: true });
    },

    recordUsage(row) {
      return ledger.write(row);
    },

    forgetTenants() {
      tenantCache.clear();
    },

    async usageTotals(q) {
      const [row] = await retryRead(() =>
        invoke(
          'usage_totals',
          {
            tenant: q.tenant,
            from: q.from.toISOString(),
            to: q.to.toISOString(),
            user_id: q.userId ?? null,
            thread_id: q.threadId ?? null,
          },
          usageTotalsRow,
        ),
      );
      return row
        ? {
            promptTokens: row.prompt_tokens,
            completionTokens: row.completion_tokens,
            turns: row.turns,
            cachedPromptTokens: row.cached_prompt_tokens,
            reasoningTokens: row.reasoning_tokens,
            costUsd: row.cost_usd,
            unpricedTurns: row.unpriced_turns,
          }
        : null;
    },

    resolveTenant(platform, workspaceId) {
      return cachedTenant(`${platform}:${workspaceId}`, async () => {
        const rows = await invoke('resolve_tenant', { platform, workspace_id: workspaceId }, tenantRow);
        return rows[0] ? toTenant(rows[0]) : null;
      });
    },

    tenantBySlug(slug) {
      return cachedTenant(`\0slug:${slug}`, async () => {
        const rows = await invoke('tenant_by_slug', { slug }, tenantRow);
        return rows[0] ? toTenant(rows[0]) : null;
      });
    },

    async defaultTenant() {
      const tenant = await cachedTenant('\0default', async () => {
        const rows = await invoke('default_tenant', {}, tenantRow);
        return rows[0] ? toTenant(rows[0]) : null;
      });
      if (!tenant) {
        throw new DataError('default_tenant', 'No default tenant: the tenants table has no row with is_default', {
          code: 'not_migrated',
        });
      }
      return tenant;
    },

    async close() {
      // Rows of turns that already ended are written before the connection goes (graceful shutdown).
      await ledger.idle();
      await transport.close();
    },
  };
  return port;
}
