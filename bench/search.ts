/**
 * Search latency on 100,000 campaigns.
 *
 *   npx tsx bench/search.ts [--rows 100000] [--dims 384] [--queries 300] [--only postgres|pglite]
 *
 * Postgres (BENCH_DATABASE_URL, else TEST_DATABASE_URL, else DATABASE_URL; a scratch
 * database is created on that server and dropped afterwards): full-text and filter
 * search. PGlite with pgvector (in memory): semantic search, plus full-text and filter
 * for reference. Rows are loaded with the real importer; embeddings are
 * `hashEmbedding` (a deterministic stand-in for a model: the index and the query
 * plan do the same work whatever produced the numbers). Every query goes through the
 * DataPort, so the figures include argument checks, JSON and row validation.
 * On Postgres the same SQL functions are also called directly (pg, no port), interleaved call by
 * call, and the port's p95 is printed as a multiple of the raw one.
 * Targets: p95 ≤ 30 ms and ≤ 1.5× raw SQL for full-text and filter on Postgres, ≤ 50 ms semantic on PGlite.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { z } from 'zod';
import { benchCampaigns, hashEmbedding } from './generate-campaigns.js';
import { importFile } from '../src/data/import/run.js';
import { openDataPort, type AdminDataPort } from '../src/data/index.js';
import { migrate } from '../src/data/migrate.js';
import * as rows from '../src/data/rows.js';
import { openPostgres } from '../src/data/transports/postgres.js';
import { createRng } from '../src/data/demo/prng.js';
import { parseConfig } from '../src/config/index.js';
import { silentLogger } from '../src/telemetry/logger.js';
import { createTestDatabase } from '../test/helpers/db.js';
import type { SqlFunctionName } from '../src/contract/catalogue.js';
import { buildRpcQuery } from '../src/data/transports/sql-rpc.js';
import type { SqlClient } from '../src/data/transports/types.js';
import { boundQueryTerms } from '../src/tools/campaigns/query-text.js';

const { values: flags } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    dims: { type: 'string', default: '384' },
    queries: { type: 'string', default: '300' },
    only: { type: 'string', default: '' },
  },
});
const ROWS = Number(flags.rows);
const DIMS = Number(flags.dims);
const QUERIES = Number(flags.queries);
const ONLY = flags.only;
const SERVER = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;

const TEXT_QUERIES = [
  '"no annual fee"',
  'cashback groceries',
  'wind power -solar',
  'fixed price electricity',
  'unlimited data 5G',
  'family holiday',
  '"free cancellation"',
  'lounge access travel insurance',
  'fiber router installation',
  'kids fly free',
  'smart meter app',
  'EV charging night',
  'points flights hotels',
  'coverage festival',
  'all inclusive',
  'green',
  'price',
  '"bring a friend"',
  'interest purchases -annual',
  'sea view cabin or fjords',
  'roaming EU',
  'heat pump',
  'metal card concierge',
  'switch in five minutes',
];
const SEMANTIC_QUERIES = [
  'cheap green electricity from wind',
  'credit card with cash back on groceries',
  'mobile plan with unlimited data for families',
  'holiday for families with kids',
  'travel card with lounge access',
  'lock my electricity price',
  'fast fiber internet at home',
  'cruise along the coast with a sea view',
  'charge my electric car at night',
  'no fees and no contract',
];

const pick = createRng(99);
const CHANNELS = ['Facebook', 'Instagram', 'TikTok', 'YouTube', 'Display', 'Search', 'Email', 'TV'];
const PROPS = [
  'Cash Back',
  'Green Energy',
  'Fixed Price',
  'Unlimited Data',
  'Low Price',
  'Family Friendly',
  'Rewards Points',
  'Flexibility',
];
const SENTIMENTS = ['Positive', 'Playful', 'Trustworthy', 'Aspirational', 'Urgent'];
const STYLES = ['Lifestyle Photography', 'Minimalist', 'Bold Typography', 'User-generated Video'];

/** Random filter combinations, the kind a model produces. */
function randomFilters(): Record<string, unknown> {
  const f: Record<string, unknown> = {};
  if (pick.chance(0.6)) f.channels = pick.sample(CHANNELS, pick.int(1, 2));
  if (pick.chance(0.5)) f.value_props = pick.sample(PROPS, pick.int(1, 2));
  if (pick.chance(0.3)) f.sentiments = pick.sample(SENTIMENTS, pick.int(1, 2));
  if (pick.chance(0.25)) f.visual_styles = pick.sample(STYLES, 1);
  if (pick.chance(0.4)) f.date_from = pick.pick(['2026-10-02', '2026-08-01', '2026-05-01', '2025-11-01']);
  if (pick.chance(0.3)) f.has_offer = pick.chance(0.7);
  return f;
}

