/**
 * The conversation before a Discord message (issue 42, item 1), through the real discord.js
 * client and the fake Discord: a reply gives the model the message it answers (one GET); a
 * mention in a thread people started gives it the thread's earlier messages (one GET
 * `?before=`), fenced as data; the next turn there asks nothing when nothing new was posted, and
 * only for what is new after another app posts; a refused or slow read leaves the turn answered.
 */
import { ChannelType } from 'discord.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import { createDiscordAdapter, type DiscordAdapter } from '../../../src/adapters/discord/index.js';
import type { AdminDataPort } from '../../../src/data/index.js';
import { startFakeDiscord, type FakeDiscord } from '../../fakes/discord/index.js';
import { snowflake, threadChannel } from '../../fakes/discord/payloads.js';
import type { RecordedRequest } from '../../fakes/openai-server.js';
import { openPgliteTestPort } from '../../helpers/db.js';
import { runAdapter, sentMessages, startHarness, type Harness } from '../../helpers/harness.js';
import { finalMessages } from './helpers.js';

let discord: FakeDiscord;
let data: AdminDataPort;
let h: Harness;
let adapter: DiscordAdapter;
let stopAdapter: (() => Promise<void>) | undefined;

beforeAll(async () => {
  [discord, data] = await Promise.all([startFakeDiscord(), openPgliteTestPort({ seedDemo: false })]);
  h = await startHarness({ env: discord.env(), data });
  adapter = createDiscordAdapter(h.sb)!;
  stopAdapter = await runAdapter(h.sb, adapter);
});
afterAll(async () => {
  await stopAdapter?.();
  await h?.close();
  await data?.close();
  await discord?.close();
});
beforeEach(() => {
  h.llm.reset();
  // On failure, the app's last log lines (debug included): a slow or refused read is logged there.
  onTestFailed(() =>
    console.log(
      h.logs.lines
        .slice(-40)
        .map((l) => JSON.stringify(l).slice(0, 300))
        .join('\n'),
    ),
  );
});

const reads = () => discord.callsMatching('GET', /^\/channels\/\d+\/messages/);
const contextOf = (r: RecordedRequest | undefined) =>
  sentMessages(r!.body).find((m) => typeof m.content === 'string' && m.content.includes('<thread_context'))?.content as
    string | undefined;

/** A thread people started in #general (the bot is not in it until it is mentioned there). */
function peoplesThread(name: string): string {
  const id = snowflake();
  const thread = threadChannel({
    id,
    guildId: discord.world.guildOf(discord.world.general.id)!,
    parentId: discord.world.general.id,
    ownerId: discord.world.people.alice.id,
    name,
  });
  discord.world.channels.set(id, thread);
  discord.world.dispatch('THREAD_CREATE', { ...thread, newly_created: true });
  return id;
}

