import { createReadStream } from 'node:fs';
import { extname } from 'node:path';
import { createInterface } from 'node:readline';
import { parse } from 'csv-parse';

/**
 * Streams the records of a CSV or JSONL file with their line numbers, never holding the
 * whole file: a 100 MB import costs one record of memory at a time. A problem the
 * reader cannot get past (a broken quote, a bad header) is yielded as `fatal`.
 */

export type RawRecord =
  { line: number; record: Record<string, unknown> } | { line: number; error: string; fatal?: boolean };

export type FileFormat = 'csv' | 'jsonl';

export function formatOf(file: string): FileFormat | null {
  const ext = extname(file).toLowerCase();
  if (ext === '.csv') return 'csv';
  if (ext === '.jsonl' || ext === '.ndjson') return 'jsonl';
  return null;
}

export function readRecords(file: string, format: FileFormat, columns: readonly string[]): AsyncGenerator<RawRecord> {
  return format === 'csv' ? readCsv(file, columns) : readJsonl(file);
}

async function* readCsv(file: string, columns: readonly string[]): AsyncGenerator<RawRecord> {
  // Lines as the parser reaches them (ahead of what this loop has consumed), so an
  // error can name the line where the broken record starts.
  let parsedLines = 0;
  const parser = createReadStream(file).pipe(
    parse({
      bom: true,
      info: true,
      relax_column_count: true,
      skip_empty_lines: true,
      on_record: (record: string[], context: { lines: number }) => {
        parsedLines = context.lines;
        return record;
      },
    }),
  );
  let header: string[] | null = null;
  let prevLines = 0;
  let prevEmpty = 0;
  try {
    for await (const chunk of parser as AsyncIterable<{
      record: string[];
      info: { lines: number; empty_lines: number };
    }>) {
      const { record, info } = chunk;
      // csv-parse reports the line a record ends on; a quoted field may span lines.
      const line = prevLines + 1 + (info.empty_lines - prevEmpty);
      prevLines = info.lines;
      prevEmpty = info.empty_lines;
      if (!header) {
        header = record.map((h) => h.trim());
        const problem = checkHeader(header, columns);
        if (problem) {
          yield { line, error: problem, fatal: true };
          return;
        }
        continue;
      }
      if (record.length !== header.length) {
        yield { line, error: `expected ${header.length} fields (as in the header), found ${record.length}` };
        continue;
      }
      const out: Record<string, unknown> = {};
      header.forEach((h, i) => {
        out[h] = record[i];
      });
      yield { line, record: out };
    }
  } catch (err) {
    // The broken record starts after the last good one; csv-parse's message says where it gave up.
    const message = err instanceof Error ? err.message : String(err);
    yield { line: parsedLines + 1, error: `malformed CSV: ${message}`, fatal: true };
  } finally {
    parser.destroy();
  }
}

function checkHeader(header: string[], columns: readonly string[]): string | null {
  const known = new Set(columns);
  const unknown = header.filter((h) => !known.has(h));
  if (unknown.length > 0) {
    return `unknown column(s) ${unknown.map((u) => `"${u}"`).join(', ')}; expected some of: ${columns.join(', ')}`;
  }
  const seen = new Set<string>();
  for (const h of header) {
    if (seen.has(h)) return `column "${h}" appears twice in the header`;
    seen.add(h);
  }
  return null;
}

async function* readJsonl(file: string): AsyncGenerator<RawRecord> {
  const stream = createReadStream(file, { encoding: 'utf8' });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let line = 0;
  try {
    for await (const text of lines) {
      line++;
      const trimmed = line === 1 ? text.replace(/^\uFEFF/, '').trim() : text.trim();
      if (trimmed === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(trimmed);
      } catch (err) {
        yield { line, error: `malformed JSON: ${err instanceof Error ? err.message : String(err)}` };
        continue;
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        yield { line, error: 'expected a JSON object on each line' };
        continue;
      }
      yield { line, record: value as Record<string, unknown> };
    }
  } finally {
    lines.close();
    stream.destroy();
  }
}
