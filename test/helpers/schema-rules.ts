/**
 * The providers' documented schema rules, written down here from their docs and NOT imported from
 * src/agent/json-schema.ts: a keyword the exporter wrongly allows must fail these checks, so the
 * two lists must not be one list. When a provider's docs change, change this file from the docs.
 */
type Json = Record<string, unknown>;
const isJson = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * OpenAI Structured Outputs / strict function calling, "Supported schemas"
 * (https://platform.openai.com/docs/guides/structured-outputs#supported-schemas): the types
 * (string, number, boolean, integer, object, array, enum, anyOf) with `description`;
 * objects with `properties`, `required`, `additionalProperties: false`; arrays with `items`,
 * `minItems`, `maxItems`; strings with `pattern` and `format`; numbers with `multipleOf`,
 * `maximum`, `exclusiveMaximum`, `minimum`, `exclusiveMinimum`; definitions through `$defs`/`$ref`.
 * `const` is not in that list but is accepted (OpenAI's own zod helpers emit it for literals).
 */
export const OPENAI_STRICT_DOCUMENTED_KEYWORDS = new Set([
  'type',
  'description',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minItems',
  'maxItems',
  'enum',
  'const',
  'anyOf',
  'pattern',
  'format',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  '$defs',
  '$ref',
]);
/** The same page's string formats. */
export const OPENAI_STRICT_DOCUMENTED_FORMATS = new Set([
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

/**
 * Gemini function declarations: "a select subset of an OpenAPI 3.0 schema object"
 * (https://ai.google.dev/api/caching#Schema): type (one value), format, title, description,
 * nullable, enum, maxItems, minItems, properties, required, minProperties, maxProperties,
 * minLength, maxLength, pattern, example, anyOf, propertyOrdering, default, items, minimum, maximum.
 */
export const GEMINI_DOCUMENTED_KEYWORDS = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
]);
/** The same page: NUMBER float/double, INTEGER int32/int64, STRING enum/date-time. */
const GEMINI_DOCUMENTED_FORMATS: Record<string, readonly string[]> = {
  number: ['float', 'double'],
  integer: ['int32', 'int64'],
  string: ['enum', 'date-time'],
};

/**
 * The documented rules of OpenAI strict mode, checked independently of the exporter:
 * root is an object; every object has additionalProperties false and lists every property
 * in `required`; only supported keywords; every node has a type, anyOf, enum or const.
 */
export function openAiStrictViolations(schema: Json, path = '$'): string[] {
  const out: string[] = [];
  if (path === '$' && schema.type !== 'object') out.push(`${path}: root must be type object`);
  for (const key of Object.keys(schema)) {
    if (!OPENAI_STRICT_DOCUMENTED_KEYWORDS.has(key)) out.push(`${path}: unsupported keyword "${key}"`);
  }
  if (schema.format !== undefined && !OPENAI_STRICT_DOCUMENTED_FORMATS.has(String(schema.format)))
    out.push(`${path}: unsupported format`);
  if (!('type' in schema) && !('anyOf' in schema) && !('enum' in schema) && !('const' in schema))
    out.push(`${path}: node has no type`);
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (Array.isArray(schema.type) && (schema.type.length !== 2 || !schema.type.includes('null')))
    out.push(`${path}: a type list must be [T, "null"]`);
  if (Array.isArray(schema.enum) && types.includes('null') && !schema.enum.includes(null))
    out.push(`${path}: nullable enum must list null`);
  if ('const' in schema && types.includes('null')) out.push(`${path}: const on a nullable type excludes null`);
  if (types.includes('object')) {
    if (schema.additionalProperties !== false) out.push(`${path}: additionalProperties must be false`);
    const props = isJson(schema.properties) ? schema.properties : {};
    const required = Array.isArray(schema.required) ? schema.required : [];
    for (const name of Object.keys(props)) if (!required.includes(name)) out.push(`${path}.${name}: not in required`);
    for (const [name, p] of Object.entries(props))
      if (isJson(p)) out.push(...openAiStrictViolations(p, `${path}.${name}`));
  }
  if (isJson(schema.items)) out.push(...openAiStrictViolations(schema.items, `${path}[]`));
  if (Array.isArray(schema.anyOf))
    schema.anyOf.forEach((b, i) => isJson(b) && out.push(...openAiStrictViolations(b, `${path}|${i}`)));
  return out;
}

/** Gemini's function-declaration subset of OpenAPI 3.0. */
export function geminiViolations(schema: Json, path = '$'): string[] {
  const out: string[] = [];
  for (const key of Object.keys(schema))
    if (!GEMINI_DOCUMENTED_KEYWORDS.has(key)) out.push(`${path}: unsupported keyword "${key}"`);
  if (schema.type !== undefined && typeof schema.type !== 'string') out.push(`${path}: type must be one string`);
  if (schema.type === 'null') out.push(`${path}: null type (use nullable)`);
  if (
    schema.format !== undefined &&
    !(GEMINI_DOCUMENTED_FORMATS[String(schema.type).toLowerCase()] ?? []).includes(String(schema.format))
  )
    out.push(`${path}: unsupported format`);
  if (isJson(schema.properties)) {
    for (const [name, p] of Object.entries(schema.properties))
      if (isJson(p)) out.push(...geminiViolations(p, `${path}.${name}`));
  }
  if (isJson(schema.items)) out.push(...geminiViolations(schema.items, `${path}[]`));
  if (Array.isArray(schema.anyOf))
    schema.anyOf.forEach((b, i) => isJson(b) && out.push(...geminiViolations(b, `${path}|${i}`)));
  return out;
}
