import { z } from 'zod';
import type { SqlFunctionName } from '../contract/catalogue.js';
import {
  aggregationRow,
  campaignFacetRow,
  campaignRow,
  competitorIdRow,
  competitorRow,
  embeddingStatusRow,
  missingEmbeddingRow,
  semanticCampaignRow,
  textCampaignRow,
} from './rows/campaigns.js';
import { materialPriceRow, productRow, supplierComparisonRow } from './rows/quotes.js';
import {
  adminBusinessRow,
  adminFaqRow,
  adminPolicyRow,
  availabilityRow,
  bookingRow,
  businessRow,
  deletedRow,
  faqRow,
  policyRow,
  serviceRow,
  takenMessageRow,
  workingHoursRow,
} from './rows/business.js';
import { prunedRow, turnListRow, turnOverviewRow, usageByDayRow, usageTotalsRow } from './rows/usage.js';
import {
  apiTokenRow,
  apiTokenTenantRow,
  installationKeyRow,
  installationListRow,
  installationSecretRow,
  savedInstallationRow,
  tenantApprovalsListRow,
  tenantApprovalsRow,
  tenantDataFamilyRow,
  tenantListRow,
  tenantRow,
  tenantToolsListRow,
  tenantToolsRow,
  tenantThreadContextRow,
  workspaceDecisionRow,
  workspaceRequestRow,
} from './rows/tenants.js';
import { channelClearedRow, channelSettingsListRow, channelSettingsRow, turnSettingsRow } from './rows/channels.js';
import { importCommitRow, schemaInfoRow } from './rows/database.js';
import {
  approvalCountRow,
  approvalCreatedRow,
  approvalDecidedRow,
  approvalDueRow,
  approvalRow,
  approvalStepRow,
} from './rows/approvals.js';
import { mcpServerRemovedRow, mcpServerRow } from './rows/mcp.js';
import { mcpOAuthOverviewRow, mcpOAuthRow } from './rows/mcp-oauth.js';
import {
  memoryAddedRow,
  memoryAdminForgetRow,
  memoryAdminRow,
  memoryCountRow,
  memoryEmbeddingRow,
  memoryForgetRow,
  memoryListRow,
  memoryPurgedRow,
  memoryRecallRow,
} from './rows/memory.js';
import { text, uuid } from './rows/fields.js';
import { feedbackListRow, feedbackOverviewRow, feedbackRecordedRow } from './rows/feedback.js';

/**
 * Zod schemas for the rows each SQL function returns. Every transport returns rows as
 * Postgres serializes them to JSON (`json_agg` for PGlite and `pg`, PostgREST for
 * Supabase), so one schema fits all three: dates are `YYYY-MM-DD` strings, timestamps
 * ISO 8601 strings, numbers are numbers, arrays are arrays, jsonb is parsed JSON.
 *
 * Tools may pass these to `DataPort.call` as they are, or narrower ones of their own. They live
 * in `rows/` by concern; this module is their one import path and holds the function → row map.
 */

export * from './rows/campaigns.js';
export * from './rows/quotes.js';
export * from './rows/business.js';
export * from './rows/usage.js';
export * from './rows/tenants.js';
export * from './rows/database.js';
export * from './rows/approvals.js';
export * from './rows/memory.js';
export * from './rows/feedback.js';
export * from './rows/channels.js';
export * from './rows/mcp.js';
export * from './rows/mcp-oauth.js';

/** The row schema of every catalogued function (tests check each against real output). */
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
  set_tenant_thread_context: tenantThreadContextRow,
  list_tenant_thread_context: tenantThreadContextRow,
  list_tenant_tools: tenantToolsListRow,
  set_tenant_approvals: tenantApprovalsRow,
  list_tenant_approvals: tenantApprovalsListRow,
  channel_settings_for: channelSettingsRow,
  set_channel_settings: channelSettingsListRow,
  clear_channel_settings: channelClearedRow,
  list_channel_settings: channelSettingsListRow,
  turn_settings: turnSettingsRow,
  approval_create: approvalCreatedRow,
  approval_decide: approvalDecidedRow,
  approval_get: approvalRow,
  approval_step: approvalStepRow,
  approval_counts: approvalCountRow,
  approval_set_message: z.object({ updated: z.number().int() }),
  approval_due: approvalDueRow,
  memory_add: memoryAddedRow,
  memory_recall: memoryRecallRow,
  memory_set_embedding: memoryEmbeddingRow,
  memory_list: memoryListRow,
  memory_forget: memoryForgetRow,
  memory_counts: memoryCountRow,
  memory_admin_list: memoryAdminRow,
  memory_purge: memoryPurgedRow,
  memory_admin_forget: memoryAdminForgetRow,
  feedback_record: feedbackRecordedRow,
  feedback_overview: feedbackOverviewRow,
  list_feedback: feedbackListRow,
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
  mcp_server_add: mcpServerRow,
  mcp_server_list: mcpServerRow,
  mcp_server_remove: mcpServerRemovedRow,
  mcp_server_set_tools: mcpServerRow,
  mcp_oauth_get: mcpOAuthRow,
  mcp_oauth_put: mcpOAuthRow,
  mcp_oauth_overview: mcpOAuthOverviewRow,
} satisfies Record<SqlFunctionName, z.ZodType>;
