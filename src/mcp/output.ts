import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { countTokens } from '../contract/tokens.js';
import { detectInjection, SCAN_CHARS } from '../security/injection.js';

/** What the model reads of an MCP tool's result, and what the turn learns of it. */
export interface McpOutput {
  content: string;
  summary: string;
  /** The injection detector flagged the text (it is fenced and taints the turn either way). */
  flagged: boolean;
  /** The text was cut to MCP_OUTPUT_MAX_TOKENS. */
  cut: boolean;
  /** Images the model may be shown (the loop does, when it takes images): PNG, JPEG, GIF or WebP, each ≤ 4 MB. */
  images: { mediaType: string; base64: string }[];
}

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const IMAGE_MAX_BASE64 = Math.ceil((4 * 1024 * 1024) / 3) * 4;
const IMAGES_MAX = 4;

/** Characters kept before counting: no text this long fits in the token cap anyway. */
const CHARS_PER_TOKEN_MAX = 8;

/**
 * An MCP `tools/call` result as text for the model: text parts as they are, structured content as
 * JSON when no text came with it, images and audio as a note (the model is not shown them), an
 * embedded resource's text; a server's error said as one. Capped at `maxTokens` with a visible
 * note, and screened by the injection detector. The loop fences it and the call taints the turn.
 */
export function mcpOutput(result: CallToolResult, maxTokens: number): McpOutput {
  const parts: string[] = [];
  const images: McpOutput['images'] = [];
  let texts = 0;
  for (const item of Array.isArray(result.content) ? result.content : []) {
    switch (item.type) {
      case 'text':
        parts.push(item.text);
        texts++;
        break;
      case 'image':
        if (IMAGE_TYPES.has(item.mimeType) && item.data.length <= IMAGE_MAX_BASE64 && images.length < IMAGES_MAX) {
          images.push({ mediaType: item.mimeType, base64: item.data });
          parts.push(`[image ${images.length}: ${item.mimeType}, ${kb(item.data.length * 0.75)}]`);
        } else parts.push(`[image ${item.mimeType}, ${kb(item.data.length * 0.75)}: not shown to you]`);
        break;
      case 'audio':
        parts.push(`[audio ${item.mimeType}, ${kb(item.data.length * 0.75)}: not shown to you]`);
        break;
      case 'resource':
        parts.push(
          'text' in item.resource && typeof item.resource.text === 'string'
            ? item.resource.text
            : `[resource ${item.resource.uri}${item.resource.mimeType ? ` (${item.resource.mimeType})` : ''}: binary, not shown]`,
        );
        break;
      case 'resource_link':
        parts.push(`[resource ${item.name}: ${item.uri}]`);
        break;
    }
  }
  if (texts === 0 && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent));
  let text = parts.join('\n').trim() || '(the tool returned nothing)';
  if (result.isError) text = `The tool reported an error:\n${text}`;

  let cut = false;
  const maxChars = maxTokens * CHARS_PER_TOKEN_MAX;
  if (text.length > maxChars) {
    text = text.slice(0, maxChars);
    cut = true;
  }
  let tokens = countTokens(text);
  // Cut by the ratio of tokens to characters until it fits (two or three rounds at most).
  while (tokens > maxTokens) {
    text = text.slice(0, Math.floor((text.length * maxTokens * 0.97) / tokens));
    tokens = countTokens(text);
    cut = true;
  }
  if (cut) text += `\n[output cut at ${maxTokens} tokens]`;
  const flagged = detectInjection(text.slice(0, SCAN_CHARS)).flagged;
  const summary = result.isError ? 'the tool reported an error' : firstLine(text);
  return { content: text, summary, flagged, cut, images };
}

function kb(bytes: number): string {
  return bytes < 1024 ? `${Math.round(bytes)} B` : `${Math.round(bytes / 1024)} kB`;
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 140 ? `${line.slice(0, 139)}…` : line;
}
