/**
 * Answers that outlast one Slack message (issue 46, item 2): the whole app (Bolt over Socket
 * Mode, the inbox, the agent, the turn writer) against a fake Slack that enforces a stream's
 * lifetime, a streamed message's size (`msg_too_long`) and a posted message's markdown budget,
 * with a model that writes past them. The thread's text, message after message, is the answer:
 * nothing lost, nothing twice.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { invalidBlockPayloads } from '../../fakes/slack/block-kit.js';
import type { FakeMessage } from '../../fakes/slack/web-api.js';
import { eventBody, mention, startSlackRig, type SlackRig } from './setup.js';

/** The writer's own limit on a stream's age in this file (Slack's is about 5 minutes; the writer's default 4). */
const MAX_AGE_MS = 1_000;

let rig: SlackRig;
/** Log lines of the test running start here. */
let mark = 0;
beforeAll(async () => {
  rig = await startSlackRig({ mode: 'socket', writer: { streamMaxAgeMs: MAX_AGE_MS } });
});
afterAll(() => rig.close());
beforeEach(() => {
  rig.llm.reset();
  rig.slack.reset();
  mark = rig.h.logs.lines.length;
});
afterEach(() => expect(invalidBlockPayloads(rig.slack)).toEqual([]));

async function ask(text: string): Promise<FakeMessage[]> {
  const before = rig.deliveredCount();
  const event = mention(text);
  await rig.slack
    .socket!.deliver('events_api', eventBody(event))
    .catch(() =>
      rig.slack.socket!.deliver('events_api', eventBody(event), { retryAttempt: 1, retryReason: 'timeout' }),
    );
  await rig.delivered(before + 1, 60_000);
  return rig.slack.threadReplies('C0CHAN1', event.ts);
}

/** `count` words in paragraphs of twelve. */
const answerOf = (count: number) =>
  Array.from({ length: count }, (_, i) => `word${i}${i % 12 === 11 ? '.\n\n' : ' '}`)
    .join('')
    .trim();

const markdownOf = (m: FakeMessage) =>
  ((m.blocks ?? []) as { type?: string; text?: string }[])
    .filter((b) => b.type === 'markdown')
    .map((b) => b.text ?? '')
    .join('\n\n');

const logs = () => rig.h.logs.lines.slice(mark);
const rollovers = () => logs().filter((l) => l.msg === 'slack answer continues in a new message');
/** The writer's and Slack calls' warnings (not the harness's own, e.g. an unpriced test model). */
const warnings = () => logs().filter((l) => Number(l.level) >= 40 && String(l.msg).startsWith('slack '));

/**
 * Every message streamed and finished; their markdown joined is the answer exactly. `tagged`: each
 * carries the turn's metadata (a stream Slack ended itself was never stopped by us, so it has none).
 */
function expectStreamedAnswer(messages: FakeMessage[], answer: string, tagged = true): void {
  expect(messages.every((m) => m.stream?.state === 'completed')).toBe(true);
  expect(messages.map((m) => m.stream!.markdown).join('')).toBe(answer);
  if (tagged) for (const m of messages) expect(m.metadata).toMatchObject({ event_type: 'switchboard_turn' });
}

describe('Slack answers longer than one message', () => {
  it('a slow answer outlasting a stream continues in a new stream before Slack ends it', async () => {
    // Far past the whole answer's writing time: only the writer's own age limit can end a stream
    // here, however late a loaded machine runs its timers (Slack ending one would leave it untagged).
    rig.slack.setLimits({ streamLifetimeMs: 20 * MAX_AGE_MS });
    const answer = answerOf(60);
    // About 2.4 s of writing (a word every 40 ms) against the writer's 1 s stream age.
    rig.llm.script({ text: answer, chunkDelayMs: 40 });
    const messages = await ask('write slowly');
    expect(messages.length).toBeGreaterThanOrEqual(2);
    expectStreamedAnswer(messages, answer);
    expect(rollovers().length).toBeGreaterThan(0);
    expect(rollovers().every((l) => l.reason === 'age' && l.code === undefined)).toBe(true);
    expect(warnings()).toEqual([]);
  });

  it('a stream Slack ended (past its lifetime) is continued in a new one with the refused text', async () => {
    rig.slack.setLimits({ streamLifetimeMs: 300 });
    const answer = answerOf(40);
    rig.llm.script({ text: answer, chunkDelayMs: 40 });
    const messages = await ask('write slowly');
    expect(messages.length).toBeGreaterThanOrEqual(2);
    expectStreamedAnswer(messages, answer, false);
    expect(rollovers().some((l) => l.code === 'message_not_in_streaming_state')).toBe(true);
    expect(logs().some((l) => l.msg === 'slack streaming unavailable; falling back to post and update')).toBe(false);
  });

  it('an answer larger than a message rolls over by size, each stream within the budget', async () => {
    const answer = answerOf(3_600);
    expect(answer.length).toBeGreaterThan(30_000);
    rig.llm.script({ text: answer });
    const messages = await ask('write a lot');
    expect(messages.length).toBeGreaterThanOrEqual(3);
    expectStreamedAnswer(messages, answer);
    for (const m of messages) expect(m.stream!.markdown.length).toBeLessThanOrEqual(12_000);
    expect(rollovers().some((l) => l.reason === 'size')).toBe(true);
    expect(warnings()).toEqual([]);
  });

  it('msg_too_long from Slack (a smaller limit than the writer counts) rolls over with nothing lost', async () => {
    rig.slack.setLimits({ streamMaxChars: 2_000 });
    const answer = answerOf(700);
    rig.llm.script({ text: answer });
    const messages = await ask('write a lot');
    expect(messages.length).toBeGreaterThanOrEqual(3);
    expectStreamedAnswer(messages, answer);
    for (const m of messages) expect(m.stream!.markdown.length).toBeLessThanOrEqual(2_000);
    expect(rollovers().some((l) => l.reason === 'msg_too_long')).toBe(true);
  });

  it('post and update (no streaming): the live message past the limit is sealed and a new one continues', async () => {
    rig.slack.disableStreaming();
    const answer = answerOf(3_600);
    rig.llm.script({ text: answer, chunkDelayMs: 1 });
    const messages = await ask('write a lot');
    expect(messages.length).toBeGreaterThanOrEqual(3);
    for (const m of messages) expect(markdownOf(m).length).toBeLessThanOrEqual(12_000);
    // Markdown blocks are cut at whitespace and trimmed: the words, in order, once each.
    const words = messages.flatMap((m) => markdownOf(m).split(/\s+/).filter(Boolean));
    expect(words).toEqual(answer.split(/\s+/));
    expect(rig.slack.callsTo('chat.postMessage').length).toBe(messages.length);
    expect(logs().some((l) => l.code === 'msg_too_long')).toBe(false);
  });
});
