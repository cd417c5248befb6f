/**
 * Issue 41, item 3: the usage journal's bounds and what budgets see of it, with the database (and
 * the journal's store) replaced by doubles that fail as an outage does. The app-level behaviour is
 * in usage-journal.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { createBudgets } from '../../src/agent/budget.js';
import { createUsageJournal, memoryJournalStore, type JournalStore } from '../../src/agent/usage-journal.js';
import { DataError, type UsageRow } from '../../src/contract/data.js';
import { UserFacingError } from '../../src/contract/turn.js';
import { metrics } from '../../src/telemetry/metrics.js';
import { captureLogs, message } from '../helpers/harness.js';
import { usageRow } from '../helpers/usage-rows.js';

describe('the usage journal, bounded', () => {
  const away = { recordUsage: () => Promise.reject(new DataError('record_turn_usage', 'Database call failed')) };

  it('keeps at most USAGE_JOURNAL_MAX rows: past it one error line and the dropped metric', async () => {
    const { log, logs } = captureLogs();
    const journal = createUsageJournal({ data: away, store: memoryJournalStore(), log, max: 2 });
    const dropped = (await metrics.usageJournalDropped.get()).values[0]?.value ?? 0;
    for (let i = 0; i < 5; i++) await journal.keep(usageRow('tenant-1'), new Error('ECONNREFUSED'));
    expect(await journal.depth()).toBe(2);
    expect((await metrics.usageJournalDepth.get()).values[0]?.value).toBe(2);
    expect((await metrics.usageJournalDropped.get()).values[0]?.value).toBe(dropped + 3);
    const errors = logs.lines.filter((l) => l.event === 'usage_journal_dropped');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ level: 50, max: 2 });
    expect(logs.lines.filter((l) => l.event === 'usage_journal_keeping')).toHaveLength(1);
  });

  it('keeps rows in memory while its store is away too, moves them there, then writes each once', async () => {
    const { log, logs } = captureLogs();
    let storeUp = false;
    let dbUp = false;
    const written: string[] = [];
    const inner = memoryJournalStore();
    const offline = () => Promise.reject(new Error('The client is offline'));
    const store: JournalStore = {
      kind: 'redis',
      put: (id, row) => (storeUp ? inner.put(id, row) : offline()),
      list: (max) => (storeUp ? inner.list(max) : offline()),
      remove: (ids) => (storeUp ? inner.remove(ids) : offline()),
      size: () => (storeUp ? inner.size() : offline()),
    };
    const data = {
      recordUsage: (row: UsageRow) => (dbUp ? Promise.resolve(void written.push(row.turn!.id!)) : away.recordUsage()),
    };
    const journal = createUsageJournal({ data, store, log, max: 10 });
    const rows = [usageRow('tenant-1'), usageRow('tenant-1')];
    for (const row of rows) await journal.keep(row, new Error('ECONNREFUSED'));
    expect(await journal.depth()).toBe(2);
    expect(logs.lines.filter((l) => l.event === 'usage_journal_store_failed')).toHaveLength(1);

    storeUp = true;
    await journal.flush();
    expect(await inner.size()).toBe(2);
    dbUp = true;
    expect(await journal.flush()).toBe(2);
    expect(await journal.flush()).toBe(0);
    expect(written.sort()).toEqual(rows.map((r) => r.turn!.id!).sort());
    expect(await journal.depth()).toBe(0);
  });

  it('budgets count the spend it holds: over budget on it alone while the ledger cannot be read', async () => {
    const { log, logs } = captureLogs();
    const journal = createUsageJournal({ data: away, store: memoryJournalStore(), log, max: 10 });
    await journal.keep(usageRow('tenant-1', { promptTokens: 600, completionTokens: 500 }), new Error('down'));
    const data = { usageTotals: () => Promise.reject(new Error('ECONNREFUSED')) };
    const budgets = createBudgets(
      data as never, // only usageTotals is read
      { TOKEN_BUDGET_PER_USER_DAILY: 1_000 },
      log,
      () => new Date(),
      journal,
    );
    const tenant = { id: 'tenant-1', name: 'T', settings: {}, isDefault: true };
    const err = await budgets.check(message('hi', { userId: 'u-1' }), tenant).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserFacingError);
    expect(err).toMatchObject({ code: 'budget_exhausted' });
    // Another user's spend is not theirs: the turn runs (fail open) with the warning.
    await expect(budgets.check(message('hi', { userId: 'u-2' }), tenant)).resolves.toBeUndefined();
    expect(logs.lines.some((l) => String(l.msg).includes('token budget not checked'))).toBe(true);
  });

  it('adds what it holds to the ledger totals when the ledger can be read', async () => {
    const { log } = captureLogs();
    const journal = createUsageJournal({ data: away, store: memoryJournalStore(), log, max: 10 });
    await journal.keep(usageRow('tenant-1', { promptTokens: 300, completionTokens: 0 }), new Error('down'));
    const totals = { promptTokens: 700, completionTokens: 0, turns: 1, costUsd: 0 };
    const budgets = createBudgets(
      { usageTotals: () => Promise.resolve(totals) } as never, // only usageTotals is read
      { TOKEN_BUDGET_PER_USER_DAILY: 1_000 },
      log,
      () => new Date(),
      journal,
    );
    const tenant = { id: 'tenant-1', name: 'T', settings: {}, isDefault: true };
    await expect(budgets.check(message('hi', { userId: 'u-1' }), tenant)).rejects.toMatchObject({
      code: 'budget_exhausted',
    });
  });
});
