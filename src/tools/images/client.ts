import { APIError, type OpenAI } from 'openai';
import type { ImageGenerateParamsNonStreaming } from 'openai/resources/images';
import { openAIClient, toLlmError } from '../../provider/openai.js';
import type { Config } from '../../config/index.js';
import { sniffImage, type ImageKind } from './sniff.js';

export interface GeneratedImage extends ImageKind {
  data: Uint8Array;
  /** The prompt the provider actually used, when it rewrote ours (DALL·E 3 does). */
  revisedPrompt?: string;
}

export interface ImageClient {
  readonly model: string;
  /** Throws an ImageError whose message is safe to log. */
  generate(prompt: string, signal: AbortSignal): Promise<GeneratedImage>;
}

export type ImageConfig = Pick<
  Config,
  'OPENAI_API_KEY' | 'OPENAI_BASE_URL' | 'OPENAI_TIMEOUT_MS' | 'OPENAI_MAX_RETRIES'
> &
  Partial<Pick<Config, 'IMAGE_BASE_URL' | 'IMAGE_API_KEY' | 'IMAGE_API'>> & {
    IMAGE_MODEL: string;
  };

/**
 * How the image endpoint is asked: `images` (POST /images/generations: OpenAI, most compatible
 * servers) or `chat` (POST /chat/completions with `modalities: ["image", "text"]`, the image a
 * data URL in `message.images`: OpenRouter, Vercel AI Gateway, Gemini 2.5 Flash Image). `auto`
 * picks `chat` for OpenRouter and Gemini image models.
 */
export function imageApiFor(
  config: Pick<ImageConfig, 'IMAGE_API' | 'IMAGE_BASE_URL' | 'OPENAI_BASE_URL' | 'IMAGE_MODEL'>,
): 'images' | 'chat' {
  if (config.IMAGE_API && config.IMAGE_API !== 'auto') return config.IMAGE_API;
  const base = config.IMAGE_BASE_URL ?? config.OPENAI_BASE_URL ?? '';
  return /openrouter\.ai/i.test(base) || /gemini.*image/i.test(config.IMAGE_MODEL) ? 'chat' : 'images';
}

export class ImageError extends Error {
  constructor(
    /** `refused`: the provider's safety system declined the prompt (the model may rephrase). */
    readonly kind: 'refused' | 'unavailable' | 'bad_response',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ImageError';
  }
}

/** A provider answering with a URL rather than bytes: we fetch it, but not without limit. */
const MAX_DOWNLOAD_BYTES = 20 * 1024 * 1024;

/**
 * The image endpoint: IMAGE_BASE_URL / IMAGE_API_KEY when set (images from another provider
 * than chat), else the chat endpoint. The chat key is never sent to IMAGE_BASE_URL.
 */
export function createImageClient(config: ImageConfig): ImageClient {
  const separate = Boolean(config.IMAGE_BASE_URL);
  const api = imageApiFor(config);
  // Failures are mapped and logged by the tool; the SDK's own console output is not wanted (no log).
  const { openai, apiKey, baseURL } = openAIClient({
    apiKey: separate ? config.IMAGE_API_KEY : (config.IMAGE_API_KEY ?? config.OPENAI_API_KEY),
    baseURL: config.IMAGE_BASE_URL ?? config.OPENAI_BASE_URL,
    timeoutMs: config.OPENAI_TIMEOUT_MS,
    maxRetries: config.OPENAI_MAX_RETRIES,
  });
  const model = config.IMAGE_MODEL;

  return {
    model,
    async generate(prompt, signal) {
      let first: { b64_json?: string; url?: string; revised_prompt?: string } | undefined;
      try {
        if (api === 'chat') {
          first = await chatImage(openai, model, prompt, signal);
        } else {
          const response = await openai.images.generate(imageParams(model, prompt), { signal });
          first = response.data?.[0];
        }
      } catch (err) {
        if (err instanceof ImageError) throw err;
        if (signal.aborted) throw err;
        throw toImageError(err, apiKey, baseURL);
      }
      if (!first) throw new ImageError('bad_response', 'the images endpoint returned no image');
      const data = first.b64_json ? Buffer.from(first.b64_json, 'base64') : await download(first.url, signal);
      const kind = sniffImage(data);
      if (!kind)
        throw new ImageError(
          'bad_response',
          'the images endpoint returned data that is not a PNG, JPEG, WebP or GIF image',
        );
      return {
        data: new Uint8Array(data),
        ...kind,
        ...(first.revised_prompt ? { revisedPrompt: first.revised_prompt } : {}),
      };
    },
  };
}

