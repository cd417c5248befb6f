import type { z } from 'zod';
import type { ApprovalRecord } from './turn.js';
import type { ReadFunctionArgs, ReadFunctionName } from './catalogue.js';

export interface Tenant {
  id: string;
  /** The tenant's short name (`default`, `acme`), for CLIs and logs. */
  slug?: string;
  name: string;
  businessId?: string | null;
  defaultCampaignId?: string | null;
  settings: Record<string, unknown>;
  isDefault: boolean;
}

/**
 * The one door to the database. Every read the tools make is a SQL function in
 * `supabase/migrations/`, called by name; PGlite, `pg` and supabase-js are three
 * transports to the same functions. Rows are validated with the caller's zod schema
 * (`src/data/rows.ts` has one per function).
 *
 * Arguments are named without the SQL `p_` prefix and typed from `catalogue.ts`:
 * `call('search_campaigns_by_text', { tenant_id, query: '"no annual fee"', limit: 10 }, textCampaignRow)`
 * runs `search_campaigns_by_text(p_tenant_id => …, p_query => …, p_limit => …)`.
 * Omitted (or undefined) optional arguments take their SQL defaults. Only catalogued
 * read functions can be called: no caller-supplied identifier ever reaches SQL.
 */
export interface DataPort {
  readonly kind: 'pglite' | 'postgres' | 'supabase';
  /** Whether pgvector is installed, so semantic search can run. */
  readonly vectorsAvailable: boolean;
  /**
   * Calls a SQL function by name with named arguments; returns validated rows.
   * Throws DataError: code `unavailable` for semantic search without pgvector,
   * `invalid_input` for arguments the database rejects, `failed` otherwise.
   */
  call<F extends ReadFunctionName, S extends z.ZodType>(
    fn: F,
    args: ReadFunctionArgs[F],
    row: S,
  ): Promise<z.infer<S>[]>;
  /** A port for one tenant: its calls carry the tenant's id themselves (what tools get). */
  forTenant(tenant: Pick<Tenant, 'id'>): TenantDataPort;
  /** Maps a platform workspace to its tenant, or null when it has no mapping. */
  resolveTenant(platform: string, workspaceId: string): Promise<Tenant | null>;
  /** The tenant with this slug, or null (an HTTP caller whose credential names its tenant). */
  tenantBySlug(slug: string): Promise<Tenant | null>;
  /** The tenant that serves HTTP, the console and unmapped workspaces in open mode. */
  defaultTenant(): Promise<Tenant>;
  /** Adds one turn's row to the token ledger. */
  recordUsage(row: UsageRow): Promise<void>;
  /** Token and cost totals of a tenant in [from, to), optionally for one user or thread; null for an unknown tenant. */
  usageTotals(query: UsageQuery): Promise<UsageTotals | null>;
  close(): Promise<void>;
}

/** The read functions that belong to one tenant: those with a `tenant_id` argument. */
export type TenantFunctionName = {
  [F in ReadFunctionName]: ReadFunctionArgs[F] extends { tenant_id: string } ? F : never;
}[ReadFunctionName];
export type TenantArgs<F extends TenantFunctionName> = Omit<ReadFunctionArgs[F], 'tenant_id'>;

/**
 * The data port as a tool sees it: bound to the turn's tenant (which comes from the platform,
 * never from the model), so no call can name another one. The tenant is added to every call
 * here, in one place, instead of at each call site.
 */
export interface TenantDataPort {
  readonly kind: DataPort['kind'];
  readonly vectorsAvailable: boolean;
  // A property, not a method: checked strictly, so a whole DataPort cannot pass for a tenant's.
  call: <F extends TenantFunctionName, S extends z.ZodType>(
    fn: F,
    args: TenantArgs<F>,
    row: S,
  ) => Promise<z.infer<S>[]>;
}

