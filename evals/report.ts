import { z } from 'zod';
import type { CaseResult } from './runner.js';

/** How the model's answers were obtained: live from the provider, or replayed from recordings. */
export type RunSource = 'live' | 'recorded';

export interface RunTotals {
  cases: number;
  passed: number;
  failed: number;
  skipped: number;
  /** passed / (cases − skipped); 0 when every case was skipped. */
  passRate: number;
  tokens: number;
  /** USD of the cases with a price; `unpriced` counts those without. */
  costUsd: number;
  unpriced: number;
  /** The median scored turn's wall time (skipped cases aside). */
  medianLatencyMs: number;
}

/** The JSON a run writes (and `--save-baseline` keeps): the run's settings, totals and every case. */
export interface RunReport {
  kind: 'switchboard-eval-run';
  version: 1;
  at: string;
  model: string;
  /** The provider's host (never a key). */
  provider: string;
  source: RunSource;
  totals: RunTotals;
  cases: CaseResult[];
}

const caseResult = z.object({
  id: z.string(),
  family: z.enum(['campaigns', 'competitors', 'quotes', 'business', 'web']),
  tenant: z.string(),
  status: z.enum(['pass', 'fail', 'skip']),
  failures: z.array(z.string()),
  reason: z.string().optional(),
  tokens: z.object({ prompt: z.number(), completion: z.number(), total: z.number() }),
  costUsd: z.number().nullable(),
  latencyMs: z.number(),
  tools: z.array(z.string()),
  answer: z.string(),
});

const runReport = z.object({
  kind: z.literal('switchboard-eval-run'),
  version: z.literal(1),
  at: z.string(),
  model: z.string(),
  provider: z.string(),
  source: z.enum(['live', 'recorded']),
  totals: z.object({
    cases: z.number(),
    passed: z.number(),
    failed: z.number(),
    skipped: z.number(),
    passRate: z.number(),
    tokens: z.number(),
    costUsd: z.number(),
    unpriced: z.number(),
    medianLatencyMs: z.number(),
  }),
  cases: z.array(caseResult),
});

/** Reads a saved run (a baseline); throws a message naming the file and the first bad field. */
export function parseRunReport(text: string, file: string): RunReport {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${file} is not JSON; a baseline is the file a run writes with --save-baseline`);
  }
  const parsed = runReport.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${file} is not an eval run: ${issue?.path.join('.') || 'the file'}: ${issue?.message}`);
  }
  return parsed.data;
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : Math.round((sorted[mid - 1]! + sorted[mid]!) / 2);
}

export function summarize(
  results: CaseResult[],
  run: { model: string; provider: string; source: RunSource; at?: Date },
): RunReport {
  const ran = results.filter((r) => r.status !== 'skip');
  const passed = ran.filter((r) => r.status === 'pass').length;
  return {
    kind: 'switchboard-eval-run',
    version: 1,
    at: (run.at ?? new Date()).toISOString(),
    model: run.model,
    provider: run.provider,
    source: run.source,
    totals: {
      cases: results.length,
      passed,
      failed: ran.length - passed,
      skipped: results.length - ran.length,
      passRate: ran.length ? passed / ran.length : 0,
      tokens: ran.reduce((sum, r) => sum + r.tokens.total, 0),
      costUsd: ran.reduce((sum, r) => sum + (r.costUsd ?? 0), 0),
      unpriced: ran.filter((r) => r.costUsd === null).length,
      medianLatencyMs: median(ran.map((r) => r.latencyMs)),
    },
    cases: results,
  };
}

export interface CaseChange {
  id: string;
  before?: CaseResult['status'];
  after?: CaseResult['status'];
  tokens: number;
  costUsd: number;
  latencyMs: number;
}

/** This run against a saved one: pass rate, cases that broke or got fixed, and each case's deltas. */
export interface BaselineDiff {
  baselineAt: string;
  baselineModel: string;
  passRate: { before: number; after: number };
  tokens: { before: number; after: number };
  costUsd: { before: number; after: number };
  /** Passed in the baseline, fail now. */
  regressed: string[];
  /** Failed in the baseline, pass now. */
  fixed: string[];
  /** Not in the baseline / only in the baseline. */
  added: string[];
  removed: string[];
  cases: CaseChange[];
}

