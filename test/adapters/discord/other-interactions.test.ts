/**
 * Interactions Switchboard takes no action on, over the gateway: each gets the answer the HTTP
 * interactions endpoint gives (`http-interaction.ts`), so Discord never shows "This interaction
 * failed": an autocomplete gets no suggestions, a context-menu command and a modal submit a
 * private note, a select menu that is not ours a private note naming it.
 */
import { MessageFlags } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDiscordAdapter } from '../../../src/adapters/discord/index.js';
import { startFakeDiscord, type FakeDiscord } from '../../fakes/discord/index.js';
import {
  autocompleteInteraction,
  messageCommandInteraction,
  modalSubmitInteraction,
  selectInteraction,
  snowflake,
} from '../../fakes/discord/payloads.js';
import { runAdapter, startHarness, type Harness } from '../../helpers/harness.js';

let discord: FakeDiscord;
let h: Harness;
let stopAdapter: (() => Promise<void>) | undefined;

beforeAll(async () => {
  discord = await startFakeDiscord();
  h = await startHarness({ env: discord.env() });
  stopAdapter = await runAdapter(h.sb, createDiscordAdapter(h.sb)!);
});
afterAll(async () => {
  await stopAdapter?.();
  await h?.close();
  await discord?.close();
});

const base = () => {
  const { world } = discord;
  return {
    applicationId: world.applicationId,
    channel: world.general,
    guildId: world.guildOf(world.general.id),
    user: world.people.alice,
  };
};
const privateNote = async (token: string) => {
  const it = discord.world.interactions.get(token)!;
  await discord.waitFor(() => it.callback, 'the interaction’s answer');
  expect(it.callback!.type).toBe(4); // CHANNEL_MESSAGE_WITH_SOURCE
  const note = discord.world.messages.get(it.originalId!)!;
  expect(note.flags! & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
  return note.content;
};

describe('Discord gateway: interactions we take no action on are answered as over HTTP', () => {
  it('an autocomplete gets an empty list of suggestions', async () => {
    const sent = discord.interact(autocompleteInteraction({ ...base(), commandId: snowflake(), name: 'ask' }));
    await discord.waitFor(() => sent.callback, 'the autocomplete answer');
    expect(sent.callback!.type).toBe(8); // APPLICATION_COMMAND_AUTOCOMPLETE_RESULT
    expect(sent.choices).toEqual([]);
  });

  it('a message context-menu command gets a private note', async () => {
    const target = discord.say({ content: 'some chatter' });
    const sent = discord.interact(
      messageCommandInteraction({ ...base(), commandId: snowflake(), name: 'Summarize', target }),
    );
    expect(await privateNote(sent.payload.token)).toBe('⚠️ Only slash commands are supported here.');
  });

  it('a modal submit gets a private note', async () => {
    const sent = discord.interact(modalSubmitInteraction({ ...base(), customId: 'feedback-modal' }));
    expect(await privateNote(sent.payload.token)).toBe('⚠️ This kind of interaction is not supported.');
  });

  it('a select menu that is not ours gets a private note naming it', async () => {
    const message = discord.say({ content: 'pick one' });
    const sent = discord.interact(
      selectInteraction({ ...base(), message: structuredClone(message), customId: 'other-app:pick', values: ['a'] }),
    );
    expect(await privateNote(sent.payload.token)).toBe('⚠️ That select menu isn’t one of mine.');
  });
});
