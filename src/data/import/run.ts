import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { DataError } from '../../contract/data.js';
import type { AdminDataPort } from '../rpc-port.js';
import { z } from 'zod';
import { importCommitRow } from '../rows.js';
import { formatOf, readRecords, type RawRecord } from './formats.js';
import { checkRow, isImportTable, naturalKey, tableColumns, type ImportTable, IMPORT_TABLES } from './tables.js';

/**
 * Imports a file in two streamed passes: the first validates every row (zod, duplicate
 * natural keys) and collects problems by line; only a clean file gets a second pass,
 * which stages rows in batches and commits them with one `import_commit` call, i.e. in
 * one transaction. A bad row anywhere means nothing is imported.
 */

export interface ImportProblem {
  /** 1-based line in the file; 0 for the file as a whole. */
  line: number;
  message: string;
}

export type ImportResult =
  | { ok: true; table: ImportTable; rows: number; inserted: number; updated: number; unchanged: number }
  | { ok: false; table: string; rows: number; problems: ImportProblem[]; problemCount: number };

export interface ImportOptions {
  table: string;
  file: string;
  tenantId: string;
  /** Problems listed in the result (the count covers all). Default 50. */
  maxProblems?: number;
  /** A batch is sent when it reaches this many rows or bytes of JSON. */
  batchRows?: number;
  batchBytes?: number;
}

type Checked = { line: number; row: Record<string, unknown> } | { line: number; error: string; fatal?: boolean };

async function* checked(
  table: ImportTable,
  source: AsyncIterable<RawRecord> | Iterable<RawRecord>,
): AsyncGenerator<Checked> {
  for await (const item of source) {
    if ('error' in item) {
      yield item;
      continue;
    }
    const result = checkRow(table, item.record);
    yield result.ok ? { line: item.line, row: result.row } : { line: item.line, error: result.message };
  }
}

async function validate(
  table: ImportTable,
  source: AsyncIterable<RawRecord> | Iterable<RawRecord>,
  maxProblems: number,
): Promise<{ rows: number; problems: ImportProblem[]; problemCount: number }> {
  const problems: ImportProblem[] = [];
  let problemCount = 0;
  let rows = 0;
  const seen = new Map<string, number>();
  const report = (line: number, message: string) => {
    problemCount++;
    if (problems.length < maxProblems) problems.push({ line, message });
  };
  for await (const item of checked(table, source)) {
    rows++;
    if ('error' in item) {
      report(item.line, item.error);
      if (item.fatal) break;
      continue;
    }
    const key = naturalKey(table, item.row);
    const first = seen.get(key);
    if (first !== undefined) report(item.line, `duplicate of line ${first} (same natural key: ${key})`);
    else seen.set(key, item.line);
  }
  if (rows === 0) report(0, 'the file has no rows to import');
  return { rows, problems, problemCount };
}

/** Stages valid rows in batches and commits them in one call; aborts the staging on failure. */
async function stageAndCommit(
  port: AdminDataPort,
  table: ImportTable,
  tenantId: string,
  rows: AsyncIterable<Checked>,
  batchRows: number,
  batchBytes: number,
): Promise<z.infer<typeof importCommitRow>> {
  const importId = randomUUID();
  const stageRow = z.object({ staged: z.number() });
  let seq = 0;
  let batch: Record<string, unknown>[] = [];
  let bytes = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    await port.admin(
      'import_stage',
      { tenant_id: tenantId, import_id: importId, table, seq: seq++, rows: batch },
      stageRow,
    );
    batch = [];
    bytes = 0;
  };
  try {
    for await (const item of rows) {
      if ('error' in item) throw new DataError('import', `line ${item.line} changed between passes: ${item.error}`);
      const row = { _line: item.line, ...item.row };
      batch.push(row);
      // Keeps each request well under PostgREST's and the proxies' body limits.
      bytes += JSON.stringify(row).length;
      if (batch.length >= batchRows || bytes >= batchBytes) await flush();
    }
    await flush();
    const [result] = await port.admin('import_commit', { tenant_id: tenantId, import_id: importId }, importCommitRow);
    if (!result) throw new DataError('import_commit', 'import_commit returned nothing');
    return result;
  } catch (err) {
    await port
      .admin('import_abort', { tenant_id: tenantId, import_id: importId }, z.object({ discarded: z.number() }))
      .catch(() => {});
    throw err;
  }
}

/** A database-side rejection of a row ("line 12: unknown product_code …") as a problem. */
function problemFromDataError(err: unknown): ImportProblem | null {
  if (!(err instanceof DataError) || err.code !== 'invalid_input') return null;
  const text = err.detail ?? (err.cause instanceof Error ? err.cause.message : err.message);
  const m = /^line (\d+): (.*)$/s.exec(text);
  return m ? { line: Number(m[1]), message: m[2] ?? text } : { line: 0, message: text };
}

export async function importFile(port: AdminDataPort, opts: ImportOptions): Promise<ImportResult> {
  const { table, file, tenantId } = opts;
  const fail = (message: string): ImportResult => ({
    ok: false,
    table,
    rows: 0,
    problems: [{ line: 0, message }],
    problemCount: 1,
  });
  if (!isImportTable(table)) return fail(`unknown table "${table}"; expected one of: ${IMPORT_TABLES.join(', ')}`);
  const format = formatOf(file);
  if (!format) return fail(`unsupported file type "${file}"; expected .csv, .jsonl or .ndjson`);
  try {
    const info = await stat(file);
    if (!info.isFile()) return fail(`"${file}" is not a file`);
    if (info.size === 0) return fail('the file is empty');
  } catch {
    return fail(`cannot read "${file}"`);
  }

  const columns = tableColumns(table);
  const check = await validate(table, readRecords(file, format, columns), opts.maxProblems ?? 50);
  if (check.problemCount > 0) return { ok: false, table, ...check };

  try {
    const result = await stageAndCommit(
      port,
      table,
      tenantId,
      checked(table, readRecords(file, format, columns)),
      opts.batchRows ?? 1_000,
      opts.batchBytes ?? 2_000_000,
    );
    return {
      ok: true,
      table,
      rows: result.total,
      inserted: result.inserted,
      updated: result.updated,
      unchanged: result.total - result.inserted - result.updated,
    };
  } catch (err) {
    const problem = problemFromDataError(err);
    if (!problem) throw err;
    return { ok: false, table, rows: check.rows, problems: [problem], problemCount: 1 };
  }
}

/** Imports in-memory rows (the demo seed) through the same validation and SQL; throws on any problem. */
export async function importRows(
  port: AdminDataPort,
  table: ImportTable,
  tenantId: string,
  rows: readonly object[],
): Promise<z.infer<typeof importCommitRow>> {
  // Plain data objects: each is read as a record of its own enumerable fields.
  const records = (): RawRecord[] => rows.map((record, i) => ({ line: i + 1, record: { ...record } }));
  const check = await validate(table, records(), 5);
  if (check.problemCount > 0) {
    const list = check.problems.map((p) => `line ${p.line}: ${p.message}`).join('; ');
    throw new Error(`invalid ${table} rows: ${list}`);
  }
  return stageAndCommit(port, table, tenantId, checked(table, records()), 1_000, 2_000_000);
}
