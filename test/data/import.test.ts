import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchCampaigns } from '../../bench/generate-campaigns.js';
import { importFile } from '../../src/data/import/run.js';
import type { AdminDataPort } from '../../src/data/index.js';
import * as rows from '../../src/data/rows.js';
import { openPgliteTestPort } from '../helpers/db.js';

let dir: string;
let port: AdminDataPort;
let tenantId: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-import-'));
  port = await openPgliteTestPort({ seedDemo: false });
  tenantId = (await port.defaultTenant()).id;
});
afterAll(async () => {
  await port.close();
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, content: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

const count = async () =>
  (await port.call('embedding_status', { tenant_id: tenantId }, rows.embeddingStatusRow))[0]?.campaigns;
const products = async () =>
  (await port.call('search_products', { tenant_id: tenantId, limit: 100 }, rows.productRow)).length;

const CSV_HEADER =
  'source_key,company,brand,channel,offer,key_value_props,imagery_sentiment,imagery_visual_style,capture_date,campaign_text';
const csvRow = (key: string, text: string, date = '2026-10-01') =>
  `${key},Acme Energy,Acme,Facebook,Free first month,Green Energy; Low Price,Positive,Minimalist,${date},"${text}"`;

describe('import', () => {
  it('imports a CSV, re-imports it without duplicates, and updates changed rows', async () => {
    const path = await file(
      'ok.csv',
      [CSV_HEADER, csvRow('a1', 'Green power, ""cheap""'), csvRow('a2', 'Line one\nline two'), ''].join('\n'),
    );
    expect(await importFile(port, { table: 'campaigns', file: path, tenantId })).toMatchObject({
      ok: true,
      rows: 2,
      inserted: 2,
    });
    expect(await importFile(port, { table: 'campaigns', file: path, tenantId })).toMatchObject({
      ok: true,
      inserted: 0,
      updated: 0,
      unchanged: 2,
    });
    const edited = await file(
      'edited.csv',
      [CSV_HEADER, csvRow('a1', 'Green power, now cheaper'), csvRow('a2', 'Line one\nline two')].join('\n'),
    );
    expect(await importFile(port, { table: 'campaigns', file: edited, tenantId })).toMatchObject({
      ok: true,
      inserted: 0,
      updated: 1,
      unchanged: 1,
    });
    expect(await count()).toBe(2);
    const [hit] = await port.call(
      'search_campaigns_by_text',
      { tenant_id: tenantId, query: 'cheaper' },
      rows.textCampaignRow,
    );
    expect(hit?.key_value_props).toEqual(['Green Energy', 'Low Price']);
  });

  it('imports JSONL, and a row the database rejects fails the whole file with its line', async () => {
    const product = {
      code: 'T-1',
      family: 'Stainless Steel',
      grade: '304',
      form: 'Sheet',
      thickness_mm: '1.2',
      width_mm: 1200,
      length_mm: 2400,
    };
    const p = await file(
      'products.jsonl',
      `${JSON.stringify(product)}\n\n${JSON.stringify({ ...product, code: 'T-2', thickness_mm: 2 })}\n`,
    );
    expect(await importFile(port, { table: 'products', file: p, tenantId })).toMatchObject({ ok: true, inserted: 2 });
    const price = { supplier: 'S', uom: 'sheet', price_per_uom: 10, lead_time_days: 2 };
    const prices = await file(
      'prices.jsonl',
      [
        { ...price, product_code: 'T-1', sku: 'S1' },
        { ...price, product_code: 'T-2', sku: 'S2' },
        { ...price, product_code: 'NOPE', sku: 'S3' },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n'),
    );
    const result = await importFile(port, { table: 'supplier_prices', file: prices, tenantId });
    expect(result).toMatchObject({ ok: false, problems: [{ line: 3, message: "unknown product_code 'NOPE'" }] });
    expect(
      await port.call(
        'compare_suppliers',
        {
          tenant_id: tenantId,
          product_id:
            (await port.call('search_products', { tenant_id: tenantId, query: 'T-1' }, rows.productRow))[0]
              ?.product_id ?? null,
        },
        rows.supplierComparisonRow,
      ),
    ).toEqual([]);
  });

  it('reports malformed CSV by line and imports nothing', async () => {
    const before = await count();
    const path = await file(
      'broken.csv',
      [
        CSV_HEADER,
        csvRow('b1', 'fine'),
        'b2,Acme,Acme,Facebook,,,,,2026-10-01,"never closed',
        csvRow('b3', 'fine'),
      ].join('\n'),
    );
    const result = await importFile(port, { table: 'campaigns', file: path, tenantId });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    // Reported where the broken record starts; the parser's message says where it gave up.
    expect(result.problems[0]).toEqual({
      line: 3,
      message: expect.stringMatching(/^malformed CSV: Invalid Closing Quote: .* at line 4/),
    });
    const unclosed = await file(
      'unclosed.csv',
      [
        CSV_HEADER,
        csvRow('b1', 'fine'),
        csvRow('b3', 'fine'),
        'b2,Acme,Acme,Facebook,,,,,2026-10-01,"never closed',
      ].join('\n'),
    );
    expect(await importFile(port, { table: 'campaigns', file: unclosed, tenantId })).toMatchObject({
      ok: false,
      problems: [{ line: 4, message: expect.stringMatching(/^malformed CSV: Quote Not Closed/) }],
    });
    expect(await count()).toBe(before);
  });

  it('reports wrong types, missing values and bad column counts on every bad line', async () => {
    const before = await products();
    const lines = [
      'code,family,grade,form,thickness_mm,width_mm,length_mm',
      'W-1,stainless,304,sheet,1.2,1200,2400',
      'W-2,copper,304,sheet,1.2,1200,2400',
      'W-3,stainless,304,coil,thin,1200,2400',
      'W-4,stainless,,sheet,-1,1200,2400',
      'W-5,stainless,304,sheet,1.2,1200',
      'W-6,aluminium,5052,plate,6,1200,2400',
    ];
    const result = await importFile(port, {
      table: 'products',
      file: await file('types.csv', lines.join('\n')),
      tenantId,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => p.line)).toEqual([3, 4, 5, 6]);
    expect(result.problems[0]?.message).toMatch(/family: expected stainless, aluminium or mild_steel/);
    expect(result.problems[1]?.message).toMatch(/form: .*thickness_mm: expected a number|form: expected sheet/);
    expect(result.problems[2]?.message).toMatch(/grade: is required.*thickness_mm: must be greater than 0/);
    expect(result.problems[3]?.message).toBe('expected 7 fields (as in the header), found 6');
    expect(await products()).toBe(before);

    const bookings = [
      { reference: 'X1', customer_name: 'A', service: 's', booking_datetime: '2026-11-01 10:00', status: 'confirmed' },
      {
        reference: 'X2',
        customer_name: 'B',
        service: 's',
        booking_datetime: '2026-11-01T10:00:00+11:00',
        status: 'maybe',
        price: 'free',
      },
    ];
    const b = await importFile(port, {
      table: 'bookings',
      file: await file('b.jsonl', bookings.map((r) => JSON.stringify(r)).join('\n')),
      tenantId,
    });
    expect(b.ok ? [] : b.problems.map((p) => [p.line, p.message])).toEqual([
      [1, 'booking_datetime: expected an ISO 8601 date-time with a time zone'],
      [2, 'status: expected pending, confirmed, completed, cancelled or no_show; price: expected a number'],
    ]);
  });

  it('rejects unknown columns, in a CSV header and in a JSONL row', async () => {
    const csv = await importFile(port, {
      table: 'faqs',
      file: await file('u.csv', 'topic,question,answer,colour\nx,q?,a,red\n'),
      tenantId,
    });
    expect(csv).toMatchObject({
      ok: false,
      problems: [{ line: 1, message: expect.stringMatching(/unknown column\(s\) "colour"/) }],
    });
    const jsonl = await importFile(port, {
      table: 'competitors',
      file: await file('u.jsonl', '{"key":"k","display_name":"K","full_description":"d","colour":"red"}\n[1]\n{oops\n'),
      tenantId,
    });
    expect(jsonl.ok ? [] : jsonl.problems).toEqual([
      { line: 1, message: 'unknown column(s): colour' },
      { line: 2, message: 'expected a JSON object on each line' },
      { line: 3, message: expect.stringMatching(/^malformed JSON/) },
    ]);
  });

  it('rejects empty files, header-only files, duplicates, unknown tables and file types', async () => {
    const run = async (table: string, name: string, content: string) => {
      const r = await importFile(port, { table, file: await file(name, content), tenantId });
      return r.ok ? 'ok' : r.problems.map((p) => `${p.line}: ${p.message}`).join(' | ');
    };
    expect(await run('campaigns', 'empty.csv', '')).toBe('0: the file is empty');
    expect(await run('campaigns', 'blank.jsonl', '\n\n  \n')).toBe('0: the file has no rows to import');
    expect(await run('campaigns', 'header.csv', `${CSV_HEADER}\n`)).toBe('0: the file has no rows to import');
    expect(await run('campaigns', 'dup.csv', [CSV_HEADER, csvRow('d1', 'x'), csvRow('d1', 'y')].join('\n'))).toBe(
      '3: duplicate of line 2 (same natural key: d1)',
    );
    expect(await run('nope', 'x.csv', 'a\n1\n')).toMatch(/^0: unknown table "nope"/);
    expect(await run('campaigns', 'x.xlsx', 'a')).toMatch(/^0: unsupported file type/);
    expect(await importFile(port, { table: 'campaigns', file: join(dir, 'missing.csv'), tenantId })).toMatchObject({
      ok: false,
      problems: [{ line: 0 }],
    });
  });

  it('streams a 100 MB file without loading it: a bad last row is found and nothing is imported', async () => {
    const path = join(dir, 'big.jsonl');
    const out = createWriteStream(path);
    let written = 0;
    let n = 0;
    for (const c of benchCampaigns(1_000_000, 3)) {
      const line = `${JSON.stringify({ ...c, full_campaign_text: `${c.full_campaign_text} ${c.campaign_text}` })}\n`;
      if (!out.write(line)) await once(out, 'drain');
      written += line.length;
      n++;
      if (written >= 100 * 1024 * 1024) break;
    }
    out.write(`${JSON.stringify({ company: 'x', channel: 'Email', capture_date: 'yesterday', campaign_text: 'x' })}\n`);
    out.end();
    await once(out, 'finish');
    expect((await stat(path)).size).toBeGreaterThanOrEqual(100 * 1024 * 1024);

    const before = await count();
    // Live heap, not heapUsed: garbage not yet collected counted too, and how much of it V8 keeps
    // differs by version (Node 24 measured 62-65 MB of it in a full run). Each sample collects first.
    const gc = collector();
    gc();
    const baseline = process.memoryUsage().heapUsed;
    let peak = baseline;
    const timer = setInterval(() => {
      gc();
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    }, 100);
    const result = await importFile(port, { table: 'campaigns', file: path, tenantId });
    clearInterval(timer);
    expect(result).toMatchObject({
      ok: false,
      rows: n + 1,
      problemCount: 1,
      problems: [{ line: n + 1, message: 'capture_date: expected a date as YYYY-MM-DD' }],
    });
    // The file is 100 MB; holding it (or its rows) would show up here several times over.
    expect(peak - baseline).toBeLessThan(60 * 1024 * 1024);
    expect(await count()).toBe(before);
  }, 120_000);
});

describe('npm run import', () => {
  it('prints each bad line and exits 1, then imports a good file and exits 0', async () => {
    const env = {
      ...process.env,
      PGLITE_DIR: join(dir, 'cli-db'),
      LOG_LEVEL: 'silent',
      DATABASE_URL: '',
      SUPABASE_URL: '',
    };
    const run = promisify(execFile);
    const cli = (f: string) =>
      run(process.execPath, ['--import', 'tsx', 'src/data/cli/import.ts', 'campaigns', f], { env });
    const bad = await file(
      'cli-bad.csv',
      [CSV_HEADER, csvRow('c1', 'ok'), csvRow('c2', 'bad', '01/10/2026')].join('\n'),
    );
    const failed = await cli(bad).catch((e: { code: number; stderr: string }) => e);
    expect(failed).toMatchObject({ code: 1 });
    expect((failed as { stderr: string }).stderr).toContain('Nothing was imported: 1 problem');
    expect((failed as { stderr: string }).stderr).toContain('line 3: capture_date: expected a date as YYYY-MM-DD');
    const good = await file('cli-good.csv', [CSV_HEADER, csvRow('c1', 'ok'), csvRow('c2', 'fine')].join('\n'));
    const { stdout } = await cli(good);
    expect(stdout).toMatch(
      /Imported 2 campaigns row\(s\) into tenant "default" of (the embedded database in \S+|Postgres at \S+) in .*2 new, 0 updated, 0 unchanged/,
    );
  }, 60_000);
});

/** A full garbage collection on demand, without starting node with --expose-gc. */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}
