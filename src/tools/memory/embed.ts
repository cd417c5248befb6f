import type { LlmClient } from '../../contract/llm.js';
import type { TenantDataPort } from '../../contract/data.js';
import type { Logger } from 'pino';
import { memoryEmbeddingRow } from '../../data/rows.js';

/**
 * A note's or a message's embedding (the model the campaigns use, EMBEDDING_MODEL), or undefined
 * when there is none to use: no model, no pgvector, or the endpoint failed (recall then ranks by
 * words, and a note saved without a vector is still found by its words).
 */
export async function embedText(
  text: string,
  env: { model: string | undefined; data: TenantDataPort; llm: LlmClient; log: Logger; signal: AbortSignal },
): Promise<number[] | undefined> {
  if (!env.model || !env.data.vectorsAvailable) return undefined;
  try {
    const [vector] = await env.llm.embed([text], env.signal);
    if (!vector?.length || !vector.every(Number.isFinite) || vector.every((v) => v === 0)) return undefined;
    return vector;
  } catch (err) {
    if (env.signal.aborted) throw err;
    env.log.warn({ err, code: 'memory_embedding_failed' }, 'memory embedding failed; words only');
    return undefined;
  }
}

/** Stores a saved note's vector; a failure leaves the note findable by its words. */
export async function storeNoteEmbedding(
  id: string,
  text: string,
  env: Parameters<typeof embedText>[1],
): Promise<void> {
  const vector = await embedText(text, env);
  if (!vector) return;
  try {
    await env.data.call('memory_set_embedding', { id, embedding: vector }, memoryEmbeddingRow);
  } catch (err) {
    env.log.warn({ err, code: 'memory_embedding_not_stored' }, 'memory embedding not stored; words only');
  }
}
