import { z } from 'zod';
import { optionalUrl } from './fields.js';

/** OAuth for a tenant's MCP servers (issue 44; src/mcp/oauth.ts, docs/mcp.md). */
export const mcpOAuthSettings = z.object({
  /**
   * Where an authorization server sends the operator back after a consent: this server's console
   * callback as the browser reaches it, e.g. https://bot.example.com/admin/mcp/oauth/callback.
   * Default: the console's own address as the `Connect` request named it.
   */
  MCP_OAUTH_REDIRECT_URL: optionalUrl,
});
