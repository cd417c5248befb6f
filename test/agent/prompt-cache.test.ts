/**
 * Providers' prompt caches (OpenAI, DeepSeek, Gemini, Anthropic-compatible) hit on the longest
 * unchanged prefix of a request. Through the real app and the fake OpenAI server: two consecutive
 * turns of one thread on the default demo tenant send the same tools array and system prompt, and
 * every request's conversation starts with the previous request's (only thread context, such as a
 * campaign search's active filters, rides after it, as trailing system messages).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../fakes/openai-server.js';
import { collect, message, sentMessages, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

/** A request's messages without the trailing system messages (the per-step thread context). */
function conversation(request: RecordedRequest): unknown[] {
  const messages = sentMessages(request.body);
  let end = messages.length;
  while (end > 0 && messages[end - 1]!.role === 'system') end--;
  return messages.slice(0, end);
}

describe('prompt caching across the turns of a thread', () => {
  it('keeps the tools and system prompt identical, and each request starts with the one before', async () => {
    const threadId = 'cache-thread';
    h.llm.script(
      { toolCalls: [{ name: 'filter_campaigns', arguments: { value_prop: ['Cash Back'], channel: ['Email'] } }] },
      { text: 'Here are the recent cash-back campaigns on email.' },
      { text: 'Most of them offer a welcome bonus.' },
    );
    await collect(h.sb.agent.handle(message('Show me recent cash-back campaigns on email', { threadId })));
    await collect(h.sb.agent.handle(message('What do their offers have in common?', { threadId })));
    const [first, second, third] = h.llm.requestsTo('/chat/completions');
    expect(h.llm.requestsTo('/chat/completions')).toHaveLength(3);

    // The tools array is byte-for-byte the same on every step of both turns.
    const tools = JSON.stringify(first!.body.tools);
    expect((first!.body.tools as unknown[]).length).toBeGreaterThan(3);
    expect(JSON.stringify(second!.body.tools)).toBe(tools);
    expect(JSON.stringify(third!.body.tools)).toBe(tools);
    // So is the system prompt (and the notes that follow it).
    const system = (r: RecordedRequest) => sentMessages(r.body).slice(0, 2);
    expect(system(first!)[0]).toMatchObject({ role: 'system' });
    expect(system(second!)).toEqual(system(first!));
    expect(system(third!)).toEqual(system(first!));

    // Step 2 of turn 1 starts with step 1's conversation; turn 2 starts with turn 1's last request.
    expect(conversation(second!).slice(0, conversation(first!).length)).toEqual(conversation(first!));
    expect(conversation(third!).slice(0, conversation(second!).length)).toEqual(conversation(second!));
    // Turn 2 adds turn 1's answer and the new question, nothing in between.
    expect(conversation(third!).slice(conversation(second!).length)).toEqual([
      { role: 'assistant', content: 'Here are the recent cash-back campaigns on email.' },
      { role: 'user', content: 'What do their offers have in common?' },
    ]);
    // The search's active filters reach the model as thread context, after the conversation.
    expect(sentMessages(third!.body).at(-1)).toMatchObject({
      role: 'system',
      content: expect.stringContaining('Active campaign filters in this thread'),
    });
  });
});
