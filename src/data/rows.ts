import { z } from 'zod';
import type { SqlFunctionName } from '../contract/catalogue.js';

/**
 * Zod schemas for the rows each SQL function returns. Every transport returns rows as
 * Postgres serializes them to JSON (`json_agg` for PGlite and `pg`, PostgREST for
 * Supabase), so one schema fits all three: dates are `YYYY-MM-DD` strings, timestamps
 * ISO 8601 strings, numbers are numbers, arrays are arrays, jsonb is parsed JSON.
 *
 * Tools may pass these to `DataPort.call` as they are, or narrower ones of their own.
 */

const uuid = z.string();
const text = z.string();
const nullableText = z.string().nullable();

export const tenantRow = z.object({
  id: uuid,
  slug: text,
  name: text,
  business_id: uuid.nullable(),
  default_campaign_id: uuid.nullable(),
  settings: z.record(z.string(), z.unknown()),
  is_default: z.boolean(),
});

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

const productFields = {
  product_id: uuid,
  code: text,
  family: z.enum(['stainless', 'aluminium', 'mild_steel']),
  grade: text,
  form: z.enum(['sheet', 'plate', 'tube', 'angle', 'bar']),
  thickness_mm: z.number(),
  size_label: text,
};

export const productRow = z.object({
  ...productFields,
  finish: nullableText,
  width_mm: z.number().nullable(),
  length_mm: z.number().nullable(),
  description: text,
  mass_kg: z.number().nullable(),
  supplier_count: z.number().int(),
  min_price: z.number().nullable(),
  max_price: z.number().nullable(),
  uom: nullableText,
  min_lead_time_days: z.number().int().nullable(),
});

const offerFields = {
  supplier: text,
  sku: text,
  uom: z.enum(['sheet', 'kg', 'm', 'each']),
  price_per_uom: z.number(),
  lead_time_days: z.number().int(),
  delivery_cost: z.number(),
  min_order_qty: z.number(),
};

export const materialPriceRow = z.object({
  ...productFields,
  ...offerFields,
  finish: nullableText,
  width_mm: z.number().nullable(),
  length_mm: z.number().nullable(),
  notes: nullableText,
});

export const supplierComparisonRow = z.object({
  ...productFields,
  ...offerFields,
  quantity: z.number(),
  total_cost: z.number(),
  price_rank: z.number().int(),
  is_cheapest: z.boolean(),
  is_fastest: z.boolean(),
});

export const businessRow = z.object({
  business_id: uuid,
  slug: text,
  name: text,
  industry: nullableText,
  phone: nullableText,
  email: nullableText,
  address: nullableText,
  website: nullableText,
  timezone: text,
  services: z.array(z.record(z.string(), z.unknown())),
  working_hours: z.record(z.string(), z.unknown()),
});

export const serviceRow = z.object({
  business_id: uuid,
  name: text,
  description: nullableText,
  duration_minutes: z.number().int().nullable(),
  price: z.number().nullable(),
  category: nullableText,
});

