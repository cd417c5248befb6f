/**
 * Tool definitions as an OpenAI model receives them. The API does not put the JSON Schema
 * text into the prompt: it renders the tools as TypeScript-like declarations inside a
 * `namespace functions { … }` block. `openai-chat-tokens` (MIT) reproduces that format; we
 * count its output with our tokenizer (o200k, as gpt-4o and later use) and check the estimate
 * against prompt_tokens that OpenAI itself reported for known requests: the recorded gpt-4o
 * streams in test/fixtures/openai-streams, made by openai-python's tests.
 *
 * The JSON text of a definition (what `countTokens(JSON.stringify(spec))` gives) is the upper
 * bound a provider would bill if it pasted the schema into the prompt verbatim; the benches
 * print both.
 */
import { readFileSync } from 'node:fs';
import { formatFunctionDefinitions } from 'openai-chat-tokens/dist/functions.js';
import { countTokens } from '../../src/contract/tokens.js';

type Json = Record<string, unknown>;
export interface FunctionDef {
  name: string;
  description?: string;
  parameters?: Json;
}

/** The tokens OpenAI adds per request once any tool is offered (the namespace header; the library's figure). */
const TOOLS_OVERHEAD = 9;

/**
 * Strict mode writes an optional field as `"type": ["string", "null"]`; the formatter knows
 * `anyOf`. Rewrites one into the other (the rendered type is the same: `string | null`).
 */
function normalize(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(normalize);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) out[k] = normalize(v);
  if (Array.isArray(out.type)) {
    const { type, description, ...rest } = out;
    return {
      ...(description === undefined ? {} : { description }),
      anyOf: (type as string[]).map((t) => ({ ...rest, type: t })),
    };
  }
  return out;
}

function asFormatterInput(fns: FunctionDef[]): Parameters<typeof formatFunctionDefinitions>[0] {
  // The library's parameter type is its own JSON-schema subset; normalize() produced exactly that shape.
  return fns.map((f) => ({
    name: f.name,
    ...(f.description ? { description: f.description } : {}),
    parameters: normalize(f.parameters ?? { type: 'object', properties: {} }),
  })) as Parameters<typeof formatFunctionDefinitions>[0];
}

/** Prompt tokens the tools add to a request, as OpenAI renders them. */
export function renderedToolTokens(fns: FunctionDef[]): number {
  return fns.length ? countTokens(formatFunctionDefinitions(asFormatterInput(fns))) + TOOLS_OVERHEAD : 0;
}

/** Prompt tokens one definition adds when offered alongside others (without the per-request overhead). */
export function renderedDefinitionTokens(fn: FunctionDef): number {
  return countTokens(formatFunctionDefinitions(asFormatterInput([fn]))) - countTokens(formatFunctionDefinitions([]));
}

/** Messages as the chat format counts them: 3 tokens a message plus its role and content, and 3 to prime the reply. */
function messageTokens(messages: { role: string; content: string }[]): number {
  return messages.reduce((n, m) => n + 3 + countTokens(m.role) + countTokens(m.content), 3);
}

/**
 * The estimate against OpenAI's own count, for the two recorded requests whose tools look like
 * ours (plain properties, no pydantic titles or defaults): openai-python's
 * `test_parse_strict_tools` and `test_allows_non_strict_tools_but_no_parsing`.
 */
export function calibration(): string {
  const recorded = (file: string) => {
    const sse = readFileSync(new URL(`../../test/fixtures/openai-streams/${file}`, import.meta.url), 'utf8');
    return Number(/"prompt_tokens":(\d+)/.exec(sse)?.[1]);
  };
  const cases = [
    {
      file: 'strict-tools.sse',
      messages: [{ role: 'user', content: "What's the weather like in SF?" }],
      tools: [
        {
          name: 'get_weather',
          parameters: {
            type: 'object',
            properties: { city: { type: 'string' }, state: { type: 'string' } },
            required: ['city', 'state'],
            additionalProperties: false,
          },
        },
      ],
    },
    {
      file: 'non-strict-tool-call.sse',
      messages: [{ role: 'user', content: "what's the weather in NYC?" }],
      tools: [{ name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
    },
  ];
  return cases
    .map(
      (c) =>
        `${c.file}: OpenAI counted ${recorded(c.file)}, estimate ${messageTokens(c.messages) + renderedToolTokens(c.tools)}`,
    )
    .join('; ');
}
