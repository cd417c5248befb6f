import type { Config } from '../config/index.js';
import { urlProblem } from '../net/public-fetch.js';
import { describeFailure } from './connections.js';
import { namesOf, serverNameProblem } from './names.js';
import type { McpRuntime } from './index.js';
import { McpStoreError, summarize, type McpServer, type McpServerSummary } from './store.js';
import { isEnabled, type McpToolInfo } from './tools.js';

/**
 * What an operator does with a tenant's MCP servers, shared by `npm run tenants -- mcp …` and the
 * admin API: each returns a result or a message the operator can act on (never a stack trace,
 * never a header's value).
 */
export type McpAdminResult<T> = { ok: true; value: T } | { ok: false; status: 400 | 404 | 502; error: string };

/** One of a server's tools as an operator sees it. */
export interface McpToolView {
  name: string;
  tool: string;
  description?: string;
  /** The server's claim; the tenant's approval policy decides. */
  readOnly: boolean;
  enabled: boolean;
}

/** Header names the transports set themselves, or that would let a server's row steer our requests. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'accept',
  'connection',
  'transfer-encoding',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
]);
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/;

/** Parses `K=V` headers (repeatable `--header`). */
export function parseHeaders(
  list: readonly string[],
): { ok: true; headers: Record<string, string> } | { ok: false; error: string } {
  const headers: Record<string, string> = {};
  for (const item of list) {
    const at = item.indexOf('=');
    const name = (at > 0 ? item.slice(0, at) : '').trim().toLowerCase();
    const value = at > 0 ? item.slice(at + 1).trim() : '';
    if (!HEADER_NAME.test(name) || !value || /[\r\n\0]/.test(value) || value.length > 4_000)
      return {
        ok: false,
        error: `“${item.split('=')[0]?.slice(0, 40) ?? ''}=…” is not a header; use --header Name=value`,
      };
    if (RESERVED_HEADERS.has(name))
      return { ok: false, error: `the ${name} header is set by the transport; it cannot be given` };
    headers[name] = value;
  }
  return { ok: true, headers };
}

/** This deployment's own secrets (model keys, platform and API tokens): none may be sent to a server. */
function ownSecretIn(config: Partial<Config>, headers: Record<string, string>): string | undefined {
  for (const [key, value] of Object.entries(config)) {
    if (!/KEY|TOKEN|SECRET|PASSWORD/.test(key) || typeof value !== 'string' || value.length < 8) continue;
    if (Object.values(headers).some((h) => h.includes(value))) return key;
  }
  return undefined;
}

export function toolViews(server: McpServer, tools: readonly McpToolInfo[]): McpToolView[] {
  const { names } = namesOf(
    server.name,
    tools.map((t) => t.name),
  );
  return tools.flatMap((t) => {
    const name = names.get(t.name);
    if (!name) return [];
    return [
      {
        name,
        tool: t.name,
        ...(t.description ? { description: t.description } : {}),
        readOnly: t.readOnly,
        enabled: isEnabled(t, server),
      },
    ];
  });
}

