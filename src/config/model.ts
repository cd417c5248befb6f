import { z } from 'zod';
import { ConfigError } from './error.js';
import { int, optionalString, optionalUrl } from './fields.js';
import { modelFallbacksSchema } from '../contract/model-chain.js';

/** USD per 1M tokens; `cachedInput` defaults to `input`. */
const modelPrice = z.strictObject({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cachedInput: z.number().nonnegative().optional(),
  /** The model's context window in tokens (sets HISTORY_MAX_TOKENS' default like the catalogue's). */
  contextWindow: z.number().int().positive().optional(),
});
export type ModelPrice = z.infer<typeof modelPrice>;
/** `MODEL_PRICES`: {"<model>": {"input": 0.2, "output": 0.6, "cachedInput": 0.05}}, by the model name as configured. */
const modelPrices = z
  .string()
  .trim()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v === '') return {};
    try {
      return JSON.parse(v) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'is not valid JSON' });
      return z.NEVER;
    }
  })
  .pipe(
    z.record(z.string().min(1), modelPrice, {
      error: 'expected {"<model>": {"input": <USD per 1M>, "output": <USD per 1M>, "cachedInput"?: <USD per 1M>}}',
    }),
  );

/** `MODEL_FALLBACKS`: [{"baseUrl", "model", "apiKeyEnv"}], the endpoints tried in order after the main one. */
const modelFallbacks = z
  .string()
  .trim()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v === '') return [];
    try {
      return JSON.parse(v) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'is not valid JSON' });
      return z.NEVER;
    }
  })
  .pipe(modelFallbacksSchema);

/** The model the agent talks to, its embeddings, the injection classifier and what models cost. */
export const modelSettings = z.object({
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: optionalUrl,
  OPENAI_MODEL: z.string().trim().min(1).default('gpt-4o-mini'),
  OPENAI_TIMEOUT_MS: int(60_000, 1_000),
  OPENAI_MAX_RETRIES: int(2, 0, 10),
  /** `openai` (strict JSON Schema) or `gemini` (OpenAPI subset); `auto` decides by base URL. */
  LLM_SCHEMA_DIALECT: z.enum(['auto', 'openai', 'gemini']).default('auto'),
  EMBEDDING_MODEL: optionalString,
  EMBEDDING_DIMENSIONS: int(1536, 1, 16_000),
  /** A classifier model (e.g. a Prompt Guard model) asked about each user message beside the first step; off when unset. */
  GUARD_MODEL: optionalString,
  /** Its OpenAI-compatible endpoint; default OPENAI_BASE_URL. */
  GUARD_BASE_URL: optionalUrl,
  /** The key for GUARD_BASE_URL (the chat key is never sent there); default OPENAI_API_KEY on the chat endpoint. */
  GUARD_API_KEY: optionalString,
  /** The classifier's budget per message; past it the message goes on without its verdict (fail-open). */
  GUARD_TIMEOUT_MS: int(300, 20, 10_000),
  /** Prices for models the bundled catalogue lacks or prices differently (self-hosted: 0). */
  MODEL_PRICES: modelPrices,
  /** Further endpoints a chat call fails over to, in order (src/provider/model-chain.ts). */
  MODEL_FALLBACKS: modelFallbacks,
  /** An endpoint's breaker opens after this many failures within a minute… */
  MODEL_BREAKER_FAILURES: int(5, 1, 1_000),
  /** …and lets one call probe it again this long after opening. */
  MODEL_BREAKER_COOLDOWN_MS: int(30_000, 100, 3_600_000),
});
type ModelSettings = z.infer<typeof modelSettings>;

/** The LLM must be reachable somehow: a key for a hosted API, or a base URL (Ollama, vLLM). */
export function requireLlm(config: Pick<ModelSettings, 'OPENAI_API_KEY' | 'OPENAI_BASE_URL'>): void {
  if (!config.OPENAI_API_KEY && !config.OPENAI_BASE_URL) {
    throw new ConfigError([
      'OPENAI_API_KEY / OPENAI_BASE_URL: no LLM is configured. Set OPENAI_API_KEY (OpenAI, Gemini, Fireworks…) ' +
        'and, for a non-OpenAI endpoint, OPENAI_BASE_URL (e.g. http://localhost:11434/v1 for Ollama).',
    ]);
  }
}

export function schemaDialect(
  config: Pick<ModelSettings, 'LLM_SCHEMA_DIALECT' | 'OPENAI_BASE_URL'>,
): 'openai' | 'gemini' {
  if (config.LLM_SCHEMA_DIALECT !== 'auto') return config.LLM_SCHEMA_DIALECT;
  return config.OPENAI_BASE_URL?.includes('generativelanguage.googleapis.com') ? 'gemini' : 'openai';
}
