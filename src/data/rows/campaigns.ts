import { z } from 'zod';
import { count, nullableText, text, uuid } from './fields.js';

/** Campaigns, their facets and embeddings, and the competitors they belong to. */

export const campaignRow = z.object({
  id: uuid,
  company: text,
  brand: nullableText,
  channel: text,
  offer: nullableText,
  key_value_props: z.array(text),
  imagery_sentiment: nullableText,
  imagery_visual_style: nullableText,
  capture_date: text,
  campaign_text: text,
  full_campaign_text: text,
});
export type CampaignRow = z.infer<typeof campaignRow>;

/** `search_campaigns`: cosine similarity in [-1, 1], higher is closer. */
export const semanticCampaignRow = campaignRow.extend({ similarity: z.number() });
/** `search_campaigns_by_text`: ts_rank_cd rank and a snippet with matches in **bold**. */
export const textCampaignRow = campaignRow.extend({ rank: z.number(), snippet: text });

export const campaignFacetRow = z.object({
  facet: z.enum(['channel', 'value_prop', 'sentiment', 'visual_style', 'company']),
  value: text,
  campaigns: z.number().int(),
});

export const embeddingStatusRow = z.object({ campaigns: z.number().int(), embedded: z.number().int() });

export const competitorIdRow = z.object({
  key: text,
  display_name: text,
  campaign_id: uuid.nullable(),
  description_chars: z.number().int(),
});

export const competitorRow = z.object({
  key: text,
  display_name: text,
  full_description: text,
  campaign_id: uuid.nullable(),
  updated_at: text,
});

export const missingEmbeddingRow = z.object({
  id: uuid,
  company: text,
  brand: nullableText,
  channel: text,
  offer: nullableText,
  key_value_props: z.array(text),
  campaign_text: text,
  full_campaign_text: text,
});

/** One group of aggregate_campaigns: its value (null: none), its count, and the totals of the whole result. */
export const aggregationRow = z.object({ value: z.string().nullable(), campaigns: count, total: count, groups: count });
export type AggregationRow = z.infer<typeof aggregationRow>;
