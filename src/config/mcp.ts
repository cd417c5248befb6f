import { z } from 'zod';
import { flag, hex32, int } from './fields.js';

/** A tenant's MCP servers (issue 44; src/mcp/, docs/mcp.md). */
export const mcpSettings = z.object({
  /** How long one MCP tool call may take before it is cancelled (the server is sent `notifications/cancelled`). */
  MCP_CALL_TIMEOUT_MS: int(15_000, 100, 300_000),
  /** Tokens an MCP tool's output may take in the prompt; the rest is cut with a visible note. */
  MCP_OUTPUT_MAX_TOKENS: int(4_000, 100, 100_000),
  /** Past this many enabled MCP tools, a tenant's turns get `find_tools` instead of every tool. */
  MCP_INLINE_TOOLS: int(12, 0, 128),
  /** Allow `http://` servers on loopback addresses (tests and development only). */
  MCP_ALLOW_LOOPBACK_HTTP: flag,
  /** Seals the servers' headers (and OAuth tokens) at rest; without it SLACK_TOKEN_ENCRYPTION_KEY is used. */
  MCP_SECRET_KEY: hex32('is 32 bytes as 64 hexadecimal characters (openssl rand -hex 32)'),
});
