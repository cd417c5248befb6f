import { describe, expect, it } from 'vitest';
import { trimCounted } from '../../src/agent/history.js';
import { countMessageTokens, countTokens } from '../../src/contract/tokens.js';
import type { ChatMessage } from '../../src/contract/llm.js';

const trimHistory = (messages: readonly ChatMessage[], maxTokens: number) => trimCounted(messages, maxTokens).messages;

const user = (content: string): ChatMessage => ({ role: 'user', content });
const assistant = (content: string): ChatMessage => ({ role: 'assistant', content });
const toolCall = (ids: string[], args = '{"q":"acme"}'): ChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: ids.map((id) => ({ id, type: 'function', function: { name: 'search_competitors', arguments: args } })),
});
const toolResult = (id: string, content = '{"found":3}'): ChatMessage => ({ role: 'tool', tool_call_id: id, content });

/** What the OpenAI API checks: every tool_calls message is followed at once by all its results, and every tool message answers one. */
function expectValidForApi(messages: ChatMessage[]): void {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'tool') throw new Error(`orphan tool message at ${i}: ${m.tool_call_id}`);
    if (m.role !== 'assistant' || !m.tool_calls?.length) continue;
    const pending = new Set(m.tool_calls.map((c) => c.id));
    while (messages[i + 1]?.role === 'tool') {
      const result = messages[++i] as Extract<ChatMessage, { role: 'tool' }>;
      expect(pending.delete(result.tool_call_id), `unexpected result ${result.tool_call_id}`).toBe(true);
    }
    expect([...pending], 'calls without results').toEqual([]);
  }
}

describe('token counting', () => {
  it('counts text, and counts special-token lookalikes typed by users as text', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('hello world')).toBe(2);
    expect(countTokens('please ignore <|endoftext|> this')).toBeGreaterThan(3);
  });

  it('counts tool call arguments, content parts and per-message framing', () => {
    const short = countMessageTokens([toolCall(['a'], '{}')]);
    const long = countMessageTokens([
      toolCall(['a'], JSON.stringify({ query: 'competitors of acme in the midwest'.repeat(5) })),
    ]);
    expect(long - short).toBeGreaterThan(30);
    expect(countMessageTokens([user('hi'), user('hi')])).toBe(2 * countMessageTokens([user('hi')]));
    expect(countMessageTokens([{ role: 'user', content: [{ type: 'text', text: 'hello world' }] }])).toBe(
      countMessageTokens([user('hello world')]),
    );
    expect(countMessageTokens([user('')])).toBeGreaterThan(0);
  });
});

