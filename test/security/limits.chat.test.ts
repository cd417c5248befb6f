/**
 * Rate limits in the chats, through the real adapters and the fake platforms: a flood gets
 * exactly one notice (not one per message), and guests get the guest numbers: Slack guests
 * as users.info reports them (`is_restricted`), Discord users without a DISCORD_MEMBER_ROLES
 * role.
 */
import type { APIMessage } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createDiscordAdapter } from '../../src/adapters/discord/index.js';
import { defineTool } from '../../src/contract/tool.js';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.js';
import { user } from '../fakes/discord/payloads.js';
import { settle } from '../adapters/discord/helpers.js';
import { eventBody, mention, postEvent, sign, startSlackRig, type SlackRig } from '../adapters/slack/setup.js';
import { runAdapter, sentMessages, startHarness, type Harness } from '../helpers/harness.js';

const lookup = defineTool({
  name: 'lookup',
  title: 'Looking up',
  description: 'Looks something up.',
  input: z.object({ q: z.string() }),
  run: async (input) => ({ content: `found ${input.q}` }),
});
const env = { USER_MESSAGES_PER_MINUTE: '2', TOOL_RATE_LIMITS: JSON.stringify({ lookup: { guest: 1, member: 2 } }) };
const FLOOD_NOTICE = /faster than I can answer \(2 a minute\)/;
const toolMessage = (body: Record<string, unknown>) =>
  String(sentMessages(body).find((m) => m.role === 'tool')?.content);

describe('Slack', () => {
  let rig: SlackRig;
  beforeAll(async () => {
    rig = await startSlackRig({ mode: 'http', tools: [lookup], env });
  });
  afterAll(() => rig.close());

  it('a flood of mentions gets two answers and one notice, not one per message', async () => {
    rig.llm.script({ text: 'Answer one.' }, { text: 'Answer two.' });
    const posts = Array.from({ length: 5 }, (_, i) => mention(`question ${i}`, { user: 'U0FLOOD01' }));
    for (const post of posts) expect((await postEvent(rig.eventsUrl, eventBody(post), sign())).status).toBe(200);
    await rig.delivered(5);
    const texts = posts.flatMap((p) => rig.slack.threadReplies('C0CHAN1', p.ts).map((m) => m.text));
    expect(texts.filter((t) => /^Answer (one|two)\.$/.test(t))).toHaveLength(2);
    expect(texts.filter((t) => FLOOD_NOTICE.test(t))).toHaveLength(1);
    expect(texts).toHaveLength(3);
    expect(rig.llm.requestsTo('/chat/completions')).toHaveLength(2);
  });

  it('a Slack guest (is_restricted) gets the guest limit; a member the member limit', async () => {
    rig.slack.setUser('U0GUEST01', { is_restricted: true });
    const ask = async (user: string) => {
      rig.llm.reset();
      rig.llm.script({ toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }] }, { text: 'Looked.' });
      const before = rig.deliveredCount();
      expect((await postEvent(rig.eventsUrl, eventBody(mention('look it up', { user })), sign())).status).toBe(200);
      await rig.delivered(before + 1);
      return toolMessage(rig.llm.requestsTo('/chat/completions')[1]!.body);
    };
    expect(await ask('U0GUEST01')).toContain('found x');
    expect(await ask('U0GUEST01')).toMatch(/Rate limit reached: lookup allows 1 call per 5 hours for guests/);
    expect(rig.slack.callsTo('users.info').filter((c) => c.args.user === 'U0GUEST01')).toHaveLength(1); // cached
    expect(await ask('U0MEMBER1')).toContain('found x');
    expect(await ask('U0MEMBER1')).toContain('found x');
  });
});

describe('Discord', () => {
  let discord: FakeDiscord;
  let h: Harness;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    discord = await startFakeDiscord();
    h = await startHarness({
      tools: [lookup],
      env: { ...discord.env(), ...env, DISCORD_MEMBER_ROLES: discord.world.memberRoleId },
    });
    stop = await runAdapter(h.sb, createDiscordAdapter(h.sb)!);
  });
  afterAll(async () => {
    await stop?.();
    await h?.close();
    await discord?.close();
  });
  const botMessagesUnder = (roots: APIMessage[]) =>
    roots
      .flatMap((r) => [
        ...discord.messagesIn(r.id),
        ...discord.messagesIn(discord.world.general.id).filter((m) => m.message_reference?.message_id === r.id),
      ])
      .filter((m) => m.author.id === discord.world.bot.id);

  it('a flood of mentions gets two answers and one notice', async () => {
    h.llm.reset();
    h.llm.script({ text: 'Answer one.' }, { text: 'Answer two.' });
    const threadsBefore = discord.callsMatching('POST', /\/threads$/).length;
    const carol = user('carol');
    const roots = Array.from({ length: 4 }, (_, i) =>
      discord.say({ content: `question ${i}`, mention: true, author: carol }),
    );
    await discord.waitFor(
      () => botMessagesUnder(roots).filter((m) => !/^-# ⏳/.test(m.content)).length >= 3,
      'two answers and a notice',
      10_000,
    );
    await settle(discord);
    const contents = botMessagesUnder(roots).map((m) => m.content);
    expect(contents.filter((c) => /^Answer (one|two)\.$/.test(c))).toHaveLength(2);
    expect(contents.filter((c) => FLOOD_NOTICE.test(c))).toHaveLength(1);
    expect(contents).toHaveLength(3);
    // Threads for the two answers only: the notice is a reply to its message, a silent refusal opens nothing.
    expect(discord.callsMatching('POST', /\/threads$/).length - threadsBefore).toBe(2);
  });

  it('without a DISCORD_MEMBER_ROLES role a user is a guest (bob); with it a member (alice)', async () => {
    const ask = async (author: typeof discord.world.people.bob) => {
      h.llm.reset();
      h.llm.script({ toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }] }, { text: 'Looked.' });
      const root = discord.say({ content: 'look it up', mention: true, author });
      await discord.waitFor(() => botMessagesUnder([root]).some((m) => m.content === 'Looked.'), 'the answer', 10_000);
      return toolMessage(h.llm.requestsTo('/chat/completions')[1]!.body);
    };
    expect(await ask(discord.world.people.bob)).toContain('found x');
    expect(await ask(discord.world.people.bob)).toMatch(/lookup allows 1 call per 5 hours for guests/);
    expect(await ask(discord.world.people.alice)).toContain('found x');
    expect(await ask(discord.world.people.alice)).toContain('found x');
  });

  it('a slash command option named __proto__ or constructor is a plain ignored entry, not a crash', async () => {
    h.llm.reset();
    h.llm.script({ text: 'Hello there.' });
    // JSON.parse makes `__proto__` an own key, as a forged payload would carry it.
    const options = JSON.parse('{"question": "hi", "__proto__": "x", "constructor": "y"}') as Record<string, string>;
    const ask = discord.command('ask', options, { author: user('dave') });
    await discord.waitFor(
      () =>
        [...discord.world.interactions.get(ask.payload.token)!.messageIds]
          .map((id) => discord.world.messages.get(id))
          .find((m) => m?.content === 'Hello there.'),
      'the answer',
      10_000,
    );
    expect(sentMessages(h.llm.lastRequest('/chat/completions')!.body).at(-1)).toMatchObject({
      role: 'user',
      content: 'hi',
    });
  });
});