function stats(samples: number[]): string {
  const s = [...samples].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN;
  return `p50 ${at(0.5).toFixed(1)} ms  p95 ${at(0.95).toFixed(1)} ms  p99 ${at(0.99).toFixed(1)} ms  (n=${s.length})`;
}

async function time(n: number, run: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < Math.min(20, n); i++) await run(i); // warm-up: plans, caches
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await run(i);
    out.push(performance.now() - t);
  }
  return out;
}

async function writeCampaigns(path: string): Promise<void> {
  const out = createWriteStream(path);
  for (const c of benchCampaigns(ROWS)) if (!out.write(`${JSON.stringify(c)}\n`)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
}

async function load(port: AdminDataPort, file: string, label: string): Promise<string> {
  const tenantId = (await port.defaultTenant()).id;
  const t = performance.now();
  const res = await importFile(port, { table: 'campaigns', file, tenantId });
  if (!res.ok) throw new Error(`import failed: ${JSON.stringify(res.problems)}`);
  console.log(`${label}: imported ${res.rows} campaigns in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  // What autovacuum does shortly after a bulk load: statistics, hint bits, visibility map.
  await port.transport.sql?.exec('vacuum analyze public.campaigns');
  return tenantId;
}

/**
 * The same SQL function called directly (`select * from public.fn(…)` over `pg`, no port: no
 * argument checks, no JSON aggregation, no row validation): the floor the port is measured against.
 */
async function rawCall(sql: SqlClient, fn: SqlFunctionName, args: Record<string, unknown>): Promise<unknown[]> {
  const { text, params } = buildRpcQuery(fn, args);
  const inner = /from \((select \* from public\.[\s\S]*)\) as r$/.exec(text)?.[1];
  if (!inner) throw new Error(`unexpected rpc query shape: ${text}`);
  return sql.query(inner, params);
}

/** Full-text and filter search through the port and, with `raw`, the same calls straight to SQL, interleaved call by call. */
async function textAndFilter(port: AdminDataPort, tenantId: string, label: string, raw?: SqlClient): Promise<void> {
  const kinds: {
    name: string;
    fn: 'search_campaigns_by_text' | 'filter_campaigns';
    args: (i: number) => Record<string, unknown>;
    row: z.ZodType;
  }[] = [
    {
      name: 'full-text search',
      fn: 'search_campaigns_by_text',
      args: (i) => ({
        tenant_id: tenantId,
        query: TEXT_QUERIES[i % TEXT_QUERIES.length] ?? '',
        limit: 10,
        ...(i % 3 === 0 ? randomFilters() : {}),
      }),
      row: rows.textCampaignRow,
    },
    {
      name: 'filter search',
      fn: 'filter_campaigns',
      args: () => ({ tenant_id: tenantId, limit: 20, ...randomFilters() }),
      row: rows.campaignRow,
    },
  ];
  for (const kind of kinds) {
    const viaPort: number[] = [];
    const direct: number[] = [];
    for (let i = -20; i < QUERIES; i++) {
      const args = kind.args(Math.max(i, 0));
      let t = performance.now();
      await port.call(kind.fn, args as never, kind.row);
      if (i >= 0) viaPort.push(performance.now() - t);
      if (!raw) continue;
      t = performance.now();
      await rawCall(raw, kind.fn, args);
      if (i >= 0) direct.push(performance.now() - t);
    }
    console.log(`${label} ${kind.name.padEnd(17)} ${stats(viaPort)}`);
    if (raw) {
      const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(0.95 * xs.length)]!;
      console.log(
        `${label} ${kind.name.padEnd(17)} raw SQL: ${stats(direct)}   port / raw at p95: ${(p95(viaPort) / p95(direct)).toFixed(2)}×`,
      );
    }
  }
  // A pasted paragraph of one word repeated: bounded to MAX_QUERY_TERMS terms before it reaches SQL.
  const repeated = await time(Math.min(QUERIES, 50), () =>
    port.call(
      'search_campaigns_by_text',
      {
        tenant_id: tenantId,
        query: boundQueryTerms(Array.from({ length: 300 }, () => 'green').join(' ')).query,
        limit: 10,
      },
      rows.textCampaignRow,
    ),
  );
  console.log(`${label} 300 repeated words ${stats(repeated)}`);
}

async function postgres(file: string): Promise<void> {
  if (!SERVER) {
    console.log('Postgres: skipped (set BENCH_DATABASE_URL or TEST_DATABASE_URL)');
    return;
  }
  const db = await createTestDatabase(SERVER, 'sb_bench');
  try {
    const sql = openPostgres(db.url, { max: 1 });
    await migrate(sql, { embeddingDimensions: DIMS });
    await sql.close();
    const port = await openDataPort(parseConfig({ DATABASE_URL: db.url }), silentLogger());
    const raw = openPostgres(db.url, { max: 1 });
    try {
      const tenantId = await load(port, file, 'Postgres');
      await textAndFilter(port, tenantId, 'Postgres', raw);
    } finally {
      await raw.close();
      await port.close();
    }
  } finally {
    await db.drop();
  }
}

async function pglite(file: string): Promise<void> {
  const config = parseConfig({ PGLITE_MEMORY: '1', EMBEDDING_DIMENSIONS: String(DIMS) });
  const port = await openDataPort(config, silentLogger(), { seedDemo: false });
  const sql = port.transport.sql;
  if (!sql) throw new Error('no SQL client');
  try {
    const tenantId = await load(port, file, 'PGlite');
    // Bulk load: vectors first, then one HNSW build, as for any large initial load.
    await sql.exec('drop index if exists campaigns_embedding_hnsw');
    let t = performance.now();
    for (;;) {
      const missing = await port.admin(
        'campaigns_missing_embeddings',
        { tenant_id: tenantId, limit: 1000 },
        rows.missingEmbeddingRow,
      );
      if (missing.length === 0) break;
      const items = missing.map((m) => ({
        id: m.id,
        embedding: hashEmbedding(`${m.company} ${m.campaign_text} ${m.full_campaign_text}`, DIMS),
      }));
      await port.admin('set_campaign_embeddings', { tenant_id: tenantId, items }, z.object({ updated: z.number() }));
    }
    console.log(
      `PGlite: stored ${ROWS} ${DIMS}-dimensional embeddings in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );
    t = performance.now();
    await sql.exec(`set maintenance_work_mem = '512MB'`);
    await sql.exec(
      'create index campaigns_embedding_hnsw on public.campaigns using hnsw (embedding vector_cosine_ops)',
    );
    await sql.exec('analyze public.campaigns');
    console.log(`PGlite: built the HNSW index in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    const vectors = SEMANTIC_QUERIES.map((q) => hashEmbedding(q, DIMS));
    const semantic = await time(QUERIES, (i) =>
      port.call(
        'search_campaigns',
        {
          tenant_id: tenantId,
          query_embedding: vectors[i % vectors.length] ?? [],
          limit: 10,
          ...(i % 3 === 0 ? randomFilters() : {}),
        },
        rows.semanticCampaignRow,
      ),
    );
    console.log(`PGlite semantic search   ${stats(semantic)}`);
    await textAndFilter(port, tenantId, 'PGlite');
  } finally {
    await port.close();
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'sb-bench-'));
  try {
    const file = join(dir, 'campaigns.jsonl');
    await writeCampaigns(file);
    console.log(`${ROWS} synthetic campaigns, ${QUERIES} queries per kind, embeddings of ${DIMS} dimensions`);
    if (ONLY !== 'pglite') await postgres(file);
    if (ONLY !== 'postgres') await pglite(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
