import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Config } from '../../config/index.js';
import { fileSlug } from '../artifacts/file-name.js';
import type { ToolSet } from '../../contract/tool.js';
import { defineTool, ToolError } from '../../contract/tool.js';
import { createImageClient, ImageError, type GeneratedImage } from './client.js';
import { flatten, truncate } from '../../reply/text.js';

export { createImageClient, imageParams, ImageError, type GeneratedImage, type ImageClient } from './client.js';
export { sniffImage } from './sniff.js';

/** Image models take tens of seconds; the default tool timeout (10 s) is for lookups. */
const IMAGE_TOOL_TIMEOUT_MS = 90_000;
const PREVIEW_CHARS = 300;

const input = z.object({
  prompt: z
    .string()
    .trim()
    .min(1, 'describe the image to generate (the prompt was empty)')
    .max(4_000, 'keep the prompt under 4,000 characters')
    .describe('Subject, setting, composition, mood'),
  style: z
    .string()
    .trim()
    .max(200, 'keep the style under 200 characters')
    .optional()
    .describe('e.g. "watercolor", "photorealistic"'),
});

/** `generate_image`, offered only when IMAGE_MODEL is set; uses the configured OpenAI-compatible endpoint. */
export function createImageTools(
  config: Pick<
    Config,
    'IMAGE_MODEL' | 'OPENAI_API_KEY' | 'OPENAI_BASE_URL' | 'OPENAI_TIMEOUT_MS' | 'OPENAI_MAX_RETRIES'
  > &
    Partial<Pick<Config, 'IMAGE_BASE_URL' | 'IMAGE_API_KEY' | 'IMAGE_API'>>,
): ToolSet {
  const model = config.IMAGE_MODEL;
  if (!model) return { tools: [], extensions: [] };
  const client = createImageClient({ ...config, IMAGE_MODEL: model });

  const tool = defineTool({
    name: 'generate_image',
    title: 'Generating an image',
    // Each image is billed by the image model's provider.
    effect: 'spend',
    description: 'Generate an image from a description. It is attached to the conversation: do not link or embed it.',
    input,
    timeoutMs: IMAGE_TOOL_TIMEOUT_MS,
    async run({ prompt, style }, ctx) {
      const fullPrompt = style ? `${prompt}\n\nStyle: ${style}` : prompt;
      const started = performance.now();
      let image: GeneratedImage;
      try {
        image = await client.generate(fullPrompt, ctx.signal);
      } catch (err) {
        if (!(err instanceof ImageError)) throw err;
        ctx.log.warn({ tool: 'generate_image', model, kind: err.kind, err }, 'image generation failed');
        throw new ToolError(
          err.kind === 'refused'
            ? 'The image service declined this prompt under its content policy. Rephrase it once without the problematic content, or tell the user.'
            : 'Image generation is unavailable right now. Do not retry: tell the user the image could not be made.',
        );
      }
      const ms = Math.round(performance.now() - started);
      const name = `${fileSlug(prompt.split(/\s+/).slice(0, 8).join(' '), 'image', 50)}.${image.ext}`;
      const title = prompt.length <= 100 ? prompt : `${prompt.slice(0, 99).trimEnd()}…`;
      const preview = truncate(flatten(image.revisedPrompt ?? fullPrompt), PREVIEW_CHARS);
      ctx.log.debug(
        { tool: 'generate_image', model, bytes: image.data.byteLength, mime: image.mime, ms },
        'image generated',
      );
      ctx.emit({
        type: 'tool_event',
        name: 'image_complete',
        data: {
          image: {
            name,
            mime: image.mime,
            size: image.data.byteLength,
            title,
            prompt: fullPrompt,
            ...(image.revisedPrompt ? { revisedPrompt: image.revisedPrompt } : {}),
          },
        },
      });
      return {
        content:
          `Image generated and attached for the user as ${name} (${image.mime}, ${image.data.byteLength} bytes).` +
          (image.revisedPrompt
            ? ` The image service drew: ${truncate(flatten(image.revisedPrompt), PREVIEW_CHARS)}`
            : '') +
          ' Do not add a link or markdown image; a short sentence about it is enough.',
        summary: `${name} (${formatBytes(image.data.byteLength)})`,
        blocks: [{ type: 'file', file: { name, mime: image.mime, data: image.data, title, preview } }],
        // Every image of the turn is delivered, not just the last.
        blocksKey: `generate_image:${randomUUID()}`,
      };
    },
  });
  return { tools: [tool], extensions: [] };
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