describe('the conversation before a Discord message', () => {
  it('gives a reply the message it answers (one read), and a plain mention nothing', async () => {
    const earlier = discord.say({
      content: 'The budget is 40k, not 35k.',
      author: discord.world.people.bob,
      dispatch: false,
    });
    const before = reads().length;
    h.llm.script({ text: 'Bob says the budget is 40k.' });
    const asked = discord.say({ content: 'is that right?', mention: true, replyTo: earlier.id });
    // The process's first turn: on a loaded machine it may take longer than the usual 10 s.
    await finalMessages(discord, asked.id, 1, 'the answer', 30_000);
    const context = contextOf(h.llm.lastRequest('/chat/completions'))!;
    expect(context).toMatch(/<thread_context messages="1">/);
    expect(context).toMatch(/\] Bob: The budget is 40k, not 35k\./);
    expect(
      reads()
        .slice(before)
        .map((c) => c.path),
    ).toEqual([`/channels/${earlier.channel_id}/messages/${earlier.id}`]);

    h.llm.script({ text: 'Hello.' });
    const plain = discord.say({ content: 'hello there', mention: true });
    await finalMessages(discord, plain.id);
    expect(contextOf(h.llm.lastRequest('/chat/completions'))).toBeUndefined();
    expect(reads().length).toBe(before + 1);
  });

  it('reads a thread’s earlier messages once, then nothing new costs nothing, then only what another app posted', async () => {
    const threadId = peoplesThread('launch planning');
    const { alice, bob, otherBot } = discord.world.people;
    await discord.waitFor(() => adapter.client.channels.cache.has(threadId), 'the thread in the client cache');
    discord.say({ channelId: threadId, author: alice, content: 'Launch is on the 14th.', dispatch: false });
    discord.say({
      channelId: threadId,
      author: bob,
      content: 'Deck attached.',
      dispatch: false,
      attachments: [{ filename: 'deck.pdf', content_type: 'application/pdf' }],
    });
    const before = reads().length;
    h.llm.script({ text: 'The launch is on the 14th.' });
    const asked = discord.say({ channelId: threadId, content: 'when is the launch?', mention: true });
    await finalMessages(discord, threadId);
    const first = h.llm.lastRequest('/chat/completions');
    const context = contextOf(first)!;
    expect(context).toMatch(/<thread_context messages="2">/);
    expect(context).toMatch(
      /Alice: Launch is on the 14th\.\n.*Bob: Deck attached\. \(files: deck\.pdf \(application\/pdf\)\)/,
    );
    expect(sentMessages(first!.body).at(-1)).toMatchObject({ role: 'user', content: 'when is the launch?' });
    const read = reads().slice(before);
    expect(read).toHaveLength(1);
    expect(read[0]!.query.get('before')).toBe(asked.id);

    // Asked again there (a mention: the fake does not add the bot to the thread's members), nothing new: no read.
    h.llm.script({ text: 'Yes.' });
    discord.say({ channelId: threadId, content: 'sure?', mention: true });
    await finalMessages(discord, threadId, 2);
    expect(reads().length).toBe(before + 1);
    expect(contextOf(h.llm.lastRequest('/chat/completions'))).toBe(context); // kept in the history, where it was

    // Another app posts there: the next turn reads again, and shows only that.
    discord.say({ channelId: threadId, author: otherBot, content: 'Reminder: freeze on the 12th.' });
    h.llm.script({ text: 'Noted.' });
    discord.say({ channelId: threadId, content: 'anything else?', mention: true });
    await finalMessages(discord, threadId, 3);
    expect(reads().length).toBe(before + 2);
    const last = sentMessages(h.llm.lastRequest('/chat/completions')!.body);
    expect(last.at(-2)!.content).toMatch(
      /<thread_context messages="1">\n.*[Hh]elperbot \(app\): Reminder: freeze on the 12th\./,
    );
  });

  for (const [what, fail, code] of [
    ['Missing Access', () => discord.failNextRead(403, 50001, 'Missing Access'), 'missing_access'],
    ['a read slower than 2 s', () => discord.delayNextRead(2_500), 'timeout'],
  ] as const) {
    it(`answers without the earlier messages when the read fails (${what}), with one warn line`, async () => {
      const threadId = peoplesThread(`failing ${code}`);
      await discord.waitFor(() => adapter.client.channels.cache.has(threadId), 'the thread in the client cache');
      discord.say({ channelId: threadId, author: discord.world.people.bob, content: 'context', dispatch: false });
      const warnsBefore = h.logs.lines.filter((l) => String(l.msg).startsWith('thread context skipped')).length;
      fail();
      h.llm.script({ text: 'Answered anyway.' });
      discord.say({ channelId: threadId, content: 'summarise', mention: true });
      const [answer] = await finalMessages(discord, threadId);
      expect(answer!.content + JSON.stringify(answer!.embeds)).toContain('Answered anyway.');
      expect(contextOf(h.llm.lastRequest('/chat/completions'))).toBeUndefined();
      const warns = h.logs.lines.filter((l) => String(l.msg).startsWith('thread context skipped')).slice(warnsBefore);
      expect(warns).toEqual([expect.objectContaining({ level: 40, code, platform: 'discord' })]);
    });
  }
});

// ChannelType is imported for readers of the payloads: a people's thread is a PublicThread.
void ChannelType.PublicThread;
