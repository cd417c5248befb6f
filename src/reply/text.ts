/**
 * Text limits, for every place a text must fit a size: the platforms' message and field limits
 * (Slack, Discord), tool summaries and snippets. Lengths are UTF-16 code units (what JavaScript
 * counts, never less than what Slack or Discord count); no cut ever splits a surrogate pair.
 */

/** `text.slice(0, end)` that never ends on the first half of a surrogate pair. */
export function cutAt(text: string, end: number): string {
  const code = text.charCodeAt(end - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? end - 1 : end);
}

/** Cuts `text` to at most `max` code units, ending with '…' when it was cut. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${cutAt(text, max - 1).trimEnd()}…`;
}

/** One line: runs of whitespace (newlines included) become one space. */
export function flatten(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** One line of at most `max` code units, cut at a word boundary when one is near, marked with '…'. */
export function clipWords(text: string, max: number): string {
  const flat = flatten(text);
  if (flat.length <= max) return flat;
  const cut = cutAt(flat, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,.;:–-]+$/, '')}…`;
}

/**
 * Splits text into chunks of at most `max` code units, preferring paragraph, line and word
 * boundaries. A code fence left open at a cut is closed there and reopened (with its language)
 * in the next chunk.
 */
export function splitText(text: string, max: number): string[] {
  const chunks: string[] = [];
  let rest = text.trim();
  let reopen = '';
  while (rest.length > 0) {
    const room = max - reopen.length - 4; // 4: a closing "\n```" if the chunk ends inside a fence
    const chunk = reopen.length + rest.length <= max ? rest : cutAt(rest, breakPoint(rest, room));
    // Drop the separator the cut was made at, but keep the next line's indentation.
    rest = rest.slice(chunk.length).replace(/^(\n+| )/, '');
    let out = reopen + chunk.trimEnd();
    reopen = '';
    const fence = openFence(out);
    if (fence !== undefined && rest.length > 0) {
      out += '\n```';
      reopen = `${fence}\n`;
    }
    if (out.trim()) chunks.push(out);
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