/**
 * gpt-image models always answer base64 and reject `response_format`; DALL·E and most
 * compatible endpoints answer a short-lived URL unless asked for base64.
 */
export function imageParams(model: string, prompt: string): ImageGenerateParamsNonStreaming {
  return {
    model,
    prompt,
    n: 1,
    ...(/^gpt-image/i.test(model) ? {} : { response_format: 'b64_json' as const }),
  };
}

/** An image from a chat completion with image output: the first of `message.images`, a data URL or a link. */
async function chatImage(
  openai: OpenAI,
  model: string,
  prompt: string,
  signal: AbortSignal,
): Promise<{ b64_json?: string; url?: string }> {
  // `modalities: ["image"]` is not in the SDK's types for chat; it is sent as is.
  const params = {
    model,
    messages: [{ role: 'user' as const, content: prompt }],
    modalities: ['image', 'text'],
    stream: false as const,
  };
  const completion = await openai.chat.completions.create(
    params as Parameters<typeof openai.chat.completions.create>[0] & { stream: false },
    { signal },
  );
  const message = completion.choices[0]?.message as { images?: { image_url?: { url?: string } }[] } | undefined;
  const url = message?.images?.find((i) => typeof i.image_url?.url === 'string')?.image_url?.url;
  if (!url)
    throw new ImageError(
      'bad_response',
      'the chat completion returned no image (is IMAGE_MODEL an image-output model?)',
    );
  const data = /^data:image\/[\w.+-]+;base64,(.*)$/s.exec(url);
  return data ? { b64_json: data[1] } : { url };
}

async function download(url: string | undefined, signal: AbortSignal): Promise<Buffer> {
  if (!url || !/^https?:\/\//i.test(url))
    throw new ImageError('bad_response', 'the images endpoint returned neither image data nor a URL');
  let res: Response;
  try {
    res = await fetch(url, { signal });
  } catch (err) {
    if (signal.aborted) throw err;
    throw new ImageError(
      'unavailable',
      `could not download the generated image (${err instanceof Error ? err.message : String(err)})`,
      { cause: err },
    );
  }
  if (!res.ok) throw new ImageError('unavailable', `downloading the generated image answered ${res.status}`);
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > MAX_DOWNLOAD_BYTES)
    throw new ImageError('bad_response', `the generated image is larger than ${MAX_DOWNLOAD_BYTES} bytes`);
  const body = Buffer.from(await res.arrayBuffer());
  if (body.byteLength > MAX_DOWNLOAD_BYTES)
    throw new ImageError('bad_response', `the generated image is larger than ${MAX_DOWNLOAD_BYTES} bytes`);
  return body;
}

function toImageError(err: unknown, apiKey: string, baseURL: string): ImageError {
  // The LLM client's mapping already redacts keys and names unreachable hosts plainly.
  const mapped = toLlmError(err, { apiKey, baseURL });
  const code = err instanceof APIError ? String(err.code ?? '') : '';
  if (
    mapped.kind === 'bad_request' &&
    (code === 'content_policy_violation' || /safety|content policy|moderation/i.test(mapped.message))
  ) {
    return new ImageError('refused', mapped.message, { cause: err });
  }
  return new ImageError(mapped.kind === 'bad_request' ? 'bad_response' : 'unavailable', mapped.message, { cause: err });
}
