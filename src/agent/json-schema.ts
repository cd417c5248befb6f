import { z } from 'zod';

/**
 * Exports a tool's zod input schema as the JSON Schema a provider accepts.
 *
 * - `openai`: strict mode. Every property listed in `required`; optional ones become
 *   nullable (`anyOf [X, null]`), `additionalProperties: false` on every object, and only
 *   the keywords strict mode documents. Length limits are not among them, so they stay in
 *   zod and are enforced when the arguments are validated (a fixable error for the model).
 * - `gemini`: the OpenAPI 3.0 subset Gemini's function declarations take: `nullable`
 *   instead of null types, no `additionalProperties`, no `$ref`, no `const`.
 *
 * Either way, `null` from the model means "not given": {@link stripNulls} removes it
 * before zod validation.
 */
export type Dialect = 'openai' | 'gemini';
type Json = Record<string, unknown>;

export const OPENAI_STRICT_KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  'description',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);
export const OPENAI_STRICT_FORMATS = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
]);
export const GEMINI_KEYWORDS = new Set([
  'type',
  'format',
  'description',
  'nullable',
  'enum',
  'properties',
  'required',
  'items',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'anyOf',
  'propertyOrdering',
]);

export function toolParameters(schema: z.ZodType, dialect: Dialect): Json {
  const base = z.toJSONSchema(schema, {
    target: 'draft-7',
    io: 'input',
    reused: 'inline',
    cycles: 'throw',
    unrepresentable: 'throw',
  }) as Json;
  delete base.$schema;
  return dialect === 'openai' ? toStrict(base) : toGemini(base);
}

/**
 * A tool's JSON Schema from elsewhere (an MCP server's `inputSchema`) as a provider takes it, and
 * whether OpenAI's strict mode may enforce it: only when every node uses keywords strict mode can
 * express (or ones dropped safely because the arguments are validated against the full schema
 * anyway: titles, defaults, length limits). Otherwise the schema goes as it is, non-strict.
 */
export function jsonToolParameters(schema: Json, dialect: Dialect): { parameters: Json; strict: boolean } {
  const { $schema: _ignored, ...rest } = schema;
  const base: Json = { ...rest, type: 'object', properties: isJson(rest.properties) ? rest.properties : {} };
  if (dialect === 'gemini') return { parameters: toGemini(base), strict: false };
  return strictExpressible(base) ? { parameters: toStrict(base), strict: true } : { parameters: base, strict: false };
}

/** Keywords strict mode lacks that only narrow or annotate: dropped from the strict export, still validated. */
const DROPPABLE = new Set([
  '$schema',
  '$id',
  '$comment',
  'title',
  'default',
  'examples',
  'minLength',
  'maxLength',
  'minProperties',
  'maxProperties',
  'uniqueItems',
  'readOnly',
  'writeOnly',
  'deprecated',
  'contentMediaType',
  'contentEncoding',
]);

function strictExpressible(node: unknown, depth = 0): boolean {
  if (!isJson(node) || depth > 10) return false;
  for (const [k, v] of Object.entries(node)) {
    if (DROPPABLE.has(k)) continue;
    if (!OPENAI_STRICT_KEYWORDS.has(k)) return false;
    if (k === 'additionalProperties' && v !== false) return false;
    if (k === 'format' && !OPENAI_STRICT_FORMATS.has(String(v))) continue;
    if (k === 'anyOf' && !(Array.isArray(v) && v.every((b) => strictExpressible(b, depth + 1)))) return false;
    if (k === 'items' && !strictExpressible(v, depth + 1)) return false;
    if (k === 'properties') {
      if (!isJson(v) || !Object.values(v).every((p) => strictExpressible(p, depth + 1))) return false;
    }
  }
  const types = Array.isArray(node.type) ? (node.type as unknown[]) : [node.type];
  if (types.filter((t) => t !== 'null').length > 1) return false;
  // A free-form object (no properties) cannot be strict: strict mode allows no key it was not told of.
  if (types.includes('object') && !(isJson(node.properties) && Object.keys(node.properties).length > 0))
    return depth === 0;
  return true;
}

function toStrict(node: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (!OPENAI_STRICT_KEYWORDS.has(k)) continue;
    if (k === 'format' && !OPENAI_STRICT_FORMATS.has(String(v))) continue;
    out[k] = v;
  }
  if (Array.isArray(out.anyOf)) out.anyOf = (out.anyOf as Json[]).map(toStrict);
  if (isJson(out.items)) out.items = toStrict(out.items);
  if (out.type === 'object' || isJson(out.properties)) {
    const props = (out.properties ?? {}) as Record<string, Json>;
    const required = new Set((out.required as string[] | undefined) ?? []);
    const strictProps: Record<string, Json> = {};
    for (const [name, prop] of Object.entries(props)) {
      const converted = toStrict(prop);
      strictProps[name] = required.has(name) ? converted : nullable(converted);
    }
    out.type = 'object';
    out.properties = strictProps;
    out.required = Object.keys(strictProps);
    out.additionalProperties = false;
  }
  return out;
}

function nullable(node: Json): Json {
  if (Array.isArray(node.anyOf)) {
    const branches = node.anyOf as Json[];
    return branches.some((b) => b.type === 'null') ? node : { ...node, anyOf: [...branches, { type: 'null' }] };
  }
  if (node.type === 'null') return node;
  // `type: [T, "null"]` is the compact form strict mode documents; anyOf only for compound nodes.
  if (typeof node.type === 'string') {
    const { const: constant, ...plain } = node;
    const values = constant !== undefined ? [constant] : (plain.enum as unknown[] | undefined);
    return { ...plain, type: [node.type, 'null'], ...(values ? { enum: [...values, null] } : {}) };
  }
  const { description, ...rest } = node;
  return description === undefined
    ? { anyOf: [rest, { type: 'null' }] }
    : { anyOf: [rest, { type: 'null' }], description };
}

function toGemini(node: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'const') out.enum = [v];
    else if (GEMINI_KEYWORDS.has(k)) out[k] = v;
  }
  if (out.format !== undefined && !(out.type === 'string' && ['enum', 'date-time'].includes(String(out.format)))) {
    delete out.format;
  }
  if (Array.isArray(out.anyOf)) {
    const branches = (out.anyOf as Json[]).filter((b) => b.type !== 'null').map(toGemini);
    const hadNull = branches.length !== (out.anyOf as Json[]).length;
    delete out.anyOf;
    if (branches.length === 1) Object.assign(out, branches[0], out.description ? { description: out.description } : {});
    else out.anyOf = branches;
    if (hadNull) out.nullable = true;
  }
  if (Array.isArray(out.type)) {
    const types = (out.type as string[]).filter((t) => t !== 'null');
    if (types.length !== (out.type as string[]).length) out.nullable = true;
    out.type = types[0];
  }
  if (isJson(out.items)) out.items = toGemini(out.items);
  if (isJson(out.properties)) {
    const props = out.properties as Record<string, Json>;
    out.properties = Object.fromEntries(Object.entries(props).map(([n, p]) => [n, toGemini(p)]));
    out.type = 'object';
  }
  return out;
}

function isJson(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Removes `null` members of objects: strict mode sends null for every omitted optional field. */
export function stripNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripNulls);
  if (!isJson(value)) return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = stripNulls(v);
  return out;
}
