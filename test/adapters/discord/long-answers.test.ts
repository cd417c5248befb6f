/**
 * Answers longer than one Discord message (issue 46, item 2): the whole app (discord.js, the
 * inbox, the agent) against the fake Discord, which refuses content past 2,000 characters and
 * here enforces an edit rate limit (429 with retry_after), with a model that writes past a
 * message slowly. The progress seals a full message and goes on in a new one; the thread's
 * text is the answer, every word once, in order.
 */
import type { APIMessage } from 'discord.js';
import { afterEach, expect, it } from 'vitest';
import { createDiscordAdapter } from '../../../src/adapters/discord/index.js';
import { startFakeDiscord, type FakeDiscord } from '../../fakes/discord/index.js';
import { runAdapter, startHarness, type Harness } from '../../helpers/harness.js';
import { fromBot, specProblems } from './helpers.js';

let discord: FakeDiscord | undefined;
let h: Harness | undefined;
let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  await h?.close();
  await discord?.close();
  [stop, h, discord] = [undefined, undefined, undefined];
});

async function start(editRateLimit: { edits: number; perMs: number }, editIntervalMs: number) {
  discord = await startFakeDiscord({ editRateLimit });
  h = await startHarness({ env: discord.env() });
  stop = await runAdapter(h.sb, createDiscordAdapter(h.sb, { editIntervalMs })!);
  return { discord, h };
}

/** `count` words in paragraphs of twelve. */
const answerOf = (count: number) =>
  Array.from({ length: count }, (_, i) => `word${i}${i % 12 === 11 ? '.\n\n' : ' '}`)
    .join('')
    .trim();

/** The words the bot's messages show, our own `-#` lines (continuation marks, notes) left out. */
const wordsShown = (messages: APIMessage[]) =>
  messages.flatMap((m) =>
    m.content
      .split('\n')
      .filter((line) => !line.startsWith('-# '))
      .join('\n')
      .split(/\s+/)
      .filter(Boolean),
  );

async function askAndWait(d: FakeDiscord, harness: Harness, answer: string): Promise<APIMessage[]> {
  // About 3 s of writing: several messages' worth, sealed while it is written.
  harness.llm.script({ text: answer, chunkDelayMs: 5 });
  const asked = d.say({ content: 'write me a long report', mention: true });
  await d.waitFor(
    () => harness.logs.lines.some((l) => l.msg === 'discord turn delivered'),
    'the turn delivered',
    60_000,
  );
  return d.messagesIn(asked.id).filter(fromBot(d));
}

it(
  'a long answer continues in follow-up messages as it is written, within the edit rate limit',
  { timeout: 60_000 },
  async () => {
    // Five edits a second per channel; the live reply writes at most every 250 ms.
    const { discord: d, h: harness } = await start({ edits: 5, perMs: 1_000 }, 250);
    const answer = answerOf(800);
    expect(answer.length).toBeGreaterThan(5_000);
    const messages = await askAndWait(d, harness, answer);
    expect(messages.length).toBeGreaterThanOrEqual(3);
    expect(wordsShown(messages)).toEqual(answer.split(/\s+/));
    for (const m of messages.slice(1)) expect(m.content.startsWith('-# ↳ continued')).toBe(true);
    // Each message posted once: the sealed ones kept, the last one finished by an edit.
    const posts = d.callsMatching('POST', /\/messages$/).filter((c) => c.status === 200);
    expect(posts.length).toBe(messages.length);
    expect(d.calls.filter((c) => c.status === 429)).toEqual([]);
    expect(specProblems(d.calls)).toEqual([]);
  },
);

it(
  'edits Discord rate-limits (429, retry_after) are waited out, and the answer still arrives whole',
  { timeout: 60_000 },
  async () => {
    // A limit tighter than the live reply's pace: discord.js waits out each 429 and retries.
    const { discord: d, h: harness } = await start({ edits: 2, perMs: 1_000 }, 100);
    const answer = answerOf(400);
    const messages = await askAndWait(d, harness, answer);
    expect(messages.length).toBeGreaterThanOrEqual(2);
    expect(wordsShown(messages)).toEqual(answer.split(/\s+/));
    expect(d.calls.some((c) => c.status === 429)).toBe(true);
    expect(specProblems(d.calls)).toEqual([]);
  },
);
