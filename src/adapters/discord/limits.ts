/**
 * Discord's message limits (https://discord.com/developers/docs/resources/message#create-message,
 * .../resources/message#embed-object-embed-limits, .../components/reference). Lengths are
 * counted in UTF-16 code units here, which is never less than what Discord counts.
 */
export const LIMITS = {
  content: 2_000,
  embedsPerMessage: 10,
  /** Title, description, field names and values, footer and author name of every embed in one message. */
  embedCharsPerMessage: 6_000,
  embedTitle: 256,
  embedDescription: 4_096,
  embedFields: 25,
  fieldName: 256,
  fieldValue: 1_024,
  footer: 2_048,
  buttonsPerRow: 5,
  rows: 5,
  customId: 100,
  buttonLabel: 80,
  filesPerMessage: 10,
  threadName: 100,
} as const;

/** The most messages one reply may take; anything beyond is left out with a note. */
export const MAX_MESSAGES_PER_REPLY = 6;

/** Cuts `text` to at most `max` code units, ending with '…' when it was cut. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${cutAt(text, max - 1).trimEnd()}…`;
}

/** `text.slice(0, end)` that never ends on the first half of a surrogate pair. */
export function cutAt(text: string, end: number): string {
  const code = text.charCodeAt(end - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? end - 1 : end);
}

/**
 * Splits text into chunks of at most `max` code units, preferring paragraph, line and word
 * boundaries. A code fence left open at a cut is closed there and reopened in the next chunk.
 */
export function splitText(text: string, max: number): string[] {
  const chunks: string[] = [];
  let rest = text.trim();
  let reopen = '';
  while (rest.length > 0) {
    const room = max - reopen.length - 4; // 4: a closing "\n```" if the chunk ends inside a fence
    let chunk: string;
    if (reopen.length + rest.length <= max) {
      chunk = rest;
    } else {
      chunk = cutAt(rest, breakPoint(rest, room));
    }
    // Drop the separator the cut was made at, but keep the next line's indentation.
    rest = rest.slice(chunk.length).replace(/^(\n+| )/, '');
    let out = reopen + chunk.trimEnd();
    reopen = '';
    const fence = openFence(out);
    if (fence !== undefined && rest.length > 0) {
      out += '\n```';
      reopen = `${fence}\n`;
    }
    chunks.push(out);
  }
  return chunks;
}

function breakPoint(text: string, room: number): number {
  const window = text.slice(0, room + 1);
  for (const sep of ['\n\n', '\n', ' ']) {
    const at = window.lastIndexOf(sep);
    if (at > room / 2) return at;
  }
  return room;
}

/** The opening line (e.g. "```ts") of a code fence left open at the end of `text`. */
function openFence(text: string): string | undefined {
  const fences = text.match(/^```.*$/gm) ?? [];
  return fences.length % 2 === 1 ? fences.at(-1) : undefined;
}