/** Binds `port` to one tenant; a `tenant_id` in the arguments (a JS caller, a cast) is refused. */
export function scopeToTenant(
  port: Pick<DataPort, 'kind' | 'vectorsAvailable' | 'call'>,
  tenantId: string,
): TenantDataPort {
  return {
    kind: port.kind,
    vectorsAvailable: port.vectorsAvailable,
    call(fn, args, row) {
      if (Object.hasOwn(args, 'tenant_id')) {
        return Promise.reject(
          new DataError(fn, `${fn}: the tenant comes from the turn, not from the arguments`, { code: 'invalid_input' }),
        );
      }
      return port.call(fn, { ...args, tenant_id: tenantId } as unknown as ReadFunctionArgs[typeof fn], row);
    },
  };
}

export interface UsageRow {
  tenantId: string;
  platform: string;
  channelId: string;
  threadId: string;
  userId: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  toolCalls: number;
  /** Prompt tokens the provider served from its prompt cache (part of `promptTokens`). */
  cachedPromptTokens?: number;
  /** Reasoning tokens (part of `completionTokens`). */
  reasoningTokens?: number;
  /** The turn's cost in USD; null when no price is known for the model. */
  costUsd?: number | null;
  /**
   * The turn's record for the operator console (`turn_log`), written by the same statement as
   * the ledger row. With it a turn that used no tokens writes its turn row only; without it
   * (an older caller) the ledger row is written as before.
   */
  turn?: TurnRecord;
}

/** What the console knows of a turn: no message text, no platform id of a person or thread. */
export interface TurnRecord {
  /** answered; refused (a limit, a budget, a bad request); failed (the model, a timeout, a bug). */
  outcome: 'answered' | 'refused' | 'failed';
  /** The turn's error code (`rate_limited`, `llm_unavailable`…) when it did not answer. */
  errorCode?: string | null;
  flags: string[];
  /** The tools called, in order, and whether each succeeded (and, for one that waited for a person, its approval). */
  tools: { tool: string; ok: boolean; approval?: ApprovalRecord }[];
  durationMs: number;
  /** Keyed hashes (HMAC) of the thread key and the user id. */
  threadHash: string;
  userHash: string;
  /** The turn's trace, when tracing is on. */
  traceId?: string | null;
  /**
   * The turn's id (a UUID): both its rows carry it, so writing the turn again (a journaled row
   * flushed twice, a write whose answer was lost) writes nothing twice.
   */
  id?: string;
  /** When the turn ended (ISO 8601): a row written late still counts when it happened. */
  at?: string;
  /** How many long-term memory notes the turn recalled into its prompt (issue 45; never their text). */
  memories?: number;
  /** Where each of the turn's settings came from (issue 46): `{ model: 'channel', language: 'tenant', … }`. */
  settings?: Record<string, string>;
}

export interface UsageQuery {
  /** The tenant's id or slug. */
  tenant: string;
  from: Date;
  to: Date;
  userId?: string;
  threadId?: string;
}

export interface UsageTotals {
  promptTokens: number;
  completionTokens: number;
  turns: number;
  cachedPromptTokens: number;
  reasoningTokens: number;
  /** USD of the turns that have a price; `unpricedTurns` counts those that do not. */
  costUsd: number;
  unpricedTurns: number;
}

/**
 * Why a call failed:
 * - `unavailable`: the feature is not installed here (semantic search without pgvector);
 * - `invalid_input`: the database rejected an argument or an imported row (bad uuid,
 *   wrong vector length, unknown product_code…); `detail` says which when it is safe;
 * - `not_migrated`: the schema is missing or older than this build;
 * - `failed`: anything else (connection, timeout, a bug); details are only in the logs.
 */
export type DataErrorCode = 'unavailable' | 'invalid_input' | 'not_migrated' | 'failed';

/** A database failure, worded for logs; tools turn it into a safe message. */
export class DataError extends Error {
  readonly code: DataErrorCode;
  /** A message written by our own SQL (SQLSTATE SB001), safe to show whoever ran the import. */
  readonly detail?: string;

  constructor(
    readonly fn: string,
    message: string,
    options?: { cause?: unknown; code?: DataErrorCode; detail?: string },
  ) {
    super(message, options);
    this.name = 'DataError';
    this.code = options?.code ?? 'failed';
    if (options?.detail !== undefined) this.detail = options.detail;
  }
}
