/**
 * The consumers' own guard (issue 41, item 1): an `error` after `done` is not shown. The agent
 * emits none (test/agent/answered-stays-answered.test.ts); this checks the guard the HTTP and
 * Discord adapters put in front of their rendering, on a stream that breaks the rule.
 */
import { describe, expect, it } from 'vitest';
import { answeredStaysAnswered } from '../../src/adapters/answered-turn.js';
import type { TurnEvent } from '../../src/contract/turn.js';
import { captureLogs } from '../helpers/harness.js';

async function* stream(events: TurnEvent[]): AsyncGenerator<TurnEvent> {
  for (const e of events) yield e;
}
const usage = { promptTokens: 1, completionTokens: 1 };
const done: TurnEvent = { type: 'done', usage, toolCalls: [], data: {} };
const error: TurnEvent = { type: 'error', code: 'internal', message: 'Something went wrong' };

async function pass(events: TurnEvent[]) {
  const { log, logs } = captureLogs();
  const out: TurnEvent[] = [];
  for await (const e of answeredStaysAnswered(stream(events), log)) out.push(e);
  return { types: out.map((e) => e.type), warnings: logs.lines.filter((l) => l.level === 40) };
}

describe('answeredStaysAnswered', () => {
  it('drops an error after done, with a warning', async () => {
    const { types, warnings } = await pass([{ type: 'reply', reply: { text: 'hi', blocks: [] } }, done, error]);
    expect(types).toEqual(['reply', 'done']);
    expect(warnings).toHaveLength(1);
  });

  it('passes an error before done (a failed turn is still told)', async () => {
    const { types, warnings } = await pass([{ type: 'status', text: 'Thinking' }, error]);
    expect(types).toEqual(['status', 'error']);
    expect(warnings).toHaveLength(0);
  });
});
