import { z } from 'zod';
import type { ModelEndpoint } from './llm.js';

/**
 * The endpoints a model call may fail over to: `MODEL_FALLBACKS` for the deployment, a tenant's
 * `settings.model_fallbacks` in its place. One schema for both, so a list the operator can set
 * for a tenant is one they could set for the deployment.
 */
export const MAX_FALLBACKS = 8;

/** An environment variable's name, e.g. `GROQ_API_KEY`. */
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'is not an environment variable name');

export const modelEndpointSchema = z.strictObject({
  baseUrl: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL, e.g. https://api.groq.com/openai/v1' }),
  model: z.string().trim().min(1, 'expected a model name'),
  apiKeyEnv: envName.optional(),
});

export const modelFallbacksSchema = z
  .array(modelEndpointSchema, {
    error: 'expected [{"baseUrl": "https://…/v1", "model": "…", "apiKeyEnv": "NAME_OF_THE_VARIABLE"}, …]',
  })
  .max(MAX_FALLBACKS, `lists at most ${MAX_FALLBACKS} endpoints`);

/**
 * A tenant's own fallbacks from its settings, or `undefined` when it sets none (the deployment's
 * apply). A stored value that does not parse is `invalid` (the caller logs it and keeps the
 * deployment's): a typo in an import never breaks a turn.
 */
export function tenantFallbacks(settings: Record<string, unknown> | undefined): {
  fallbacks?: ModelEndpoint[];
  invalid?: string;
} {
  const raw = settings?.model_fallbacks;
  if (raw === undefined || raw === null) return {};
  const parsed = modelFallbacksSchema.safeParse(raw);
  if (parsed.success) return { fallbacks: parsed.data };
  return {
    invalid: parsed.error.issues.map((i) => `${i.path.join('.') || 'model_fallbacks'}: ${i.message}`).join('; '),
  };
}

/**
 * Whether a tenant's endpoint may use the key in `name`: the chat key, a key the deployment's own
 * fallbacks use, or one named `MODEL_KEY_…` for the purpose. Never any other variable: a stored
 * setting must not be able to send DATABASE_URL or SLACK_BOT_TOKEN to a URL it chose.
 */
export function tenantMayUseKey(name: string, deploymentKeys: readonly string[]): boolean {
  return name === 'OPENAI_API_KEY' || name.startsWith('MODEL_KEY_') || deploymentKeys.includes(name);
}
