import { GEMINI_KEYWORDS, OPENAI_STRICT_FORMATS, OPENAI_STRICT_KEYWORDS } from '../../src/agent/json-schema.js';

type Json = Record<string, unknown>;
const isJson = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The documented rules of OpenAI strict mode, checked independently of the exporter:
 * root is an object; every object has additionalProperties false and lists every property
 * in `required`; only supported keywords; every node has a type, anyOf, enum or const.
 */
export function openAiStrictViolations(schema: Json, path = '$'): string[] {
  const out: string[] = [];
  if (path === '$' && schema.type !== 'object') out.push(`${path}: root must be type object`);
  for (const key of Object.keys(schema)) {
    if (!OPENAI_STRICT_KEYWORDS.has(key)) out.push(`${path}: unsupported keyword "${key}"`);
  }
  if (schema.format !== undefined && !OPENAI_STRICT_FORMATS.has(String(schema.format)))
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
    if (!GEMINI_KEYWORDS.has(key)) out.push(`${path}: unsupported keyword "${key}"`);
  if (schema.type !== undefined && typeof schema.type !== 'string') out.push(`${path}: type must be one string`);
  if (schema.type === 'null') out.push(`${path}: null type (use nullable)`);
  if (schema.format !== undefined && !['enum', 'date-time'].includes(String(schema.format)))
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
