import { z } from 'zod';
import { nullableText, text, uuid } from './fields.js';

/** Tenants and the ways in: their tool families, Slack installations, workspace requests, API tokens. */

export const tenantRow = z.object({
  id: uuid,
  slug: text,
  name: text,
  business_id: uuid.nullable(),
  default_campaign_id: uuid.nullable(),
  settings: z.record(z.string(), z.unknown()),
  is_default: z.boolean(),
});

export const tenantListRow = z.object({ id: uuid, slug: text, name: text, is_default: z.boolean() });
export const tenantDataFamilyRow = z.object({ family: text });
export const tenantToolsRow = z.object({ slug: text, tools: z.array(text).nullable() });
export const tenantThreadContextRow = z.object({ slug: text, thread_context: z.boolean().nullable() });
export const tenantToolsListRow = z.object({
  slug: text,
  name: text,
  is_default: z.boolean(),
  tools: z.array(text).nullable(),
});
export const tenantApprovalsRow = z.object({ slug: text, approvals: z.record(z.string(), z.unknown()).nullable() });
export const tenantApprovalsListRow = z.object({
  slug: text,
  name: text,
  is_default: z.boolean(),
  approvals: z.record(z.string(), z.unknown()).nullable(),
});

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
