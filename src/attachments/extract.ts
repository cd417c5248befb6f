import { Readable } from 'node:stream';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { parse } from 'csv-parse';
import { countTokens } from '../contract/tokens.js';
import { AttachmentProblem } from './problem.js';
import type { FileKind } from './sniff.js';

/** A document's text within a token budget, and how much of it that is. */
export interface Extracted {
  text: string;
  tokens: number;
  /** "[truncated: pages 1–12 of 40]" when the budget cut it. */
  truncated?: string;
}

/** Rows of a table shown beside its header; the row count says how many there are in all. */
export const TABLE_ROWS_SHOWN = 20;

/**
 * The text of a document (not an image), at most `budget` tokens of it. `signal` (the extraction
 * timeout) stops the work itself, not only the wait for it: a PDF is closed between or during
 * pages, a table's parser stops at the next row.
 */
export async function extractText(
  kind: Exclude<FileKind, { kind: 'image' }>,
  bytes: Uint8Array,
  budget: number,
  signal?: AbortSignal,
): Promise<Extracted> {
  signal?.throwIfAborted();
  switch (kind.kind) {
    case 'pdf':
      return pdfText(bytes, budget, signal);
    case 'docx':
      // mammoth takes no signal: a Word document is read whole (ATTACHMENT_MAX_BYTES bounds it).
      return docxText(bytes, budget);
    case 'table':
      return tableText(bytes, kind.delimiter, budget, signal);
    case 'text':
      return fitLines(new TextDecoder().decode(bytes), budget);
  }
}

/**
 * Page by page, as far as the budget goes: a long PDF is never read past what is kept. pdf.js runs
 * in this thread (unpdf's serverless build has no worker): the event loop gets a turn between
 * pages, and an abort destroys the document, so pdf.js stops at its next check and this function
 * returns at once instead of waiting for it.
 * Opening the document (its cross-reference table) is not cancellable: it is checked once open.
 */
async function pdfText(bytes: Uint8Array, budget: number, signal?: AbortSignal): Promise<Extracted> {
  let doc;
  try {
    // pdf.js wants a plain Uint8Array (not a Buffer): a view of the same bytes, not a copy.
    // Loaded at the first PDF: pdf.js is tens of megabytes a replica that never sees one need not hold.
    const { getDocumentProxy } = await import('unpdf');
    doc = await getDocumentProxy(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
      useSystemFonts: false,
      verbosity: 0,
    });
  } catch (err) {
    const name = err instanceof Error ? err.name : '';
    if (name === 'PasswordException')
      throw new AttachmentProblem('encrypted', 'it is password-protected', { cause: err });
    throw new AttachmentProblem('damaged', 'it is damaged or not a valid PDF', { cause: err });
  }
  const opened = doc;
  const stop = () => void opened.loadingTask.destroy();
  signal?.addEventListener('abort', stop, { once: true });
  const aborted = abortedPromise(signal);
  try {
    const pages: string[] = [];
    let tokens = 0;
    for (let n = 1; n <= doc.numPages; n++) {
      // pdf.js settles its work in microtasks: without a turn of the event loop between pages, a
      // long PDF held the thread to its end (no timer fired, the timeout could not either).
      await yieldToLoop();
      signal?.throwIfAborted();
      const page = await Promise.race([doc.getPage(n), aborted.promise]);
      const content = await Promise.race([page.getTextContent(), aborted.promise]);
      const text = content.items
        .map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : ''))
        .join('')
        .trim();
      page.cleanup();
      const pageTokens = countTokens(text);
      if (tokens + pageTokens > budget && pages.length > 0)
        return {
          text: pages.join('\n\n'),
          tokens,
          truncated: `[truncated: pages 1–${pages.length} of ${doc.numPages}]`,
        };
      if (tokens + pageTokens > budget) {
        // One page over the whole budget: its first part.
        const cut = fitLines(text, budget);
        return { text: cut.text, tokens: cut.tokens, truncated: `[truncated: part of page 1 of ${doc.numPages}]` };
      }
      pages.push(text);
      tokens += pageTokens;
    }
    return { text: pages.join('\n\n'), tokens };
  } finally {
    signal?.removeEventListener('abort', stop);
    aborted.dispose();
    await doc.loadingTask.destroy();
  }
}

