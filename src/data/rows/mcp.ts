import { z } from 'zod';
import { nullableText, text, uuid } from './fields.js';

/** A tenant's MCP server (issue 44): rows of the mcp_server_* functions. */
export const mcpServerRow = z.object({
  id: uuid,
  tenant_id: uuid,
  name: text,
  url: text,
  headers_sealed: nullableText,
  auth_kind: z.enum(['headers', 'oauth']),
  enabled_tools: z.array(text),
  disabled_tools: z.array(text),
  created_at: text,
  updated_at: text,
});
export type McpServerRow = z.infer<typeof mcpServerRow>;

export const mcpServerRemovedRow = z.object({ id: uuid, name: text });