export async function addServer(
  mcp: McpRuntime,
  config: Partial<Config>,
  tenantId: string,
  input: { name: string; url: string; headers?: Record<string, string>; authKind?: 'headers' | 'oauth' },
): Promise<McpAdminResult<{ server: McpServerSummary; tools: McpToolView[]; transport?: string }>> {
  const nameProblem = serverNameProblem(input.name);
  if (nameProblem) return { ok: false, status: 400, error: nameProblem };
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    return { ok: false, status: 400, error: `“${input.url.slice(0, 80)}” is not a URL` };
  }
  const problem = urlProblem(url, { allowLoopbackHttp: config.MCP_ALLOW_LOOPBACK_HTTP === true });
  if (problem) return { ok: false, status: 400, error: problem };
  const headers = input.headers ?? {};
  const secret = ownSecretIn(config, headers);
  if (secret)
    return { ok: false, status: 400, error: `a header carries this deployment's ${secret}; MCP servers never get it` };
  if (await mcp.store.get(tenantId, input.name))
    return { ok: false, status: 400, error: `this tenant already has an MCP server named ${input.name}` };

  const draft: McpServer = {
    id: 'new',
    tenantId,
    name: input.name,
    url: url.toString(),
    headers,
    authKind: input.authKind ?? 'headers',
    enabledTools: [],
    disabledTools: [],
    createdAt: '',
    updatedAt: '',
  };
  let tools: McpToolInfo[] = [];
  let transport: string | undefined;
  // An OAuth server is listed once an operator completed its consent.
  if (draft.authKind !== 'oauth') {
    try {
      ({ tools, transport } = await mcp.hub.probe(draft));
    } catch (err) {
      return { ok: false, status: 502, error: `could not list the server's tools: ${describeFailure(err).message}` };
    }
    const { collisions } = namesOf(
      input.name,
      tools.map((t) => t.name),
    );
    if (collisions.length)
      return {
        ok: false,
        status: 400,
        error: `tool names collide once namespaced: ${collisions.slice(0, 3).join('; ')}`,
      };
  }
  try {
    const saved = await mcp.store.add(tenantId, {
      name: input.name,
      url: draft.url,
      headers,
      authKind: draft.authKind,
    });
    mcp.hub.invalidate(tenantId);
    return {
      ok: true,
      value: { server: summarize(saved), tools: toolViews(saved, tools), ...(transport ? { transport } : {}) },
    };
  } catch (err) {
    if (err instanceof McpStoreError) return { ok: false, status: 400, error: err.message };
    throw err;
  }
}

export async function removeServer(
  mcp: McpRuntime,
  tenantId: string,
  name: string,
): Promise<McpAdminResult<{ name: string }>> {
  const removed = await mcp.store.remove(tenantId, name);
  mcp.hub.invalidate(tenantId);
  return removed ? { ok: true, value: { name } } : { ok: false, status: 404, error: `no MCP server named ${name}` };
}

/** A server's tools, listed now (so an operator sees what the server offers today). */
export async function serverTools(
  mcp: McpRuntime,
  tenantId: string,
  name: string,
): Promise<McpAdminResult<{ server: McpServerSummary; tools: McpToolView[] }>> {
  const server = await mcp.store.get(tenantId, name);
  if (!server) return { ok: false, status: 404, error: `no MCP server named ${name}` };
  const entry = await mcp.hub.refresh(server);
  if (entry.error !== undefined && (entry.failedAt ?? 0) >= entry.fetchedAt)
    return { ok: false, status: 502, error: `could not list the server's tools: ${entry.error}` };
  return { ok: true, value: { server: summarize(server), tools: toolViews(server, entry.tools) } };
}

/** Turns tools on or off (by the server's names or the namespaced ones; `*` for every tool listed now). */
export async function setToolsEnabled(
  mcp: McpRuntime,
  tenantId: string,
  name: string,
  tools: readonly string[],
  on: boolean,
): Promise<McpAdminResult<{ server: McpServerSummary; tools: McpToolView[] }>> {
  const listed = await serverTools(mcp, tenantId, name);
  if (!listed.ok) return listed;
  const known = listed.value.tools;
  const picked: string[] = [];
  for (const t of tools) {
    const match = t === '*' ? known : known.filter((k) => k.tool === t || k.name === t);
    if (match.length === 0) return { ok: false, status: 400, error: `${name} has no tool ${t}` };
    picked.push(...match.map((m) => m.tool));
  }
  const server = listed.value.server;
  const enabled = new Set(server.enabledTools);
  const disabled = new Set(server.disabledTools);
  for (const t of picked) {
    (on ? enabled : disabled).add(t);
    (on ? disabled : enabled).delete(t);
  }
  const saved = await mcp.store.setTools(tenantId, name, { enabled: [...enabled], disabled: [...disabled] });
  if (!saved) return { ok: false, status: 404, error: `no MCP server named ${name}` };
  mcp.hub.invalidate(tenantId);
  const byTool = new Map(known.map((k) => [k.tool, k]));
  return {
    ok: true,
    value: {
      server: summarize(saved),
      tools: [...byTool.values()].map((k) => ({
        ...k,
        enabled: !saved.disabledTools.includes(k.tool) && (saved.enabledTools.includes(k.tool) || k.readOnly),
      })),
    },
  };
}
