import type { z } from 'zod';
import type { ToolSpec } from '../contract/llm.js';
import { type Dialect, jsonToolParameters, stripNulls, toolParameters } from './json-schema.js';
import type { AnyTool, OfferContext, Toolsets, ToolSource } from '../contract/tool.js';
import { truncate } from '../reply/text.js';
import { approvalSettings, gateCall } from '../contract/approvals.js';

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** A tool as offered on one step: the schema it was offered with is the one that validates. */
export interface OfferedTool {
  tool: AnyTool;
  schema: z.ZodObject;
  spec: ToolSpec;
}

export interface ToolRegistry {
  readonly tools: readonly AnyTool[];
  /** The tools to offer on this step (those whose `offer()` is true), optionally limited to `only`. */
  offered(ctx: OfferContext, only?: readonly string[]): Promise<Map<string, OfferedTool>>;
  /** Text the tools contribute to the system context, from thread state (sent after the conversation). */
  contexts(ctx: OfferContext): Promise<string[]>;
  /** Tenant-level text the tools contribute (sent right after the system prompt). */
  instructions(ctx: OfferContext): Promise<string[]>;
  /**
   * Why `name` may not run for this tenant (its family is off), or undefined. A tool that is
   * off is never offered; this is the answer when the model calls it anyway.
   */
  refusal(ctx: OfferContext, name: string): Promise<string | undefined>;
  /** Whether `name`'s family is on for this tenant (a page listing what the bot can do; logs nothing). */
  familyOn(ctx: OfferContext, name: string): Promise<boolean>;
}

export interface RegistryOptions {
  /** The tool families each tenant may use; without it every tool is on. */
  toolsets?: Toolsets;
  /** Tools that exist per tenant at run time (a tenant's MCP servers): offered beside these, through the same policy. */
  sources?: readonly ToolSource[];
}

export function createToolRegistry(
  tools: readonly AnyTool[],
  dialect: Dialect,
  opts: RegistryOptions = {},
): ToolRegistry {
  const byName = new Map<string, AnyTool>();
  for (const tool of tools) {
    if (!TOOL_NAME.test(tool.name)) throw new Error(`Tool name "${tool.name}" must match ${TOOL_NAME}`);
    if (byName.has(tool.name)) throw new Error(`Tool "${tool.name}" is registered twice`);
    byName.set(tool.name, tool);
  }
  // Each schema object is exported once: static ones, and dynamic ones (inputFor) that a tool
  // hands out again (a tool that caches its narrowed schemas); a new object is exported anew.
  const specs = new WeakMap<z.ZodObject, Map<string, ToolSpec>>();
  const specOf = (tool: AnyTool, schema: z.ZodObject): ToolSpec => {
    let byTool = specs.get(schema);
    if (!byTool) specs.set(schema, (byTool = new Map()));
    let spec = byTool.get(tool.name);
    if (!spec) byTool.set(tool.name, (spec = toolSpec(tool, schema, dialect)));
    return spec;
  };

  const noFamilies: ReadonlySet<string> = new Set();
  /** Tools whose family is off for this tenant are out: one cached lookup per step. */
  const allowed = async (ctx: OfferContext): Promise<(tool: AnyTool) => boolean> => {
    const on = await familiesOn(ctx);
    // A tool whose approval policy is `off` for this tenant is never offered (issue 43).
    const settings = approvalSettings(ctx.tenant.settings);
    if (!settings.policy) return on;
    return (tool) => on(tool) && !policyOff(tool, settings);
  };
  const policyOff = (tool: AnyTool, settings: ReturnType<typeof approvalSettings>) =>
    // The role only moves a default between auto and approve; `off` is always the tenant's own word.
    gateCall(tool, { role: 'member' }, settings).gate === 'off';
  const familiesOn = async (ctx: OfferContext): Promise<(tool: AnyTool) => boolean> => {
    if (!opts.toolsets || !tools.some((t) => t.family)) return () => true;
    const enabled = await opts.toolsets.enabled(ctx).catch((err: unknown) => {
      // A failed lookup must not open every family: only tools without a family stay on.
      ctx.log.warn({ err, tenant: ctx.tenant.id }, 'could not read the tenant’s tool families; offering none');
      return noFamilies;
    });
    return (tool) => !tool.family || enabled.has(tool.family);
  };

  /** The tenant's tools from the sources (never one that shadows ours or has a name providers refuse). */
  const fromSources = async (ctx: OfferContext): Promise<AnyTool[]> => {
    if (!opts.sources?.length) return [];
    const lists = await Promise.all(opts.sources.map((s) => s.tools(ctx).catch(() => [] as AnyTool[])));
    return lists.flat().filter((t) => TOOL_NAME.test(t.name) && !byName.has(t.name));
  };

  return {
    tools,
    async offered(ctx, only) {
      const on = await allowed(ctx);
      const dynamic = await fromSources(ctx);
      const all = dynamic.length ? [...tools, ...dynamic] : tools;
      const candidates = (only ? all.filter((t) => only.includes(t.name)) : all).filter(on);
      const decisions = await Promise.all(
        candidates.map(async (tool) => (((await tool.offer?.(ctx)) ?? true) ? tool : undefined)),
      );
      const result = new Map<string, OfferedTool>();
      for (const tool of decisions) {
        if (!tool) continue;
        const schema = tool.inputFor ? await tool.inputFor(ctx) : tool.input;
        result.set(tool.name, { tool, schema, spec: specOf(tool, schema) });
      }
      return result;
    },
    async contexts(ctx) {
      const on = await allowed(ctx);
      const parts = await Promise.all(tools.filter(on).map((t) => t.context?.(ctx)));
      return parts.filter((p): p is string => typeof p === 'string' && p.length > 0);
    },
    async instructions(ctx) {
      const on = await allowed(ctx);
      const parts = await Promise.all(tools.filter(on).map((t) => t.instructions?.(ctx)));
      return parts.filter((p): p is string => typeof p === 'string' && p.length > 0);
    },
    async familyOn(ctx, name) {
      const tool = byName.get(name);
      return tool !== undefined && (await allowed(ctx))(tool);
    },
    async refusal(ctx, name) {
      const tool = byName.get(name);
      if (!tool || (await allowed(ctx))(tool)) return undefined;
      if (policyOff(tool, approvalSettings(ctx.tenant.settings))) {
        ctx.log.warn(
          { tool: name, tenant: ctx.tenant.slug ?? ctx.tenant.id },
          'model called a tool this tenant turned off; refused',
        );
        return `${name} is turned off in this workspace. Do not call it again; answer without it.`;
      }
      ctx.log.warn(
        { tool: name, family: tool.family, tenant: ctx.tenant.slug ?? ctx.tenant.id },
        'model called a tool whose family is off for this tenant; refused',
      );
      return `${name} is not available in this workspace (its ${tool.family} tools are turned off). Do not call it again; answer without it.`;
    },
  };
}

