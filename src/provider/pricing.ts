import { calcPrice, findProvider, type PriceCalculation, type Provider } from '@pydantic/genai-prices';
import type { Config, ModelPrice } from '../config/index.js';
import type { ModelPricing } from '../contract/llm.js';
import type { Usage } from '../contract/turn.js';
import type { Logger } from '../telemetry/logger.js';

/**
 * What a turn costs, in USD, from a price catalogue bundled with the app: `@pydantic/genai-prices`
 * (the Pydantic team's curated prices of the major providers, with cached-input rates and the
 * models' context windows; released every few weeks). Nothing is fetched at run time: the
 * package's `updatePrices` is never called, so a new price arrives with a dependency update.
 *
 * Which price: `MODEL_PRICES` first (by the model name as configured), then the catalogue: the
 * provider the base URL names (api.deepseek.com → DeepSeek, openrouter.ai → OpenRouter, the
 * Gemini endpoint → Google…), else the provider the model's name matches (`gpt-…` → OpenAI). A
 * model neither knows has no cost (null), said once per model per process at warn level.
 *
 * Cached prompt tokens are billed at the cached-input rate and the rest of the prompt at the
 * input rate; reasoning tokens are part of the completion tokens (see toUsage) and billed once,
 * as output.
 */
export function createModelPricing(
  config: Pick<Config, 'MODEL_PRICES' | 'OPENAI_BASE_URL'>,
  log: Logger,
): ModelPricing & { source(model: string): string | undefined } {
  const overrides = config.MODEL_PRICES ?? {};
  // The provider of the endpoint, when the catalogue knows its URL; else match by model name.
  const provider: Provider | undefined = config.OPENAI_BASE_URL
    ? findProvider({ providerApiUrl: config.OPENAI_BASE_URL })
    : findProvider({ providerId: 'openai' });
  const warned = new Set<string>();
  const known = new Map<string, PriceCalculation | null>();
  /**
   * Each known model's provider cut down to that one model. Given a provider, calcPrice copies
   * all of its models and matches the name against each on every call: 47 KB of garbage and
   * 0.1 ms a turn for OpenAI's list. Given this, it does the same for one model; the price (its
   * date and time-of-day conditions, tiers) is still the catalogue's own calculation.
   */
  const narrowed = new Map<string, Provider>();

  function catalogue(model: string, usage: Usage, only?: Provider): PriceCalculation | null {
    const input = {
      input_tokens: usage.promptTokens,
      cache_read_tokens: usage.cachedPromptTokens ?? 0,
      output_tokens: usage.completionTokens,
    };
    const within = only ?? provider;
    try {
      return calcPrice(input, model, within ? { provider: within } : {});
    } catch (err) {
      // A catalogue entry it cannot apply (e.g. a unit our usage lacks): no price, not a failed turn.
      log.debug({ err, model }, 'the price catalogue could not price this usage');
      return null;
    }
  }

  function lookup(model: string): PriceCalculation | null {
    if (!known.has(model)) {
      const hit = catalogue(model, { promptTokens: 0, completionTokens: 0 });
      known.set(model, hit);
      if (hit) narrowed.set(model, { ...hit.provider, models: [hit.model], fallback_model_providers: [] });
    }
    return known.get(model) ?? null;
  }

  return {
    cost(model, usage) {
      const own = overrides[model];
      if (own) return priceOf(own, usage);
      if (!lookup(model)) {
        if (!warned.has(model)) {
          warned.add(model);
          log.warn(
            { model, baseUrl: config.OPENAI_BASE_URL },
            `no price known for model "${model}": its turns are recorded with no cost; set MODEL_PRICES to price it`,
          );
        }
        return null;
      }
      const result = catalogue(model, usage, narrowed.get(model));
      return result ? round(result.total_price) : null;
    },
    contextWindow(model) {
      return overrides[model]?.contextWindow ?? lookup(model)?.model.context_window;
    },
    source(model) {
      if (overrides[model]) return 'MODEL_PRICES';
      const hit = lookup(model);
      return hit ? `${hit.provider.id}:${hit.model.id}` : undefined;
    },
  };
}

function priceOf(price: ModelPrice, usage: Usage): number {
  const cached = Math.min(usage.cachedPromptTokens ?? 0, usage.promptTokens);
  const usd =
    ((usage.promptTokens - cached) * price.input +
      cached * (price.cachedInput ?? price.input) +
      usage.completionTokens * price.output) /
    1_000_000;
  return round(usd);
}

/** To the ten-billionth of a dollar: no float dust in the ledger. */
function round(usd: number): number {
  return Math.round(usd * 1e10) / 1e10;
}

/**
 * HISTORY_MAX_TOKENS when it is not set: 5% of the model's context window, between 2,000 and
 * 32,000 tokens (128k → 6,400, like the old fixed 6,000; 1M → 32,000; 8k → 2,000), so a thread
 * keeps more of itself on a large model without growing every prompt without end. Unknown window: 6,000.
 */
export function defaultHistoryMaxTokens(contextWindow: number | undefined): number {
  if (!contextWindow) return 6_000;
  return Math.min(32_000, Math.max(2_000, Math.round(contextWindow * 0.05)));
}
