import { createHash } from 'node:crypto';
import { LlmError } from '../../contract/llm.js';
import { cacheGet, cacheSet } from '../../contract/thread-state.js';
import type { ToolContext } from '../../contract/tool.js';

/**
 * The query's embedding for semantic search, cached in the thread (a follow-up such as
 * "only the email ones" re-runs the same query with another filter). When semantic
 * search cannot run, the reason comes back as a value and the caller falls back to
 * full-text search, saying why.
 */
export type QueryEmbedding = { ok: true; vector: number[] } | { ok: false; reason: string };

const PREFIX = 'campaigns:embedding:';
const CACHE_MS = 30 * 60_000;
/** A 1,536-dimension vector is ~30 KB of JSON: keep only the thread's latest few. */
const MAX_CACHED = 4;

export async function embedQuery(query: string, ctx: ToolContext, model: string | undefined): Promise<QueryEmbedding> {
  if (!ctx.data.vectorsAvailable) return { ok: false, reason: 'vector search is not installed in this database' };
  if (!model) return { ok: false, reason: 'no embedding model is configured (EMBEDDING_MODEL)' };
  // Cache expiry is wall-clock time, as the thread store prunes it (ctx.now() is the business date).
  const now = Date.now();
  const key = PREFIX + createHash('sha256').update(`${model}\u0000${query}`).digest('hex').slice(0, 24);
  const cached = cacheGet<number[]>(ctx.state, key, now);
  if (cached) return { ok: true, vector: cached };
  let vector: number[] | undefined;
  try {
    [vector] = await ctx.llm.embed([query], ctx.signal);
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    ctx.log.warn(
      {
        kind: err instanceof LlmError ? err.kind : 'unknown',
        status: err instanceof LlmError ? err.status : undefined,
      },
      'query embedding failed; falling back to full-text search',
    );
    return { ok: false, reason: 'the embedding service is unavailable' };
  }
  if (!vector?.length) return { ok: false, reason: 'the embedding service returned no vector' };
  // A zero (or broken) vector has no direction: cosine similarity with it is NaN.
  if (!vector.every(Number.isFinite) || vector.every((v) => v === 0)) {
    return { ok: false, reason: 'the query has nothing to compare by meaning' };
  }
  evictOldest(ctx.state.cache);
  cacheSet(ctx.state, key, vector, CACHE_MS, now);
  return { ok: true, vector };
}

function evictOldest(cache: ToolContext['state']['cache']): void {
  const mine = Object.entries(cache).filter(([k]) => k.startsWith(PREFIX));
  if (mine.length < MAX_CACHED) return;
  mine.sort((a, b) => a[1].expiresAt - b[1].expiresAt);
  for (const [k] of mine.slice(0, mine.length - MAX_CACHED + 1)) delete cache[k];
}
