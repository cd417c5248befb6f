import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Config } from '../../config/index.js';
import type { ToolSet } from '../../contract/tool.js';
import { defineTool, ToolError, type ToolOutput } from '../../contract/tool.js';
import { linkedSignal } from '../../net/linked-signal.js';
import { fileSlug } from './file-name.js';
import { ARTIFACT_FILES, ARTIFACT_TYPES, checkArtifact } from './validate.js';

export { ARTIFACT_TYPES, checkArtifact, unwrapFence, type ArtifactType } from './validate.js';
export { checkSvg } from './svg.js';
export { fileSlug } from './file-name.js';

/**
 * Far above any real component or diagram, far below what would hurt: the code travels in
 * the tool call, the thread history and the reply (base64 over HTTP, an upload on Slack).
 */
export const MAX_CODE_CHARS = 100_000;
const PREVIEW_LINES = 12;
const PREVIEW_CHARS = 600;

const input = z.object({
  type: z.enum(ARTIFACT_TYPES),
  title: z.string().trim().min(1, 'give the artifact a title').max(100, 'keep the title to 100 characters'),
  request: z.string().trim().min(1).max(4_000).optional().describe('What to build, in detail'),
  code: z
    .string()
    .trim()
    .min(1, 'code is empty')
    .max(
      MAX_CODE_CHARS,
      `code is longer than ${MAX_CODE_CHARS.toLocaleString('en')} characters: make it smaller or split it`,
    )
    .optional()
    .describe('Only code already written in this conversation, unfenced'),
});

const KIND: Record<(typeof ARTIFACT_TYPES)[number], string> = {
  react: 'one self-contained React function component in JSX (default export, no external imports except React)',
  html: 'one complete HTML page (inline CSS and JavaScript)',
  svg: 'one standalone SVG image (an <svg> root with a viewBox)',
  mermaid: 'one Mermaid diagram',
  markdown: 'one Markdown document',
};

/** The artifact writer's instructions: the code only, in one fenced block. */
export function artifactPrompt(type: (typeof ARTIFACT_TYPES)[number]): string {
  return [
    `Write ${KIND[type]} for the request below.`,
    'Answer with the complete code only, in one fenced code block: no explanation before or after it.',
  ].join('\n');
}

/** Generating an artifact can take a while: the writer model streams up to this long. */
const WRITE_TIMEOUT_MS = 120_000;
const WRITE_MAX_TOKENS = 16_000;

/**
 * `generate_artifact`: code (a React component, a page, an SVG, a diagram, a document) written
 * by ARTIFACT_MODEL (default the chat model) from the chat model's `request`, streamed to the
 * user as it is written (`artifact_delta` events: SSE and the console show them live), then
 * checked and delivered as a file with a short preview. Code the conversation already holds
 * can be delivered as is (`code`).
 */
export function createArtifactTools(config?: Partial<Pick<Config, 'ARTIFACT_MODEL'>>): ToolSet {
  const tool = defineTool({
    name: 'generate_artifact',
    title: 'Creating an artifact',
    description:
      'Write code the user asked for (a React component, HTML page, SVG, Mermaid diagram, Markdown) as a file, from `request`.',
    input,
    timeoutMs: WRITE_TIMEOUT_MS + 5_000,
    async run({ type, title, request, code: given }, ctx) {
      if (!given && !request) throw new ToolError('Give `request` (what to build) or `code` (code already written).');
      let usage: ToolOutput['usage'];
      let code = given ?? '';
      if (!given && request) {
        // Not `AbortSignal.any`: Node keeps such a signal alive for good once a listener is added (a leak per call).
        const budget = linkedSignal([ctx.signal], WRITE_TIMEOUT_MS);
        const written = await ctx.llm
          .complete({
            ...(config?.ARTIFACT_MODEL ? { model: config.ARTIFACT_MODEL } : {}),
            messages: [
              { role: 'system', content: artifactPrompt(type) },
              { role: 'user', content: `${title}\n\n${request}` },
            ],
            maxTokens: WRITE_MAX_TOKENS,
            signal: budget.signal,
            // Live: the user watches the code being written (the event passes the loop's result order).
            onText: (delta) => ctx.emit({ type: 'tool_event', name: 'artifact_delta', data: { delta } }),
          })
          .finally(() => budget.dispose());
        code = written.content;
        usage = written.usage;
        if (code.length > MAX_CODE_CHARS)
          throw new ToolError(
            `The written ${type} is longer than ${MAX_CODE_CHARS.toLocaleString('en')} characters: ask for something smaller.`,
          );
        if (written.finishReason === 'length')
          throw new ToolError(`The ${type} was cut off at the length limit: ask for something smaller, or split it.`);
      }
      const checked = checkArtifact(type, code);
      if (!checked.ok)
        throw new ToolError(
          `Invalid ${type} artifact: ${checked.problem}. Fix the code and call generate_artifact again.`,
        );
      const { ext, mime } = ARTIFACT_FILES[type];
      const name = `${fileSlug(title, 'artifact')}.${ext}`;
      const data = new TextEncoder().encode(checked.code);
      const lines = checked.code.split('\n').length;
      const lineCount = `${lines} line${lines === 1 ? '' : 's'}`;
      const preview = previewOf(checked.code);
      ctx.log.debug({ tool: 'generate_artifact', type, bytes: data.byteLength, lines }, 'artifact generated');
      ctx.emit({
        type: 'tool_event',
        name: 'artifact_complete',
        data: { artifact: { type, title, name, mime, size: data.byteLength, lines, code: checked.code } },
      });
      return {
        content: `Artifact "${title}" (${type}, ${lineCount}) delivered to the user as ${name}. Do not repeat its code; say in a sentence or two what it is and how to use it.`,
        summary: `${name} (${lineCount})`,
        blocks: [{ type: 'file', file: { name, mime, data, title, preview } }],
        // Every artifact of the turn is delivered, not just the last.
        blocksKey: `generate_artifact:${randomUUID()}`,
        ...(usage ? { usage } : {}),
      };
    },
  });
  return { tools: [tool], extensions: [] };
}

/** The first lines of the code, marked when there is more. */
export function previewOf(code: string): string {
  const lines = code.split('\n');
  let preview = lines.slice(0, PREVIEW_LINES).join('\n');
  if (preview.length > PREVIEW_CHARS) preview = preview.slice(0, PREVIEW_CHARS).trimEnd();
  return preview.length < code.length ? `${preview}\n…` : preview;
}
