import { ALL_FUNCTIONS, sqlType, type SqlFunctionName } from '../contract/catalogue.js';

/**
 * Checks a call's arguments against the catalogue before anything reaches SQL: names
 * must be known, required ones present, values of the declared type. Returns a problem
 * in words, or null. (TypeScript checks the same at compile time; this guards values
 * that came from a model or a file at run time.)
 */
export function checkArgs(fn: SqlFunctionName, args: Record<string, unknown>): string | null {
  const spec = ALL_FUNCTIONS[fn];
  for (const name of Object.keys(args)) {
    if (!Object.hasOwn(spec, name)) return `unknown argument "${name}" (expected: ${Object.keys(spec).join(', ')})`;
  }
  for (const [name, type] of Object.entries(spec)) {
    const value = args[name];
    const optional = type.endsWith('?');
    if (value === undefined || value === null) {
      if (!optional) return `missing argument "${name}"`;
      continue;
    }
    const problem = checkValue(sqlType(type), value);
    if (problem) return `argument "${name}": ${problem}`;
  }
  return null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function checkValue(type: string, value: unknown): string | null {
  switch (type) {
    case 'uuid':
      return typeof value === 'string' && UUID.test(value) ? null : 'expected a uuid';
    case 'text':
      return typeof value === 'string' ? null : 'expected a string';
    case 'date':
      return typeof value === 'string' && DATE.test(value) && !Number.isNaN(Date.parse(value))
        ? null
        : 'expected a date (YYYY-MM-DD)';
    case 'timestamp with time zone':
      return typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? null : 'expected an ISO timestamp';
    case 'integer':
      return Number.isSafeInteger(value) ? null : 'expected an integer';
    case 'double precision':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'expected a number';
    case 'boolean':
      return typeof value === 'boolean' ? null : 'expected true or false';
    case 'text[]':
      return Array.isArray(value) && value.every((v) => typeof v === 'string') ? null : 'expected a list of strings';
    case 'uuid[]':
      return Array.isArray(value) && value.every((v) => typeof v === 'string' && UUID.test(v))
        ? null
        : 'expected a list of uuids';
    case 'real[]':
      return Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'number' && Number.isFinite(v))
        ? null
        : 'expected a non-empty list of numbers';
    case 'jsonb':
      return null;
    default:
      return `unsupported type ${type}`;
  }
}
