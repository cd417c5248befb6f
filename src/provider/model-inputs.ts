import type { Config } from '../config/index.js';
import type { Logger } from '../telemetry/logger.js';

/**
 * Whether the chat model takes images (MODEL_INPUT_IMAGES). The price catalogue the app bundles
 * (`@pydantic/genai-prices`, pricing.ts) names models but not what they take in, so `auto` reads
 * this list of model families whose input is known, by the model's name without a provider
 * prefix (`openai/gpt-4o` → `gpt-4o`). A model it does not know gets no images, said once at start.
 */
const TAKES_IMAGES: readonly RegExp[] = [
  /^gpt-4o(?!.*-(audio|search|transcribe|realtime))/,
  /^gpt-4\.1/,
  /^gpt-4\.5/,
  /^gpt-4-turbo/,
  /^gpt-5(?!.*-(chat-latest-audio))/,
  /^chatgpt-4o/,
  /^o1(?!-mini)(-|$)/,
  /^o3(?!-mini)(-|$)/,
  /^o4-mini/,
  /^gemini-/,
  /^gemma-3/,
  /^claude-(3|sonnet|opus|haiku)/,
  /^grok-(2-vision|4|vision)/,
  /^pixtral/,
  /^mistral-(medium|small)-(3|2503|2505|2506|latest)/,
  /^llama-4/,
  /^llama-3\.2-(11|90)b-vision/,
  /^qwen.*-vl/,
  /^llava/,
];
const TEXT_ONLY: readonly RegExp[] = [
  /^gpt-3\.5/,
  /^gpt-4(-0613|-32k)?$/,
  /^o1-mini/,
  /^o3-mini/,
  /^deepseek-/,
  /^gpt-oss/,
  /^llama-3(\.[013])?-/,
  /^mixtral/,
  /^qwen(?!.*-vl)/,
];

/** true / false when the list knows the model; undefined when it does not. */
export function knownImageInput(model: string): boolean | undefined {
  const name = model.toLowerCase().split('/').pop() ?? '';
  if (TAKES_IMAGES.some((r) => r.test(name))) return true;
  if (TEXT_ONLY.some((r) => r.test(name))) return false;
  return undefined;
}

/** MODEL_INPUT_IMAGES decided for `model`: `on`/`off` as set; `auto` from the list, else off (one info line). */
export function modelTakesImages(config: Pick<Config, 'MODEL_INPUT_IMAGES'>, model: string, log: Logger): boolean {
  if (config.MODEL_INPUT_IMAGES !== 'auto') return config.MODEL_INPUT_IMAGES === 'on';
  const known = knownImageInput(model);
  if (known === undefined)
    log.info(
      { model },
      `whether model "${model}" takes images is not known: shared images are described to it, not shown; set MODEL_INPUT_IMAGES=on if it takes them`,
    );
  return known ?? false;
}
