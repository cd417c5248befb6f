/**
 * The Discord adapter end to end: a real discord.js client, configured from the environment
 * as a user would (DISCORD_TOKEN, DISCORD_APPLICATION_ID, DISCORD_API_URL), talks to the fake
 * Discord over HTTP and WebSocket; the core answers through the fake OpenAI.
 */
import {
  ButtonStyle,
  ChannelType,
  MessageFlags,
  type APIButtonComponentWithCustomId,
  type APIMessage,
} from 'discord.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDiscordAdapter, type DiscordAdapter } from '../../../src/adapters/discord/index.js';
import type { AdminDataPort } from '../../../src/data/index.js';
import { startFakeDiscord, type FakeDiscord } from '../../fakes/discord/index.js';
import { openPgliteTestPort } from '../../helpers/db.js';
import { runAdapter, sentMessages, startHarness, type Harness } from '../../helpers/harness.js';
import { testTools } from '../../helpers/test-tools.js';
import {
  bigReplyTool,
  finalMessages,
  fromBot,
  LONG_SUGGESTION,
  reportTool,
  settle,
  slowReportTool,
  specProblems,
  testExtension,
  type Recorded,
} from './helpers.js';

let discord: FakeDiscord;
let data: AdminDataPort;
let h: Harness;
let adapter: DiscordAdapter;
let stopAdapter: (() => Promise<void>) | undefined;
const recorded: Recorded = { commands: [] };

beforeAll(async () => {
  [discord, data] = await Promise.all([startFakeDiscord(), openPgliteTestPort({ seedDemo: false })]);
  h = await startHarness({
    tools: [...testTools, reportTool, slowReportTool, bigReplyTool],
    extensions: [testExtension(recorded)],
    env: discord.env(),
    data,
  });
  adapter = createDiscordAdapter(h.sb)!;
  stopAdapter = await runAdapter(h.sb, adapter);
});
afterAll(async () => {
  await stopAdapter?.();
  await h?.close();
  await data?.close();
  await discord?.close();
});
beforeEach(() => h.llm.reset());

const lastUserMessage = () => sentMessages(h.llm.lastRequest('/chat/completions')!.body).at(-1);
const buttonsOf = (m: APIMessage) =>
  (m.components ?? []).flatMap((row) =>
    'components' in row ? (row.components as unknown[]) : [],
  ) as APIButtonComponentWithCustomId[];