export function toolSpec(tool: AnyTool, schema: z.ZodObject, dialect: Dialect): ToolSpec {
  if (tool.jsonSchema) {
    // A schema from elsewhere (an MCP server): strict only where strict mode can express it.
    const { parameters, strict } = jsonToolParameters(tool.jsonSchema, dialect);
    return {
      type: 'function',
      function: {
        name: tool.name,
        description: tool.description,
        parameters,
        ...(dialect === 'openai' ? { strict } : {}),
      },
    };
  }
  return {
    type: 'function',
    function: {
      name: tool.name,
      description: tool.description,
      parameters: toolParameters(schema, dialect),
      // Gemini's compatible endpoint rejects `strict`; OpenAI enforces the schema with it.
      ...(dialect === 'openai' ? { strict: true } : {}),
    },
  };
}

export type ParsedArguments = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

/** Parses a model's raw argument text against the offered schema into a fixable error or a value. */
export function parseArguments(raw: string, schema: z.ZodObject): ParsedArguments {
  let json: unknown;
  try {
    json = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch {
    return { ok: false, error: `Arguments are not valid JSON (${truncate(raw, 80)}). Send one JSON object.` };
  }
  // Before anything else walks the value: stripNulls and zod recurse, so depth is checked first.
  const shape = checkShape(json);
  if (shape?.problem === 'depth')
    return {
      ok: false,
      error: `Invalid arguments: nested deeper than ${MAX_ARGUMENT_DEPTH} levels (at ${truncate(shape.path, 80)}); send only the fields the tool describes, without extra nesting.`,
    };
  if (shape?.problem === 'key')
    return {
      ok: false,
      error: `Invalid arguments: ${shape.path}: this key name is not allowed; send only the fields the tool describes.`,
    };
  const result = schema.safeParse(stripNulls(json));
  if (result.success) return { ok: true, value: result.data as Record<string, unknown> };
  const problems = result.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`);
  return { ok: false, error: `Invalid arguments: ${problems.join('; ')}` };
}

/** Keys that reach an object's prototype when assigned: refused before anything copies them. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * How deep (objects and arrays, the arguments object being level 1) a tool's arguments may nest.
 * No tool schema comes near it; a deeper value is a model gone wrong, and the recursive walks
 * after this check (stripNulls, zod) would overflow the stack on one 20,000 levels deep.
 */
export const MAX_ARGUMENT_DEPTH = 64;

/** A value on the walk: its parent and its key there, so a path is spelled only when one is reported. */
interface Visit {
  value: unknown;
  depth: number;
  parent?: Visit;
  key?: string | number;
}

function pathOf(visit: Visit): string {
  const keys: (string | number)[] = [];
  for (let v: Visit | undefined = visit; v?.key !== undefined; v = v.parent) keys.push(v.key);
  return keys
    .reverse()
    .reduce<string>((path, key) => (typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key), '');
}

/**
 * The first problem in parsed JSON, in document order: nesting past {@link MAX_ARGUMENT_DEPTH},
 * or a prototype key (JSON.parse makes `__proto__` an own key). An explicit stack, not recursion:
 * the input is model-written and may nest as deep as its length.
 */
function checkShape(json: unknown): { problem: 'depth' | 'key'; path: string } | undefined {
  const stack: Visit[] = [{ value: json, depth: 1 }];
  for (let visit = stack.pop(); visit; visit = stack.pop()) {
    const { value, depth, key } = visit;
    if (typeof key === 'string' && PROTOTYPE_KEYS.has(key)) return { problem: 'key', path: pathOf(visit) };
    if (value === null || typeof value !== 'object') continue;
    if (depth > MAX_ARGUMENT_DEPTH) return { problem: 'depth', path: pathOf(visit) || '(root)' };
    const children: Visit[] = Array.isArray(value)
      ? value.map((v, i) => ({ value: v, depth: depth + 1, parent: visit, key: i }))
      : Object.entries(value).map(([k, v]) => ({ value: v, depth: depth + 1, parent: visit, key: k }));
    // Reversed, so the first child is visited first and the first problem found is the first written.
    for (let i = children.length - 1; i >= 0; i -= 1) stack.push(children[i]!);
  }
  return undefined;
}
