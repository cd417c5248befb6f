import { AttachmentProblem } from './problem.js';

/** What a file is, from its bytes: the name and the declared type are never asked. */
export type FileKind =
  | { kind: 'image'; mime: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp' }
  | { kind: 'pdf' }
  | { kind: 'docx' }
  /** Comma- or tab-separated rows. */
  | { kind: 'table'; delimiter: ',' | '\t' }
  /** UTF-8 text: plain, Markdown, JSON, code. */
  | { kind: 'text' };

const IMAGES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

export async function sniffKind(bytes: Uint8Array): Promise<FileKind> {
  const { fileTypeFromBuffer } = await import('file-type');
  const found = await fileTypeFromBuffer(bytes);
  if (found) {
    if (IMAGES.has(found.mime)) return { kind: 'image', mime: found.mime as 'image/png' };
    if (found.mime === 'application/pdf') return { kind: 'pdf' };
    if (found.mime === DOCX) return { kind: 'docx' };
    throw new AttachmentProblem('unsupported', `it is a ${found.ext.toUpperCase()} file, which I cannot read`);
  }
  // file-type knows binary formats by their magic numbers; text has none. Text is valid UTF-8 without NULs.
  const head = bytes.subarray(0, 64 * 1024);
  if (head.includes(0) || !isUtf8Prefix(head))
    throw new AttachmentProblem('unsupported', 'it is not a type I can read');
  const delimiter = tableDelimiter(head);
  return delimiter ? { kind: 'table', delimiter } : { kind: 'text' };
}

/** Valid UTF-8, allowing a multi-byte character cut at the end of the sample. */
function isUtf8Prefix(head: Uint8Array): boolean {
  for (let cut = 0; cut < 4 && cut < head.length; cut++) {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, head.length - cut));
      return true;
    } catch {
      /* try a shorter sample */
    }
  }
  return head.length === 0;
}

/**
 * Rows of a table: at least two lines among the first twenty, each with the same number (≥ 1) of
 * tabs, or of commas outside quotes. Prose rarely keeps that count line after line.
 */
function tableDelimiter(head: Uint8Array): ',' | '\t' | undefined {
  const lines = new TextDecoder()
    .decode(head.subarray(0, 8_192))
    .split(/\r?\n/)
    .slice(0, 21)
    .filter((l) => l.trim() !== '');
  // The last line of the sample may be cut.
  if (lines.length > 2) lines.pop();
  if (lines.length < 2) return undefined;
  for (const delimiter of ['\t', ','] as const) {
    const counts = lines.map((l) => countOutsideQuotes(l, delimiter));
    if (counts[0]! > 0 && counts.every((c) => c === counts[0])) return delimiter;
  }
  return undefined;
}

function countOutsideQuotes(line: string, delimiter: string): number {
  let quoted = false;
  let n = 0;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (ch === delimiter && !quoted) n++;
  }
  return n;
}