/** The final (non-progress) messages an interaction's token produced. */
const interactionMessages = async (token: string, count = 1) =>
  discord.waitFor(
    () => {
      const it = discord.world.interactions.get(token)!;
      const mine = [...it.messageIds]
        .map((id) => discord.world.messages.get(id))
        .filter(
          (m): m is APIMessage =>
            m !== undefined && m.id !== (('message' in it.payload && it.payload.message.id) || ''),
        );
      return (
        mine.length >= count &&
        mine.every((m) => !/^-# [⏳✓✗]/m.test(m.content) && ((m.flags ?? 0) & MessageFlags.Loading) === 0) &&
        mine
      );
    },
    `the answer to interaction ${token.slice(0, 12)}`,
  );

let threadId = '';

describe('conversations', () => {
  it('answers a mention in a new thread: mention stripped, typing, progress first, then embeds, buttons and a file', async () => {
    h.llm.script(
      { toolCalls: [{ name: 'weather_report', arguments: { city: 'Oslo' } }] },
      { text: 'Rain today, sun tomorrow.' },
    );
    const asked = discord.say({ content: 'weather in Oslo?', mention: true });
    threadId = asked.id;
    const [answer] = await finalMessages(discord, asked.id);

    expect(discord.world.channels.get(asked.id)).toMatchObject({
      type: ChannelType.PublicThread,
      parent_id: discord.world.general.id,
      name: 'weather in Oslo?',
    });
    expect(sentMessages(h.llm.requestsTo('/chat/completions')[0]!.body).at(-1)).toMatchObject({
      role: 'user',
      content: 'weather in Oslo?',
    });
    expect(answer!.content).toBe('Rain today, sun tomorrow.');
    expect(answer!.embeds[0]).toMatchObject({
      title: 'Weather in Oslo',
      fields: [
        { name: 'Today', value: 'Rain, 12°' },
        { name: 'Tomorrow', value: 'Sun, 15°' },
      ],
      footer: { text: 'Source: test data' },
    });
    expect(buttonsOf(answer!).map((b) => [b.label, b.style])).toEqual([
      ['Show more', ButtonStyle.Primary],
      ['Clear filters', ButtonStyle.Secondary],
      ['Compare cities', ButtonStyle.Secondary],
    ]);
    expect(answer!.attachments).toMatchObject([{ filename: 'report.csv', description: 'Report' }]);

    // Posted early with a status line, then edited into the answer; one message, no duplicates.
    const posts = discord.callsMatching('POST', new RegExp(`^/channels/${asked.id}/messages$`));
    expect(posts).toHaveLength(1);
    expect(posts[0]!.body?.content).toMatch(/^-# ⏳ Thinking…$/);
    expect(
      discord.callsMatching('PATCH', new RegExp(`^/channels/${asked.id}/messages/${answer!.id}$`)).at(-1)!.kind,
    ).toBe('multipart');
    expect(discord.callsMatching('POST', /\/threads$/)).toHaveLength(1);
    expect(
      discord.callsMatching('POST', new RegExp(`^/channels/(${discord.world.general.id}|${asked.id})/typing$`)).length,
    ).toBeGreaterThan(0);
  });

  it('continues in that thread without a new mention, remembering the conversation', async () => {
    h.llm.script({ text: 'Tomorrow will be sunny.' });
    discord.say({ content: 'and tomorrow?', channelId: threadId });
    const answers = await finalMessages(discord, threadId, 2);
    expect(answers.at(-1)!.content).toBe('Tomorrow will be sunny.');
    const sent = sentMessages(h.llm.lastRequest('/chat/completions')!.body);
    expect(sent.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['weather in Oslo?', 'and tomorrow?']);
  });

  it('answers a DM in the DM, and a mention of the bot’s role like a mention', async () => {
    h.llm.script({ text: 'Hello Alice!' }, { text: 'Role mention heard.' });
    const dm = discord.dm('hi there');
    const [answer] = await finalMessages(discord, dm.channel_id);
    expect(answer!.content).toBe('Hello Alice!');
    expect(lastUserMessage()).toMatchObject({ content: 'hi there' });

    const byRole = discord.say({ content: 'are you there?', mentionRole: true });
    const [roleAnswer] = await finalMessages(discord, byRole.id);
    expect(roleAnswer!.content).toBe('Role mention heard.');
    expect(lastUserMessage()).toMatchObject({ content: 'are you there?' });
  });

  it('/ask defers, fills in the deferred reply; a suggestion button continues the same conversation', async () => {
    h.llm.script({ toolCalls: [{ name: 'weather_report', arguments: { city: 'Bergen' } }] }, { text: 'Bergen: rain.' });
    const ask = discord.command('ask', { question: 'weather in Bergen?' });
    const [original] = await interactionMessages(ask.payload.token);
    expect(ask.callback?.type).toBe(5); // DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE
    expect(original!.id).toBe(ask.originalId);
    expect(original!.content).toBe('Bergen: rain.');
    expect(original!.embeds[0]?.title).toBe('Weather in Bergen');
    expect(
      discord.callsMatching('PATCH', /\/messages\/@original$/).filter((c) => c.path.includes(ask.payload.token)).length,
    ).toBeGreaterThanOrEqual(2);

    const compare = buttonsOf(original!).find((b) => b.label === 'Compare cities')!;
    expect(compare.custom_id).toMatch(/^~/); // the value is too long for a custom_id: kept in the kv store
    h.llm.script({ text: 'Oslo is wetter than Bergen.' });
    const click = discord.click(original!.id, compare.custom_id);
    const [followUp] = await interactionMessages(click.payload.token);
    expect(click.callback?.type).toBe(6); // DEFERRED_UPDATE_MESSAGE
    expect(followUp!.content).toBe('Oslo is wetter than Bergen.');
    const sent = sentMessages(h.llm.lastRequest('/chat/completions')!.body);
    expect(sent.at(-1)).toMatchObject({ role: 'user', content: LONG_SUGGESTION });
    expect(sent.some((m) => m.content === 'weather in Bergen?')).toBe(true);
    // The clicked message's buttons are disabled, the chosen one green.
    const clicked = buttonsOf(discord.world.messages.get(original!.id)!);
    expect(clicked.every((b) => b.disabled)).toBe(true);
    expect(clicked.find((b) => b.label === 'Compare cities')!.style).toBe(ButtonStyle.Success);
  });

  it('show more and clear filters answer directly, without the model', async () => {
    const [answer] = await finalMessages(discord, threadId, 1);
    const more = buttonsOf(answer!).find((b) => b.label === 'Show more')!;
    expect(more.custom_id).toBe('test.more|2');
    const click = discord.click(answer!.id, more.custom_id);
    const [page] = await interactionMessages(click.payload.token);
    expect(page!.channel_id).toBe(threadId);
    expect(page!.content).toBe('Page 2 of the report.');
    expect(page!.embeds[0]).toMatchObject({ title: 'Day 2', description: '*Forecast*\nLight wind.' });
    expect(buttonsOf(page!)[0]!.custom_id).toBe('test.more|3');

    const clear = discord.click(page!.id, buttonsOf(page!)[0]!.custom_id);
    await interactionMessages(clear.payload.token);
    expect(h.llm.requestsTo('/chat/completions')).toHaveLength(0);
  });

  it('an expired button or an unknown command gets an ephemeral explanation', async () => {
    const [answer] = await finalMessages(discord, threadId, 1);
    const stale = discord.click(answer!.id, '~expiredref00');
    const [expired] = await interactionMessages(stale.payload.token);
    expect(expired!.flags! & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect(expired!.content).toMatch(/That button has expired/);

    const unknown = discord.command('weather', { city: 'Oslo' });
    await discord.waitFor(() => unknown.callback, 'the reply to an unknown command');
    expect(unknown.callback!.type).toBe(4); // CHANNEL_MESSAGE_WITH_SOURCE
    expect(discord.world.messages.get(unknown.originalId!)).toMatchObject({
      content: '⚠️ I don’t know /weather. Try /ask.',
      flags: MessageFlags.Ephemeral,
    });
  });

  it('/quote hands mode and request to the quote command', async () => {
    h.llm.script({ text: 'Quote: 2 widgets, 40 EUR.' });
    const quote = discord.command('quote', { mode: 'price', request: '2 widgets' });
    const [answer] = await interactionMessages(quote.payload.token);
    expect(answer!.content).toBe('Quote: 2 widgets, 40 EUR.');
    expect(recorded.commands.at(-1)).toEqual({ mode: 'price', request: '2 widgets' });
    expect(lastUserMessage()).toMatchObject({ content: 'Quote in price mode: 2 widgets' });
  });

  it('ignores other bots, its own messages, edits and channel chatter that does not mention it', async () => {
    const before = discord.calls.length;
    discord.say({ content: 'hello bot', mention: true, author: discord.world.people.otherBot });
    discord.say({ content: 'just chatting in general' });
    const mine = discord.world.createMessage({
      channelId: discord.world.general.id,
      author: discord.world.bot,
      content: `<@${discord.world.bot.id}> talking to myself`,
    });
    const edited = discord.say({ content: 'typo' });
    discord.world.editMessage(edited.id, {
      content: `<@${discord.world.bot.id}> now mentioning you`,
      mentions: [discord.world.bot],
    });
    await settle(discord);
    expect(discord.calls.slice(before)).toEqual([]);
    expect(discord.world.channels.has(mine.id)).toBe(false);
  });

  it('a failed turn: a mention gets a warning in place, /ask an ephemeral error and no half answer', async () => {
    h.llm.script({ status: 500 }, { status: 500 });
    const asked = discord.say({ content: 'will this fail?', mention: true });
    const [warning] = await finalMessages(discord, asked.id);
    expect(warning!.content).toMatch(/^⚠️ I can’t reach the language model/);

    const ask = discord.command('ask', { question: 'and this?' });
    const [ephemeral] = await interactionMessages(ask.payload.token);
    expect(ephemeral!.flags! & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect(ephemeral!.content).toMatch(/^⚠️ I can’t reach the language model/);
    expect(discord.world.messages.has(ask.originalId!)).toBe(false); // the deferred reply was removed
  });

  it('streams: progress and tool status edited in at most once a second, then the answer', async () => {
    const words = Array.from({ length: 24 }, (_, i) => `word${i}`).join(' ');
    h.llm.script({ toolCalls: [{ name: 'slow_report', arguments: {} }] }, { text: words, chunkDelayMs: 80 });
    const asked = discord.say({ content: 'the long report please', mention: true });
    const [answer] = await finalMessages(discord, asked.id);
    expect(answer!.content).toBe(words);

    const writes = [
      ...discord.callsMatching('POST', new RegExp(`^/channels/${asked.id}/messages$`)),
      ...discord.callsMatching('PATCH', new RegExp(`^/channels/${asked.id}/messages/`)),
    ];
    const contents = writes.map((w) => String(w.body?.content));
    expect(contents.some((c) => c.includes('-# ⏳ Compiling the long report…'))).toBe(true);
    expect(contents.some((c) => /^word0 word1.*\n-# ✓ long report compiled$/s.test(c) && !c.startsWith(words))).toBe(
      true,
    );
    // Discord allows 5 edits per 5 s in a channel; we keep to one a second (timers may fire a ms early).
    const gaps = writes.slice(1).map((w, i) => w.at - writes[i]!.at);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(990);
  });

  it('splits a reply too big for one message into marked continuations, each within Discord’s limits', async () => {
    const longText = Array.from(
      { length: 60 },
      (_, i) => `Sentence number ${i + 1} of a long answer that keeps going.`,
    ).join(' ');
    h.llm.script({ toolCalls: [{ name: 'big_reply', arguments: {} }] }, { text: longText });
    const asked = discord.say({ content: 'everything please', mention: true });
    await settle(discord, 1_500);
    const answers = discord.messagesIn(asked.id).filter(fromBot(discord));
    expect(answers.length).toBe(6); // the cap: the rest is left out, and the reply says so
    answers.slice(1).forEach((m, i) => expect(m.content).toMatch(new RegExp(`^-# ↳ continued \\(${i + 2}/6\\)`)));
    expect(answers.at(-1)!.content).toMatch(/Parts of this reply were shortened/);
    expect(answers.map((m) => m.content).join(' ')).toContain('Sentence number 60');
    expect(buttonsOf(answers.at(-1)!)).toHaveLength(25);
    for (const m of answers) {
      expect(m.content.length).toBeLessThanOrEqual(2_000);
      expect(m.embeds.length).toBeLessThanOrEqual(10);
    }
  });

  it('sent only requests Discord’s OpenAPI spec accepts: a mention answered with embeds, buttons and a file, /ask, a click', async () => {
    // Its own traffic, so it holds run alone (`-t`); after the tests above it checks theirs too.
    const before = discord.calls.length;
    h.llm.script(
      { toolCalls: [{ name: 'weather_report', arguments: { city: 'Oslo' } }] },
      { text: 'Rain today, sun tomorrow.' },
      { text: 'Bergen: rain.' },
    );
    const asked = discord.say({ content: 'weather in Oslo again?', mention: true });
    const [answer] = await finalMessages(discord, asked.id);
    expect(answer!.attachments).toHaveLength(1);
    const ask = discord.command('ask', { question: 'weather in Bergen?' });
    expect((await interactionMessages(ask.payload.token))[0]!.content).toBe('Bergen: rain.');
    const more = buttonsOf(answer!).find((b) => b.label === 'Show more')!;
    const click = discord.click(answer!.id, more.custom_id);
    expect((await interactionMessages(click.payload.token))[0]!.content).toBe('Page 2 of the report.');

    const own = discord.calls.slice(before);
    // The kinds of request it made: a thread from the message, message edits, interaction replies.
    for (const kind of [
      /^POST \/channels\/\d+\/messages\/\d+\/threads$/,
      /^PATCH \/channels\/\d+\/messages\/\d+$/,
      /^PATCH \/webhooks\/.*\/@original$/,
    ])
      expect(
        own.map((c) => `${c.method} ${c.path}`).some((line) => kind.test(line)),
        String(kind),
      ).toBe(true);
    expect(specProblems(discord.calls)).toEqual([]);
    const refused = discord.calls.filter((c) => c.status >= 400);
    expect(refused.map((c) => `${c.method} ${c.path} ${c.status}`)).toEqual([]);
  });
});
