/**
 * The token ledger's writer: group commit, and for the in-process database (`gather`) rows of
 * turns that end in the same event-loop turn share one statement. Either way a turn hears that
 * its row is written only after the statement holding it has committed, and no row is lost.
 */
import { describe, expect, it } from 'vitest';
import { DataError, type UsageRow } from '../../src/contract/data.js';
import { createLedgerWriter, type LedgerWrites } from '../../src/data/ledger-writer.js';

const row = (i: number): UsageRow => ({
  tenantId: 't',
  platform: 'http',
  channelId: 'c',
  threadId: `thread-${i}`,
  userId: `u${i}`,
  model: 'm',
  promptTokens: 1,
  completionTokens: i,
  toolCalls: 0,
});

/** A database whose statements commit when the test says so; records what each carried. */
function database() {
  const statements: { kind: 'one' | 'many'; rows: number[]; commit: () => void; fail: (err: unknown) => void }[] = [];
  const committed: number[] = [];
  const statement = (kind: 'one' | 'many', rows: UsageRow[]) =>
    new Promise<void>((resolve, reject) => {
      const ids = rows.map((r) => r.completionTokens);
      statements.push({
        kind,
        rows: ids,
        commit: () => (committed.push(...ids), resolve()),
        fail: reject,
      });
    });
  const writes: LedgerWrites = { one: (r) => statement('one', [r]), many: (rs) => statement('many', rs) };
  return { writes, statements, committed };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('the ledger writer with gather (the in-process database)', () => {
  it('writes the rows of one event-loop turn in one statement and acknowledges none before it commits', async () => {
    const db = database();
    const writer = createLedgerWriter(db.writes, { gather: true });
    const acknowledged: number[] = [];
    const writes = [1, 2, 3].map((i) => writer.write(row(i)).then(() => acknowledged.push(i)));
    await nextTurn();
    await nextTurn();
    expect(db.statements.map((s) => [s.kind, s.rows])).toEqual([['many', [1, 2, 3]]]);
    expect(acknowledged).toEqual([]);
    db.statements[0]!.commit();
    await Promise.all(writes);
    expect(acknowledged).toEqual([1, 2, 3]);
    expect(db.committed).toEqual([1, 2, 3]);
  });

  it('writes a lone row alone, at the end of the event-loop turn', async () => {
    const db = database();
    const writer = createLedgerWriter(db.writes, { gather: true });
    const done = writer.write(row(7));
    expect(db.statements).toHaveLength(0);
    await nextTurn();
    expect(db.statements.map((s) => [s.kind, s.rows])).toEqual([['one', [7]]]);
    db.statements[0]!.commit();
    await done;
    await writer.idle();
  });

  it('rows arriving while a statement runs go in the next one; idle() waits for both', async () => {
    const db = database();
    const writer = createLedgerWriter(db.writes, { gather: true });
    const first = [1, 2].map((i) => writer.write(row(i)));
    await nextTurn();
    const second = [3, 4].map((i) => writer.write(row(i)));
    let idle = false;
    const idling = writer.idle().then(() => (idle = true));
    db.statements[0]!.commit();
    await Promise.all(first);
    await nextTurn();
    expect(db.statements.map((s) => s.rows)).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(idle).toBe(false);
    db.statements[1]!.commit();
    await Promise.all([...second, idling]);
    expect(db.committed).toEqual([1, 2, 3, 4]);
  });

  it('a batch refused for one bad row is retried row by row, so only that row fails', async () => {
    const db = database();
    const writer = createLedgerWriter(db.writes, { gather: true });
    const results = Promise.allSettled([1, 2, 3].map((i) => writer.write(row(i))));
    await nextTurn();
    db.statements[0]!.fail(new DataError('record_turn_usages', 'no such tenant', { code: 'invalid_input' }));
    for (const expected of [1, 2, 3]) {
      await nextTurn();
      const statement = db.statements.at(-1)!;
      expect(statement.rows).toEqual([expected]);
      if (expected === 2)
        statement.fail(new DataError('record_turn_usage', 'no such tenant', { code: 'invalid_input' }));
      else statement.commit();
    }
    expect((await results).map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(db.committed).toEqual([1, 3]);
  });

  it('a database failure fails every row of the batch (each turn logs it), none reported written', async () => {
    const db = database();
    const writer = createLedgerWriter(db.writes, { gather: true });
    const results = Promise.allSettled([1, 2].map((i) => writer.write(row(i))));
    await nextTurn();
    db.statements[0]!.fail(new Error('connection lost'));
    expect((await results).map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(db.committed).toEqual([]);
  });
});

describe('the ledger writer without gather (a database over the network)', () => {
  it('writes a lone row at once; rows queued behind it go together in the next statement', async () => {
    const db = database();
    const writer = createLedgerWriter(db.writes);
    const first = writer.write(row(1));
    expect(db.statements.map((s) => [s.kind, s.rows])).toEqual([['one', [1]]]);
    const rest = [2, 3].map((i) => writer.write(row(i)));
    db.statements[0]!.commit();
    await first;
    await nextTurn();
    expect(db.statements.map((s) => [s.kind, s.rows])).toEqual([
      ['one', [1]],
      ['many', [2, 3]],
    ]);
    db.statements[1]!.commit();
    await Promise.all(rest);
    expect(db.committed).toEqual([1, 2, 3]);
  });
});