export const workingHoursRow = z.object({
  business_id: uuid,
  timezone: text,
  day: z.enum(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']),
  day_index: z.number().int().min(1).max(7),
  opens: nullableText,
  closes: nullableText,
  is_closed: z.boolean(),
});

export const bookingRow = z.object({
  booking_id: uuid,
  reference: text,
  business_id: uuid,
  customer_name: text,
  customer_phone: nullableText,
  customer_email: nullableText,
  service: text,
  booking_datetime: text,
  /** `YYYY-MM-DD HH24:MI` in the business's time zone. */
  booking_local: text,
  timezone: text,
  duration_minutes: z.number().int(),
  status: z.enum(['pending', 'confirmed', 'completed', 'cancelled', 'no_show']),
  price: z.number().nullable(),
  customer_notes: nullableText,
});

export const policyRow = z.object({
  policy_id: uuid,
  business_id: uuid,
  topic: text,
  title: text,
  content: text,
  updated_at: text,
});

export const faqRow = z.object({
  faq_id: uuid,
  business_id: uuid,
  topic: text,
  question: text,
  answer: text,
  tags: z.array(text),
  updated_at: text,
});

export const schemaInfoRow = z.object({
  version: text,
  vectors_available: z.boolean(),
  embedding_dimensions: z.number().int().nullable(),
});

export const importCommitRow = z.object({
  table_name: text,
  inserted: z.number().int(),
  updated: z.number().int(),
  total: z.number().int(),
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

export const tenantListRow = z.object({ id: uuid, slug: text, name: text, is_default: z.boolean() });
export const tenantDataFamilyRow = z.object({ family: text });
export const tenantToolsRow = z.object({ slug: text, tools: z.array(text).nullable() });
export const tenantToolsListRow = z.object({
  slug: text,
  name: text,
  is_default: z.boolean(),
  tools: z.array(text).nullable(),
});

/** The row schema of every catalogued function (tests check each against real output). */
/** bigint sums arrive as strings from `pg`, numbers elsewhere. */
const count = z.coerce.number().int().nonnegative();
export const availabilityRow = z.object({
  business_id: uuid,
  timezone: text,
  slot_start: text,
  slot_local: text,
  duration_minutes: z.number().int(),
});
export const takenMessageRow = z.object({ message_id: uuid, business_id: uuid, created_at: text });

export const adminBusinessRow = z.object({ business_id: uuid, tenant_id: uuid, slug: text, name: text });
export const adminPolicyRow = z.object({
  id: uuid,
  business_id: uuid,
  topic: text,
  title: text,
  content: text,
  updated_at: text,
});
export const adminFaqRow = z.object({
  id: uuid,
  business_id: uuid,
  topic: text,
  question: text,
  answer: text,
  tags: z.array(z.string()),
  updated_at: text,
});
export const deletedRow = z.object({ id: uuid });

/** One group of aggregate_campaigns: its value (null: none), its count, and the totals of the whole result. */
export const aggregationRow = z.object({ value: z.string().nullable(), campaigns: count, total: count, groups: count });
export type AggregationRow = z.infer<typeof aggregationRow>;
/** A sum of USD (Postgres `numeric`, which the drivers hand over as a string). */
const usd = z.coerce.number().nonnegative();
export const usageTotalsRow = z.object({
  prompt_tokens: count,
  completion_tokens: count,
  turns: count,
  cached_prompt_tokens: count,
  reasoning_tokens: count,
  cost_usd: usd,
  unpriced_turns: count,
});
export const usageByDayRow = usageTotalsRow.extend({ tenant: z.string(), day: z.string() });
export const turnOverviewRow = z.object({
  tenant: z.string(),
  day: z.string(),
  turns: count,
  answered: count,
  refused: count,
  failed: count,
  flagged: count,
  prompt_tokens: count,
  completion_tokens: count,
  cached_prompt_tokens: count,
  cost_usd: usd,
  unpriced_turns: count,
});
export const turnListRow = z.object({
  id: z.coerce.number().int(),
  created_at: text,
  tenant: text,
  platform: text,
  thread_hash: text,
  user_hash: text,
  outcome: z.enum(['answered', 'refused', 'failed']),
  error_code: text.nullable(),
  flags: z.array(text),
  tools: z.array(z.object({ tool: text, ok: z.boolean() })),
  duration_ms: z.number().int(),
  model: text.nullable(),
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  cached_prompt_tokens: z.number().int(),
  cost_usd: usd.nullable(),
  trace_id: text.nullable(),
});
export const prunedRow = z.object({ deleted: count });

export const savedInstallationRow = z.object({
  installation_key: text,
  workspace_id: text,
  tenant_slug: text.nullable(),
  pending: z.boolean(),
});
export const installationSecretRow = z.object({ installation_key: text, secret: text });
export const installationKeyRow = z.object({ installation_key: text });
export const installationListRow = z.object({
  installation_key: text,
  team_id: text.nullable(),
  team_name: text.nullable(),
  enterprise_id: text.nullable(),
  is_enterprise_install: z.boolean(),
  bot_user_id: text.nullable(),
  bot_scopes: z.array(z.string()),
  installer_user_id: text.nullable(),
  tenant_slug: text.nullable(),
  installed_at: text,
  updated_at: text,
});
export const workspaceRequestRow = z.object({
  platform: text,
  workspace_id: text,
  name: text.nullable(),
  requested_by: text.nullable(),
  requested_at: text,
});
export const workspaceDecisionRow = z.object({ platform: text, workspace_id: text, tenant_slug: text.nullable() });

export const apiTokenRow = z.object({
  id: uuid,
  tenant_slug: text,
  prefix: text,
  label: nullableText,
  created_at: text,
  last_used_at: nullableText,
  revoked_at: nullableText,
});
export const apiTokenTenantRow = z.object({ token_id: uuid, tenant_slug: text });

export const ROW_SCHEMAS = {
  default_tenant: tenantRow,
  resolve_tenant: tenantRow,
  search_campaigns: semanticCampaignRow,
  search_campaigns_by_text: textCampaignRow,
  search_campaigns_by_copy: semanticCampaignRow,
  filter_campaigns: campaignRow,
  aggregate_campaigns: aggregationRow,
  list_campaign_facets: campaignFacetRow,
  get_campaigns: campaignRow,
  embedding_status: embeddingStatusRow,
  list_competitor_ids: competitorIdRow,
  get_competitor: competitorRow,
  search_products: productRow,
  get_pricing_for_material: materialPriceRow,
  compare_suppliers: supplierComparisonRow,
  get_business: businessRow,
  get_business_services: serviceRow,
  get_working_hours: workingHoursRow,
  get_latest_booking: bookingRow,
  get_booking_by_id: bookingRow,
  get_booking_for_guest: bookingRow,
  get_policies: policyRow,
  get_faqs: faqRow,
  get_availability: availabilityRow,
  take_message: takenMessageRow,
  import_stage: z.object({ staged: z.number().int() }),
  import_commit: importCommitRow,
  import_abort: z.object({ discarded: z.number().int() }),
  campaigns_missing_embeddings: missingEmbeddingRow,
  set_campaign_embeddings: z.object({ updated: z.number().int() }),
  campaigns_missing_text_embeddings: z.object({ id: uuid, campaign_text: text }),
  set_campaign_text_embeddings: z.object({ updated: z.number().int() }),
  list_tenants: tenantListRow,
  tenant_data_families: tenantDataFamilyRow,
  set_tenant_tools: tenantToolsRow,
  list_tenant_tools: tenantToolsListRow,
  schema_info: schemaInfoRow,
  record_turn_usage: z.object({ id: z.coerce.number().int() }),
  record_turn_usages: z.object({ id: z.coerce.number().int() }),
  usage_totals: usageTotalsRow,
  usage_by_day: usageByDayRow,
  turn_overview: turnOverviewRow,
  list_turns: turnListRow,
  prune_turn_log: prunedRow,
  admin_business: adminBusinessRow,
  admin_list_policies: adminPolicyRow,
  admin_save_policy: adminPolicyRow,
  admin_delete_policy: deletedRow,
  admin_list_faqs: adminFaqRow,
  admin_save_faq: adminFaqRow,
  admin_delete_faq: deletedRow,
  slack_save_installation: savedInstallationRow,
  slack_get_installation: installationSecretRow,
  slack_delete_installation: installationKeyRow,
  slack_list_installations: installationListRow,
  list_workspace_requests: workspaceRequestRow,
  decide_workspace_request: workspaceDecisionRow,
  api_token_create: apiTokenRow,
  api_token_revoke: apiTokenRow,
  api_token_list: apiTokenRow,
  api_token_tenant: apiTokenTenantRow,
  tenant_by_slug: tenantRow,
} satisfies Record<SqlFunctionName, z.ZodType>;
