import { createHash } from 'node:crypto';

/**
 * Names of a tenant's MCP servers and of the tools they bring (issue 44). A server's name is
 * lower-case letters, digits and single hyphens (≤ 30), so `<server>__<tool>` is unambiguous; a
 * tool's own name is lower-cased and anything outside `[a-z0-9_-]` becomes `_` (the providers'
 * function names, and the keys of a tenant's approval policy). A name past 64 characters keeps its
 * first 57 and a short hash of the whole.
 */
export const SERVER_NAME = /^[a-z0-9](?:-?[a-z0-9])*$/;
export const SERVER_NAME_MAX = 30;
export const TOOL_NAME_MAX = 64;
const SEPARATOR = '__';

/** Why `name` cannot name a server, or undefined. */
export function serverNameProblem(name: string): string | undefined {
  if (!SERVER_NAME.test(name) || name.length > SERVER_NAME_MAX)
    return `a server name is 1 to ${SERVER_NAME_MAX} lower-case letters, digits and single hyphens (got “${name.slice(0, 40)}”)`;
  return undefined;
}

/** The name the model and the tenant's policy see for `tool` of `server`: `<server>__<tool>`, ≤ 64 characters. */
export function namespacedName(server: string, tool: string): string {
  const cleaned = tool.toLowerCase().replace(/[^a-z0-9_-]/g, '_');
  const full = `${server}${SEPARATOR}${cleaned}`;
  if (full.length <= TOOL_NAME_MAX) return full;
  const hash = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 6);
  return `${full.slice(0, TOOL_NAME_MAX - 7)}_${hash}`;
}

/** Whether `name` is one of an MCP server's tools (our own tools never hold `__`). */
export function isMcpToolName(name: string): boolean {
  return name.includes(SEPARATOR);
}

/**
 * The namespaced names of a server's tools, and the tools whose names collide (two tools that
 * clean to the same name, or one equal to a name already taken by another source).
 */
export function namesOf(
  server: string,
  tools: readonly string[],
  taken: ReadonlySet<string> = new Set(),
): { names: Map<string, string>; collisions: string[] } {
  const names = new Map<string, string>();
  const seen = new Map<string, string>();
  const collisions: string[] = [];
  for (const tool of tools) {
    const name = namespacedName(server, tool);
    const other = seen.get(name);
    if (other !== undefined || taken.has(name)) {
      collisions.push(
        other !== undefined ? `${other} and ${tool} both become ${name}` : `${tool} becomes ${name}, which is taken`,
      );
      continue;
    }
    seen.set(name, tool);
    names.set(tool, name);
  }
  return { names, collisions };
}
