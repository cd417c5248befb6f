/**
 * The model's Markdown for a terminal, one line at a time, so streamed text can be shown as it
 * arrives and still be rendered: complete lines are rendered and written, the unfinished tail
 * waits for its newline (or the end of the answer). On a TTY: bold, italics, inline code, headings
 * and code blocks get ANSI styles; elsewhere (a pipe, a file) the same text without markers.
 * Links and images become "text (url)" either way: a terminal shows the address it would open.
 *
 * Hand-written rather than marked + marked-terminal: those render whole documents (a code fence
 * or a list needs the full text), which would hold the stream back to the end of the answer.
 */
export interface TerminalStyle {
  bold(s: string): string;
  italic(s: string): string;
  code(s: string): string;
  dim(s: string): string;
}

const ansi = (open: number, close: number) => (s: string) => `\x1b[${open}m${s}\x1b[${close}m`;
export const TTY_STYLE: TerminalStyle = {
  bold: ansi(1, 22),
  italic: ansi(3, 23),
  code: ansi(36, 39),
  dim: ansi(2, 22),
};
export const PLAIN_STYLE: TerminalStyle = { bold: (s) => s, italic: (s) => s, code: (s) => s, dim: (s) => s };

export function createLineRenderer(style: TerminalStyle) {
  let pending = '';
  let inFence = false;

  const line = (text: string): string => {
    const fence = /^\s*(```|~~~)/.exec(text);
    if (fence) {
      inFence = !inFence;
      return style.dim(text.trim() === fence[1] ? '' : text.replace(/^\s*(```|~~~)/, '').trim());
    }
    if (inFence) return style.code(`  ${text}`);
    const heading = /^(#{1,6})\s+(.*)$/.exec(text);
    if (heading) return style.bold(inline(heading[2] ?? '', style));
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(text)) return style.dim('─'.repeat(20));
    const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(text);
    if (bullet) return `${bullet[1]}• ${inline(bullet[2] ?? '', style)}`;
    const quote = /^\s*>\s?(.*)$/.exec(text);
    if (quote) return style.dim(`│ ${inline(quote[1] ?? '', style)}`);
    return inline(text, style);
  };

  return {
    /** Adds streamed text; returns the rendered complete lines (each ending in a newline). */
    push(delta: string): string {
      pending += delta;
      const end = pending.lastIndexOf('\n');
      if (end < 0) return '';
      const complete = pending.slice(0, end);
      pending = pending.slice(end + 1);
      return complete
        .split('\n')
        .map((l) => `${line(l)}\n`)
        .join('');
    },
    /** The unfinished last line, rendered (no newline added); resets the renderer. */
    flush(): string {
      const rest = pending ? line(pending) : '';
      pending = '';
      inFence = false;
      return rest;
    },
  };
}

/** Renders a whole text at once (a reply's blocks, a text that was not streamed). */
export function renderTerminalMarkdown(text: string, style: TerminalStyle): string {
  const r = createLineRenderer(style);
  return r.push(`${text}\n`).replace(/\n$/, '');
}

/** Inline Markdown: code spans first (their content is literal), then links, bold, italics. */
function inline(text: string, style: TerminalStyle): string {
  const parts = text.split(/(`[^`\n]+`)/);
  return parts
    .map((part, i) => {
      if (i % 2 === 1) return style.code(part.slice(1, -1));
      return part
        .replace(/!\[([^\]\n]*)\]\(([^)\s]+)[^)]*\)/g, (_, alt: string, url: string) => `${alt || 'image'} (${url})`)
        .replace(/\[([^\]\n]+)\]\(([^)\s]+)[^)]*\)/g, (_, label: string, url: string) =>
          label === url ? url : `${label} (${url})`,
        )
        .replace(/\*\*([^*\n]+?)\*\*|__([^_\n]+?)__/g, (_, a?: string, b?: string) => style.bold(a ?? b ?? ''))
        .replace(/(^|[^\w*])\*([^*\n]+?)\*(?!\w)/g, (_, pre: string, inner: string) => `${pre}${style.italic(inner)}`)
        .replace(/(^|[^\w])_([^_\n]+?)_(?!\w)/g, (_, pre: string, inner: string) => `${pre}${style.italic(inner)}`);
    })
    .join('');
}
