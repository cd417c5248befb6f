/**
 * Prices from the bundled catalogue: the cost of a turn is the catalogue's own calculation
 * (conditional prices, tiers, a provider's fallback providers), whichever way it is looked up.
 */
import { calcPrice, findProvider } from '@pydantic/genai-prices';
import { describe, expect, it } from 'vitest';
import { createModelPricing } from '../../src/provider/pricing.js';
import { silentLogger } from '../../src/telemetry/logger.js';

const usages = [
  { promptTokens: 1_000, completionTokens: 200 },
  { promptTokens: 12_345, cachedPromptTokens: 8_000, completionTokens: 1_500 },
  // Past the long-context tier of the models that have one (272k for gpt-5.4, 200k for Claude).
  { promptTokens: 300_000, cachedPromptTokens: 100_000, completionTokens: 4_000 },
];

const cases: { baseUrl?: string; model: string }[] = [
  { model: 'gpt-4o-mini' },
  { model: 'gpt-5.4' }, // tiered
  { baseUrl: 'https://api.deepseek.com/v1', model: 'deepseek-chat' }, // conditional prices
  { baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai/', model: 'gemini-1.5-flash' }, // tiered
  { baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai/', model: 'claude-sonnet-4-5' }, // a fallback provider's
  { baseUrl: 'https://openrouter.ai/api/v1', model: 'openai/gpt-5.4' },
];

describe('model pricing', () => {
  it.each(cases)('prices $model at $baseUrl as the catalogue does, turn after turn', ({ baseUrl, model }) => {
    const pricing = createModelPricing({ MODEL_PRICES: {}, OPENAI_BASE_URL: baseUrl }, silentLogger());
    const provider = findProvider(baseUrl ? { providerApiUrl: baseUrl } : { providerId: 'openai' });
    for (const usage of [...usages, ...usages]) {
      const expected = calcPrice(
        {
          input_tokens: usage.promptTokens,
          cache_read_tokens: usage.cachedPromptTokens ?? 0,
          output_tokens: usage.completionTokens,
        },
        model,
        provider ? { provider } : {},
      );
      expect(expected, `the catalogue prices ${model}`).not.toBeNull();
      const cost = pricing.cost(model, usage);
      expect(cost).toBeCloseTo(expected!.total_price, 8);
    }
  });
});
