import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Config } from '../../config.js';
import type { ToolSet } from '../index.js';
import { defineTool, ToolError } from '../tool.js';
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
  type: z.enum(ARTIFACT_TYPES).describe('react: one JSX component; html: a full page'),
  title: z.string().trim().min(1, 'give the artifact a title').max(100, 'keep the title to 100 characters').describe('Short title'),
  code: z
    .string()
    .trim()
    .min(1, 'code is empty')
    .max(MAX_CODE_CHARS, `code is longer than ${MAX_CODE_CHARS.toLocaleString('en')} characters: make it smaller or split it`)
    .describe('The complete source, without Markdown fences'),
});

/**
 * `generate_artifact`: the model writes code (a React component, a page, an SVG, a diagram, a
 * document); it is checked and delivered as a file with a short preview. Needs no provider.
 */
export function createArtifactTools(_config?: Partial<Config>): ToolSet {
  const tool = defineTool({
    name: 'generate_artifact',
    title: 'Creating an artifact',
    description:
      'Deliver code the user asked for (React component, HTML page, SVG, Mermaid diagram, Markdown document) as a file. ' +
      'Write the complete code in `code`.',
    input,
    async run({ type, title, code }, ctx) {
      const checked = checkArtifact(type, code);
      if (!checked.ok) throw new ToolError(`Invalid ${type} artifact: ${checked.problem}. Fix the code and call generate_artifact again.`);
      const { ext, mime } = ARTIFACT_FILES[type];
      const name = `${fileSlug(title, 'artifact')}.${ext}`;
      const data = new TextEncoder().encode(checked.code);
      const lines = checked.code.split('\n').length;
      const lineCount = `${lines} line${lines === 1 ? '' : 's'}`;
      const preview = previewOf(checked.code);
      ctx.log.info({ tool: 'generate_artifact', type, bytes: data.byteLength, lines }, 'artifact generated');
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
