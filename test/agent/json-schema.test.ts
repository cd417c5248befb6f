import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  GEMINI_KEYWORDS,
  OPENAI_STRICT_FORMATS,
  OPENAI_STRICT_KEYWORDS,
  stripNulls,
  toolParameters,
} from '../../src/agent/json-schema.js';
import { parseArguments } from '../../src/agent/registry.js';
import {
  GEMINI_DOCUMENTED_KEYWORDS,
  geminiViolations,
  OPENAI_STRICT_DOCUMENTED_FORMATS,
  OPENAI_STRICT_DOCUMENTED_KEYWORDS,
  openAiStrictViolations,
} from '../helpers/schema-rules.js';

const sample = z.object({
  query: z.string().min(1).max(500).describe('What to search for'),
  limit: z.number().int().min(1).max(50).optional(),
  channel: z.array(z.enum(['email', 'social', 'web'])).optional(),
  kind: z.literal('fixed').optional(),
  when: z.object({ from: z.iso.date().optional(), to: z.iso.date().optional() }).optional(),
  strict: z.boolean().default(false),
});

describe('tool JSON Schema export', () => {
  it('meets OpenAI strict-mode rules: all required, optional as nullable, closed objects', () => {
    const schema = toolParameters(sample, 'openai');
    expect(openAiStrictViolations(schema)).toEqual([]);
    const props = schema.properties as Record<string, Record<string, unknown>>;
    expect(schema.required).toEqual(Object.keys(sample.shape));
    expect(props.limit?.type).toEqual(['integer', 'null']);
    expect(props.query).toMatchObject({ type: 'string', description: 'What to search for' });
    expect(props.query).not.toHaveProperty('maxLength');
    expect(props.when).toMatchObject({ type: ['object', 'null'], additionalProperties: false });
    expect(props.kind).toMatchObject({ type: ['string', 'null'], enum: ['fixed', null] });
  });

  it('meets Gemini function-declaration rules: nullable, no additionalProperties, single types', () => {
    const schema = toolParameters(sample, 'gemini');
    expect(geminiViolations(schema)).toEqual([]);
    const props = schema.properties as Record<string, Record<string, unknown>>;
    expect(props.kind).toMatchObject({ type: 'string', enum: ['fixed'] });
    expect(schema).not.toHaveProperty('additionalProperties');
    expect(schema.required).toEqual(['query']);
  });

  it('checker catches violations (it can fail)', () => {
    expect(openAiStrictViolations({ type: 'object', properties: { a: { type: 'string' } } })).toHaveLength(2);
    expect(geminiViolations({ type: ['string', 'null'], additionalProperties: false })).toHaveLength(2);
    // Keywords JSON Schema has and the providers' docs do not list.
    expect(
      openAiStrictViolations({
        type: 'object',
        additionalProperties: false,
        required: ['a'],
        properties: { a: { type: 'string', minLength: 1, format: 'uri' } },
      }),
    ).toEqual(['$.a: unsupported keyword "minLength"', '$.a: unsupported format']);
    expect(geminiViolations({ type: 'string', format: 'email', oneOf: [] })).toEqual([
      '$: unsupported keyword "oneOf"',
      '$: unsupported format',
    ]);
  });

  it("the exporter's allowlists stay within what the providers document", () => {
    expect([...OPENAI_STRICT_KEYWORDS].filter((k) => !OPENAI_STRICT_DOCUMENTED_KEYWORDS.has(k))).toEqual([]);
    expect([...OPENAI_STRICT_FORMATS].filter((f) => !OPENAI_STRICT_DOCUMENTED_FORMATS.has(f))).toEqual([]);
    expect([...GEMINI_KEYWORDS].filter((k) => !GEMINI_DOCUMENTED_KEYWORDS.has(k))).toEqual([]);
  });

  it('treats null from the model as "not given" and validates the rest with zod', () => {
    expect(stripNulls({ a: null, b: [{ c: null, d: 1 }] })).toEqual({ b: [{ d: 1 }] });
    const ok = parseArguments(
      '{"query":"cash back","limit":null,"channel":null,"kind":null,"when":null,"strict":null}',
      sample,
    );
    expect(ok).toEqual({ ok: true, value: { query: 'cash back', strict: false } });
  });

  it('turns bad JSON and schema failures into short fixable messages', () => {
    const bad = parseArguments('{"query": ', sample);
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toMatch(/not valid JSON/);
    const wrong = parseArguments(JSON.stringify({ query: '', limit: 500 }), sample);
    expect(!wrong.ok && wrong.error).toMatch(/query: .*limit: /s);
  });
});