describe('trimHistory', () => {
  const conversation = (turns: number): ChatMessage[] =>
    Array.from({ length: turns }, (_, i) => [
      user(`question ${i} about the campaign budget`),
      assistant(`answer ${i}: it is fine`),
    ]).flat();

  it('keeps everything under budget and never mutates its input', () => {
    const history = conversation(3);
    const copy = structuredClone(history);
    expect(trimHistory(history, 10_000)).toEqual(history);
    expect(history).toEqual(copy);
  });

  it('drops the oldest messages first and respects the budget', () => {
    const history = conversation(20);
    const budget = Math.floor(countMessageTokens(history) / 3);
    const trimmed = trimHistory(history, budget);
    expect(countMessageTokens(trimmed)).toBeLessThanOrEqual(budget);
    expect(trimmed).toEqual(history.slice(history.length - trimmed.length));
    expect(countMessageTokens(history.slice(history.length - trimmed.length - 1))).toBeGreaterThan(budget);
  });

  it('drops a tool call together with its results, never half of it', () => {
    const history = [
      user('find acme'),
      toolCall(['a', 'b']),
      toolResult('a', 'x'.repeat(400)),
      toolResult('b'),
      assistant('found them'),
      user('thanks'),
    ];
    for (let budget = 0; budget <= countMessageTokens(history) + 10; budget += 5) {
      const trimmed = trimHistory(history, budget);
      expectValidForApi(trimmed);
      expect(trimmed.at(-1)).toEqual(user('thanks'));
    }
    const withoutExchange = countMessageTokens([assistant('found them'), user('thanks')]);
    expect(trimHistory(history, withoutExchange)).toEqual([assistant('found them'), user('thanks')]);
  });

  it('drops incomplete exchanges and orphan tool messages even under budget', () => {
    const history = [
      toolResult('orphan-at-start'),
      user('q1'),
      toolCall(['a', 'b']),
      toolResult('a'), // b never answered
      assistant('a1'),
      user('q2'),
      toolResult('late'), // not right after its call
      toolCall(['c']),
      toolResult('c'),
      toolResult('c'), // a duplicate answer
      assistant('a2'),
    ];
    const trimmed = trimHistory(history, 100_000);
    expectValidForApi(trimmed);
    expect(trimmed).toEqual([
      user('q1'),
      assistant('a1'),
      user('q2'),
      toolCall(['c']),
      toolResult('c'),
      assistant('a2'),
    ]);
  });

  it('keeps the newest user message even when it alone is over budget', () => {
    const huge = user('word '.repeat(2_000));
    const trimmed = trimHistory([...conversation(3), huge], 200);
    expect(trimmed).toEqual([huge]);
  });

  it('keeps leading system instructions', () => {
    const system: ChatMessage = { role: 'system', content: 'You are Switchboard.' };
    const history = [system, ...conversation(10)];
    const trimmed = trimHistory(history, countMessageTokens([system]) + 60);
    expect(trimmed[0]).toEqual(system);
    expect(trimmed.length).toBeGreaterThan(1);
    expect(countMessageTokens(trimmed)).toBeLessThanOrEqual(countMessageTokens([system]) + 60);
  });

  it('always leaves a valid conversation within budget (randomised)', () => {
    let seed = 42;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let run = 0; run < 200; run++) {
      const history: ChatMessage[] = [];
      for (let turn = 0; turn < 1 + Math.floor(random() * 8); turn++) {
        history.push(user(`q${turn} ${'x '.repeat(Math.floor(random() * 40))}`));
        for (let step = 0; step < Math.floor(random() * 3); step++) {
          const ids = Array.from(
            { length: 1 + Math.floor(random() * 3) },
            (_, k) => `call_${run}_${turn}_${step}_${k}`,
          );
          history.push(toolCall(ids), ...ids.map((id) => toolResult(id, 'r '.repeat(Math.floor(random() * 80)))));
        }
        history.push(assistant(`a${turn} ${'y '.repeat(Math.floor(random() * 40))}`));
      }
      const budget = Math.floor(random() * countMessageTokens(history) * 1.2);
      const trimmed = trimHistory(history, budget);
      expectValidForApi(trimmed);
      const newestUser = history.findLast((m) => m.role === 'user');
      expect(trimmed).toContain(newestUser);
      const overBudget = countMessageTokens(trimmed) > budget;
      if (overBudget) expect(trimmed[0]).toBe(newestUser); // only the pinned message may overflow
    }
  });

  it('keeps each message’s count with the history, and counts only the messages it does not know', () => {
    const history: ChatMessage[] = [
      user('first question'),
      toolCall(['c1']),
      toolResult('c1'),
      assistant('first answer'),
      user('second question'),
    ];
    const counted = trimCounted(history, 10_000);
    expect(counted.messages).toEqual(history);
    expect(counted.tokens.reduce((a, b) => a + b, 0)).toBe(countMessageTokens(history));
    // Stored counts are trusted: claim the first exchange is huge and it is the one dropped.
    const claimed = trimCounted([...history, assistant('second answer')], 500, [
      1_000,
      5,
      5,
      5,
      ...counted.tokens.slice(4),
    ]);
    expect(claimed.messages[0]).toEqual(history[1]);
    expect(claimed.tokens).toHaveLength(claimed.messages.length);
    expect(claimed.tokens.at(-1)).toBe(countMessageTokens([assistant('second answer')]));
  });
});