export function compareToBaseline(run: RunReport, baseline: RunReport): BaselineDiff {
  const old = new Map(baseline.cases.map((c) => [c.id, c]));
  const now = new Set(run.cases.map((c) => c.id));
  const cases: CaseChange[] = run.cases.map((c) => {
    const was = old.get(c.id);
    return {
      id: c.id,
      ...(was ? { before: was.status } : {}),
      after: c.status,
      tokens: c.tokens.total - (was?.tokens.total ?? 0),
      costUsd: (c.costUsd ?? 0) - (was?.costUsd ?? 0),
      latencyMs: c.latencyMs - (was?.latencyMs ?? 0),
    };
  });
  return {
    baselineAt: baseline.at,
    baselineModel: baseline.model,
    passRate: { before: baseline.totals.passRate, after: run.totals.passRate },
    tokens: { before: baseline.totals.tokens, after: run.totals.tokens },
    costUsd: { before: baseline.totals.costUsd, after: run.totals.costUsd },
    regressed: cases.filter((c) => c.before === 'pass' && c.after === 'fail').map((c) => c.id),
    fixed: cases.filter((c) => c.before === 'fail' && c.after === 'pass').map((c) => c.id),
    added: run.cases.filter((c) => !old.has(c.id)).map((c) => c.id),
    removed: baseline.cases.filter((c) => !now.has(c.id)).map((c) => c.id),
    cases,
  };
}

const pct = (rate: number) => `${(rate * 100).toFixed(1)}%`;
const usd = (n: number | null) => (n === null ? 'n/a' : `$${n.toFixed(n !== 0 && Math.abs(n) < 0.01 ? 5 : 4)}`);
const signed = (n: number, unit = '') => (n === 0 ? '±0' : `${n > 0 ? '+' : '−'}${Math.abs(n)}${unit}`);
const clip = (s: string, width: number) => (s.length > width ? `${s.slice(0, width - 1)}…` : s);
const MARK = { pass: 'PASS', fail: 'FAIL', skip: 'skip' } as const;

/** The run as a plain-text table: one row a case, then the totals (and the baseline's, when given). */
export function formatTable(run: RunReport, diff?: BaselineDiff): string {
  const changes = new Map(diff?.cases.map((c) => [c.id, c]));
  const header = ['', 'case', 'tokens', 'cost', 'ms', ...(diff ? ['Δ tokens', 'was'] : []), 'tools · why it failed'];
  const rows = run.cases.map((c) => {
    const change = changes.get(c.id);
    const detail =
      c.status === 'skip'
        ? `skipped: ${c.reason ?? ''}`
        : [c.tools.join(', ') || 'no tools', ...c.failures].join(' · ');
    return [
      MARK[c.status],
      c.id,
      String(c.tokens.total),
      usd(c.costUsd),
      String(c.latencyMs),
      ...(diff ? [change?.before ? signed(change.tokens) : 'new', change?.before ? MARK[change.before] : '—'] : []),
      clip(detail, 110),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const t = run.totals;
  const out = [line(header), ...rows.map(line), ''];
  out.push(
    `${t.passed}/${t.cases - t.skipped} passed (${pct(t.passRate)})` +
      (t.skipped ? `, ${t.skipped} skipped` : '') +
      ` · ${t.tokens} tokens · ${usd(t.costUsd)}${t.unpriced ? ` (+${t.unpriced} unpriced)` : ''}` +
      ` · median ${t.medianLatencyMs} ms · model ${run.model} at ${run.provider}` +
      (run.source === 'recorded' ? ' · REPLAYED FROM RECORDINGS' : ''),
  );
  if (diff) {
    out.push(
      `vs baseline of ${diff.baselineAt} (${diff.baselineModel}): pass rate ${pct(diff.passRate.before)} → ${pct(diff.passRate.after)}` +
        ` · tokens ${signed(diff.tokens.after - diff.tokens.before)}` +
        ` · cost ${usd(diff.costUsd.after - diff.costUsd.before)}`,
    );
    if (diff.regressed.length) out.push(`regressed: ${diff.regressed.join(', ')}`);
    if (diff.fixed.length) out.push(`fixed: ${diff.fixed.join(', ')}`);
    if (diff.added.length) out.push(`new since the baseline: ${diff.added.join(', ')}`);
    if (diff.removed.length) out.push(`in the baseline only: ${diff.removed.join(', ')}`);
  }
  return out.join('\n');
}
