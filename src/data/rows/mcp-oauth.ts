import { z } from 'zod';
import { nullableText, text, uuid } from './fields.js';

/** A tenant's MCP server's OAuth grant (issue 44, item 2): rows of mcp_oauth_get and mcp_oauth_put. */
export const mcpOAuthRow = z.object({
  server_id: uuid,
  tenant_id: uuid,
  client_id: nullableText,
  state_sealed: nullableText,
  pending_sealed: nullableText,
  status: z.enum(['not_connected', 'connected', 'expired', 'revoked']),
  status_detail: nullableText,
  expires_at: nullableText,
  updated_at: text,
});
export type McpOAuthRow = z.infer<typeof mcpOAuthRow>;

/** Every OAuth server's grant, no secrets (mcp_oauth_overview): the console's Health page and Tenants rows. */
export const mcpOAuthOverviewRow = z.object({
  tenant_id: uuid,
  tenant_slug: text,
  server_id: uuid,
  server_name: text,
  client_id: nullableText,
  status: z.enum(['not_connected', 'connected', 'expired', 'revoked']),
  status_detail: nullableText,
  expires_at: nullableText,
  updated_at: text,
});
export type McpOAuthOverviewRow = z.infer<typeof mcpOAuthOverviewRow>;