/** A promise that rejects with the signal's reason when it aborts (never otherwise); `dispose` unhooks it. */
function abortedPromise(signal: AbortSignal | undefined): { promise: Promise<never>; dispose: () => void } {
  if (!signal) return { promise: new Promise<never>(() => {}), dispose: () => {} };
  let onAbort = () => {};
  const promise = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  promise.catch(() => {}); // raced, never awaited alone: no unhandled rejection when nobody is waiting
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) };
}

async function docxText(bytes: Uint8Array, budget: number): Promise<Extracted> {
  let value: string;
  try {
    const { default: mammoth } = await import('mammoth');
    ({ value } = await mammoth.extractRawText({
      buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    }));
  } catch (err) {
    throw new AttachmentProblem('damaged', 'it is damaged or not a valid Word document', { cause: err });
  }
  return fitLines(value.replace(/\n{3,}/g, '\n\n').trim(), budget);
}

/** The header, the first rows and the count of rows, as tab-separated lines. */
async function tableText(
  bytes: Uint8Array,
  delimiter: ',' | '\t',
  budget: number,
  signal?: AbortSignal,
): Promise<Extracted> {
  const shown: string[][] = [];
  let rows = 0;
  try {
    // Fed in slices, not as one buffer: given 20 MB at once, the parser turned all of it into rows
    // in one call (about 2 s with the thread held, every row in memory) before the first was read.
    const parser = Readable.from(slices(bytes, 64 * 1024)).pipe(
      parse({ delimiter, relax_column_count: true, relax_quotes: true, skip_empty_lines: true, bom: true }),
    );
    for await (const record of parser as AsyncIterable<string[]>) {
      // The parser hands rows over in microtasks: a turn of the event loop every 1,000 rows lets
      // timers fire (the timeout among them); leaving the loop destroys the parser.
      if (rows % 1_000 === 999) await yieldToLoop();
      if (signal?.aborted) break;
      if (rows <= TABLE_ROWS_SHOWN) shown.push(record);
      rows++;
    }
  } catch (err) {
    throw new AttachmentProblem('damaged', 'its rows could not be read', { cause: err });
  }
  signal?.throwIfAborted();
  const dataRows = Math.max(0, rows - 1);
  const lines = [
    `A table of ${dataRows.toLocaleString('en-US')} rows (after its header); the header and the first ${Math.min(dataRows, TABLE_ROWS_SHOWN)}:`,
    ...shown.map((r) => r.map((cell) => cell.replace(/[\t\r\n]+/g, ' ')).join('\t')),
  ];
  return fitLines(lines.join('\n'), budget);
}

/** Views (no copies) of `bytes`, `size` bytes each. */
function* slices(bytes: Uint8Array, size: number): Generator<Buffer> {
  for (let at = 0; at < bytes.byteLength; at += size)
    yield Buffer.from(bytes.buffer, bytes.byteOffset + at, Math.min(size, bytes.byteLength - at));
}

/** The first whole lines that fit `budget` tokens ("[truncated: lines 1–120 of 5,000]" when cut). */
export function fitLines(text: string, budget: number): Extracted {
  // Counting is linear, but a 20 MB text need not be counted: no token is shorter than a
  // character, so at most `budget` × 8 characters of it can be kept at four characters a token and more.
  const tokens = countTokens(text.length > budget * 8 ? text.slice(0, budget * 8) : text);
  if (tokens <= budget && text.length <= budget * 8) return { text, tokens };
  const lines = text.split('\n');
  const kept: string[] = [];
  let used = 0;
  for (const line of lines) {
    const lineTokens = countTokens(line.length > budget * 8 ? line.slice(0, budget * 8) : line) + 1;
    if (used + lineTokens > budget) {
      if (kept.length === 0) {
        // One long line: its first characters, about four to a token.
        let part = line.slice(0, budget * 4);
        for (let n = countTokens(part); n > budget; n = countTokens(part))
          part = part.slice(0, Math.floor((part.length * budget * 0.9) / n));
        return {
          text: part,
          tokens: countTokens(part),
          truncated: `[truncated: part of line 1 of ${lines.length.toLocaleString('en-US')}]`,
        };
      }
      break;
    }
    kept.push(line);
    used += lineTokens;
  }
  return {
    text: kept.join('\n'),
    tokens: used,
    truncated: `[truncated: lines 1–${kept.length.toLocaleString('en-US')} of ${lines.length.toLocaleString('en-US')}]`,
  };
}
