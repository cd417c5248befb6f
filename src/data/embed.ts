import { z } from 'zod';
import type { LlmClient } from '../contract/llm.js';
import type { Logger } from '../telemetry/logger.js';
import type { AdminDataPort } from './rpc-port.js';
import { missingEmbeddingRow, tenantListRow } from './rows.js';

export type EmbedFn = LlmClient['embed'];

/** What a campaign's embedding is computed from: who, what offer, and the copy itself. */
export function campaignEmbeddingText(row: z.infer<typeof missingEmbeddingRow>): string {
  const parts = [
    [row.company, row.brand].filter(Boolean).join(' / '),
    `Channel: ${row.channel}`,
    row.offer ? `Offer: ${row.offer}` : '',
    row.key_value_props.length > 0 ? `Value props: ${row.key_value_props.join(', ')}` : '',
    row.campaign_text,
    row.full_campaign_text,
  ];
  // Endpoints cap input length; the opening of a long text carries its meaning.
  return parts.filter(Boolean).join('\n').slice(0, 6_000);
}

export interface EmbedMissingOptions {
  /** One tenant, or every tenant when omitted. */
  tenantId?: string;
  batchSize?: number;
  log?: Logger;
  signal?: AbortSignal;
}

/** Computes the embeddings every campaign lacks (the whole campaign, then its copy alone). Returns how many vectors were stored. */
export async function embedMissing(
  port: AdminDataPort,
  embed: EmbedFn,
  opts: EmbedMissingOptions = {},
): Promise<number> {
  if (!port.vectorsAvailable) return 0;
  const dims = port.embeddingDimensions;
  const tenants = opts.tenantId
    ? [opts.tenantId]
    : (await port.admin('list_tenants', {}, tenantListRow)).map((t) => t.id);
  const batchSize = opts.batchSize ?? 64;
  let stored = 0;
  for (const tenantId of tenants) {
    for (;;) {
      const rows = await port.admin(
        'campaigns_missing_embeddings',
        { tenant_id: tenantId, limit: batchSize },
        missingEmbeddingRow,
      );
      if (rows.length === 0) break;
      const vectors = await embed(rows.map(campaignEmbeddingText), opts.signal);
      if (vectors.length !== rows.length) {
        throw new Error(`the embedding endpoint returned ${vectors.length} vectors for ${rows.length} texts`);
      }
      const wrong = vectors.find((v) => v.length !== dims);
      if (wrong) {
        throw new Error(
          `the embedding endpoint returned ${wrong.length}-dimensional vectors but the database stores ${dims}; ` +
            'set EMBEDDING_DIMENSIONS (and the embedding column) to match EMBEDDING_MODEL',
        );
      }
      const items = rows.map((r, i) => ({ id: r.id, embedding: vectors[i] }));
      const [res] = await port.admin(
        'set_campaign_embeddings',
        { tenant_id: tenantId, items },
        z.object({ updated: z.number() }),
      );
      stored += res?.updated ?? 0;
      opts.log?.info({ tenantId, stored }, 'campaign embeddings stored');
      // A batch that stored nothing would loop forever on the same rows.
      if (!res || res.updated === 0) break;
    }
    // The ad copy alone, for semantic_search's embedding_field "campaign_text".
    for (;;) {
      const rows = await port.admin(
        'campaigns_missing_text_embeddings',
        { tenant_id: tenantId, limit: batchSize },
        z.object({ id: z.string(), campaign_text: z.string() }),
      );
      if (rows.length === 0) break;
      const vectors = await embed(
        rows.map((r) => r.campaign_text.slice(0, 6_000)),
        opts.signal,
      );
      if (vectors.length !== rows.length || vectors.some((v) => v.length !== dims)) {
        throw new Error(
          `the embedding endpoint returned ${vectors.length} vectors (of ${vectors[0]?.length ?? 0} dimensions) for ${rows.length} texts; the database stores ${dims}`,
        );
      }
      const [res] = await port.admin(
        'set_campaign_text_embeddings',
        { tenant_id: tenantId, items: rows.map((r, i) => ({ id: r.id, embedding: vectors[i] })) },
        z.object({ updated: z.number() }),
      );
      stored += res?.updated ?? 0;
      if (!res || res.updated === 0) break;
    }
  }
  return stored;
}
