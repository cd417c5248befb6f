import type { z } from 'zod';

export interface Tenant {
  id: string;
  name: string;
  businessId?: string | null;
  defaultCampaignId?: string | null;
  settings: Record<string, unknown>;
  isDefault: boolean;
}

/**
 * The one door to the database. Every read the tools make is a SQL function in
 * `supabase/migrations/`, called by name; PGlite, `pg` and supabase-js are three
 * transports to the same functions. Rows are validated with the caller's zod schema.
 */
export interface DataPort {
  readonly kind: 'pglite' | 'postgres' | 'supabase';
  /** Whether pgvector is installed, so semantic search can run. */
  readonly vectorsAvailable: boolean;
  /** Calls a SQL function by name with named arguments; returns validated rows. */
  call<S extends z.ZodType>(fn: string, args: Record<string, unknown>, row: S): Promise<z.infer<S>[]>;
  /** Maps a platform workspace to its tenant, or null when it has no mapping. */
  resolveTenant(platform: string, workspaceId: string): Promise<Tenant | null>;
  /** The tenant that serves HTTP, the console and unmapped workspaces in open mode. */
  defaultTenant(): Promise<Tenant>;
  close(): Promise<void>;
}

/** A database failure, worded for logs; tools turn it into a safe message. */
export class DataError extends Error {
  constructor(
    readonly fn: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DataError';
  }
}
