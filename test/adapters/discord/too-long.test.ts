/**
 * A Discord message or slash command over MAX_MESSAGE_CHARS is refused where it comes in: a
 * reply to the message (a command's privately), a structured log line, and no turn (the strict
 * fake LLM is scripted with nothing). Through a real discord.js client and the fake gateway.
 */
import { MessageFlags } from 'discord.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDiscordAdapter } from '../../../src/adapters/discord/index.js';
import { MAX_MESSAGE_CHARS } from '../../../src/contract/turn.js';
import type { AdminDataPort } from '../../../src/data/index.js';
import { startFakeDiscord, type FakeDiscord } from '../../fakes/discord/index.js';
import { openPgliteTestPort } from '../../helpers/db.js';
import { runAdapter, startHarness, type Harness } from '../../helpers/harness.js';
import { fromBot, settle } from './helpers.js';

let discord: FakeDiscord;
let data: AdminDataPort;
let h: Harness;
let stopAdapter: (() => Promise<void>) | undefined;

beforeAll(async () => {
  [discord, data] = await Promise.all([startFakeDiscord(), openPgliteTestPort({ seedDemo: false })]);
  h = await startHarness({ env: discord.env(), data });
  stopAdapter = await runAdapter(h.sb, createDiscordAdapter(h.sb)!);
});
afterAll(async () => {
  await stopAdapter?.();
  await h?.close();
  await data?.close();
  await discord?.close();
});
beforeEach(() => h.llm.reset());

const refusals = () => h.logs.lines.filter((l) => l.msg === 'discord message over the length limit refused');

describe('Discord messages over the length limit', () => {
  it('replies to a long mention with a notice, without running a turn', async () => {
    const asked = discord.say({ content: '🙂'.repeat(MAX_MESSAGE_CHARS / 2 + 10), mention: true });
    const chars = asked.content.length;
    const [notice] = await discord.waitFor(() => {
      const replies = discord
        .messagesIn(discord.world.general.id)
        .filter(fromBot(discord))
        .filter((m) => m.message_reference?.message_id === asked.id);
      return replies.length > 0 && replies;
    }, 'the notice');
    expect(notice!.content).toContain(`That message is ${chars.toLocaleString('en-US')} characters long`);
    expect(notice!.content).toContain('at most 20,000');
    await settle(discord);
    // No thread was started for it, and the model was never asked.
    expect(discord.world.channels.has(asked.id)).toBe(false);
    expect(h.llm.requestsTo('/chat/completions')).toHaveLength(0);
    expect(refusals()).toHaveLength(1);
    expect(refusals()[0]).toMatchObject({ level: 30, chars, limit: MAX_MESSAGE_CHARS, messageId: asked.id });
  });

  it('answers a slash command whose options are over the limit privately', async () => {
    const ask = discord.command('ask', { question: 'x'.repeat(MAX_MESSAGE_CHARS + 1) });
    await discord.waitFor(() => ask.callback, 'the reply to the command');
    expect(ask.callback!.type).toBe(4); // CHANNEL_MESSAGE_WITH_SOURCE, not a deferred "thinking…"
    expect(discord.world.messages.get(ask.originalId!)).toMatchObject({
      content: expect.stringContaining('That message is 20,001 characters long'),
      flags: MessageFlags.Ephemeral,
    });
    await settle(discord);
    expect(h.llm.requestsTo('/chat/completions')).toHaveLength(0);
    expect(refusals().at(-1)).toMatchObject({ chars: MAX_MESSAGE_CHARS + 1, command: 'ask' });
  });
});
