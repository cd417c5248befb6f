/**
 * Discord's HTTP interactions (an "Interactions Endpoint URL"): the fake Discord POSTs each
 * interaction to /discord/interactions signed with the application's Ed25519 key and takes the
 * response as its callback. The bot runs without DISCORD_TOKEN: no gateway connection, answers
 * through the interaction's webhook token only.
 */
import { ButtonStyle, MessageFlags } from 'discord.js';
import { once } from 'node:events';
import { connect } from 'node:net';
import { Hono } from 'hono';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDiscordAdapter, type DiscordAdapter } from '../../../src/adapters/discord/index.js';
import { startHttpServer, type RunningServer } from '../../../src/adapters/http/server.js';
import { parseConfig } from '../../../src/config/index.js';
import type { AdminDataPort } from '../../../src/data/index.js';
import { startFakeDiscord, type FakeDiscord } from '../../fakes/discord/index.js';
import {
  messageCommandInteraction,
  modalSubmitInteraction,
  selectInteraction,
  snowflake,
} from '../../fakes/discord/payloads.js';
import { openPgliteTestPort } from '../../helpers/db.js';
import { runAdapter, sentMessages, startHarness, type Harness } from '../../helpers/harness.js';
import { inboxIdle } from '../../helpers/inbox-idle.js';
import { testTools } from '../../helpers/test-tools.js';
import { LONG_SUGGESTION, reportTool, testExtension } from './helpers.js';
import { buttonsOf, interactionAnswer } from './helpers.js';

let discord: FakeDiscord;
let data: AdminDataPort;
let h: Harness;
let adapter: DiscordAdapter;
let server: RunningServer;
let stopAdapter: (() => Promise<void>) | undefined;
let url = '';

beforeAll(async () => {
  [discord, data] = await Promise.all([startFakeDiscord(), openPgliteTestPort({ seedDemo: false })]);
  const { DISCORD_TOKEN: _token, ...env } = discord.env();
  h = await startHarness({
    tools: [...testTools, reportTool],
    extensions: [testExtension({ commands: [] })],
    env: { ...env, DISCORD_PUBLIC_KEY: discord.publicKey },
    data,
  });
  adapter = createDiscordAdapter(h.sb)!;
  server = await startHttpServer(new Hono(), 0, '127.0.0.1', adapter.routes);
  url = `${server.url}/discord/interactions`;
  stopAdapter = await runAdapter(h.sb, adapter);
});
afterAll(async () => {
  await stopAdapter?.();
  await server?.close();
  await h?.close();
  await data?.close();
  await discord?.close();
});
beforeEach(() => h.llm.reset());

const answered = (token: string, count = 1) => interactionAnswer(discord, token, count);

describe('the interactions endpoint', () => {
  it('opens no gateway connection and answers PING with PONG, as Discord checks when the URL is saved', async () => {
    expect(discord.gateway.sessions).toHaveLength(0);
    expect(await adapter.ready?.()).toBe(true);
    const ping = {
      id: '1234567890123456789',
      application_id: discord.world.applicationId,
      type: 1,
      token: 'ping-token',
      version: 1,
    };
    const res = await discord.overHttp(url, ping as unknown as Parameters<FakeDiscord['overHttp']>[1]);
    expect(res).toMatchObject({ status: 200, body: { type: 1 } });
  });

  it('refuses forged, missing and stale signatures with 401, and records nothing', async () => {
    for (const signature of ['forged', 'missing', 'stale'] as const) {
      const res = await discord.overHttp(
        url,
        discord.commandPayload('ask', { question: `forged ${signature}` }),
        signature,
      );
      expect(res.status, signature).toBe(401);
      expect(res.callbackStatus).toBeUndefined();
    }
    // A forged PING is refused too: the portal refuses to save a URL that accepts it.
    const ping = {
      id: '1234567890123456780',
      application_id: discord.world.applicationId,
      type: 1,
      token: 'ping-token-2',
      version: 1,
    };
    expect(
      (await discord.overHttp(url, ping as unknown as Parameters<FakeDiscord['overHttp']>[1], 'forged')).status,
    ).toBe(401);
    // Refused before the inbox: nothing recorded, so once the inbox is idle nothing can still reach the model.
    await inboxIdle(h.sb.inbox);
    expect(h.llm.requestsTo('/chat/completions')).toHaveLength(0);
  });

  it('/ask is deferred in the HTTP response and answered through the webhook; a button click continues the conversation', async () => {
    h.llm.script({ toolCalls: [{ name: 'weather_report', arguments: { city: 'Bergen' } }] }, { text: 'Bergen: rain.' });
    const ask = await discord.overHttp(url, discord.commandPayload('ask', { question: 'weather in Bergen?' }));
    expect(ask).toMatchObject({ status: 200, body: { type: 5 }, callbackStatus: 204 }); // DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE, within 3 s
    const [original] = await answered(ask.record.payload.token);
    expect(original!.content).toBe('Bergen: rain.');
    expect(original!.embeds[0]?.title).toBe('Weather in Bergen');
    // Only the interaction's webhook was used: no bot-token call reached Discord.
    expect(discord.calls.filter((c) => !c.path.startsWith('/webhooks/'))).toEqual([]);

    const compare = buttonsOf(original!).find((b) => b.label === 'Compare cities')!;
    h.llm.script({ text: 'Oslo is wetter than Bergen.' });
    const click = await discord.overHttp(url, discord.clickPayload(original!.id, compare.custom_id));
    // One response acknowledges the click and disables the buttons, the chosen one green.
    expect(click).toMatchObject({ status: 200, body: { type: 7 }, callbackStatus: 204 });
    const clicked = buttonsOf(discord.world.messages.get(original!.id)!);
    expect(clicked.every((b) => b.disabled)).toBe(true);
    expect(clicked.find((b) => b.label === 'Compare cities')!.style).toBe(ButtonStyle.Success);
    const [followUp] = await answered(click.record.payload.token);
    expect(followUp!.content).toBe('Oslo is wetter than Bergen.');
    const sent = sentMessages(h.llm.lastRequest('/chat/completions')!.body);
    expect(sent.at(-1)).toMatchObject({ role: 'user', content: LONG_SUGGESTION });
    expect(sent.some((m) => m.content === 'weather in Bergen?')).toBe(true);
  });

  it('an unknown command and an expired button are answered privately at once, with nothing recorded', async () => {
    const unknown = await discord.overHttp(url, discord.commandPayload('launch', {}));
    expect(unknown).toMatchObject({ status: 200, body: { type: 4, data: { flags: MessageFlags.Ephemeral } } });
    expect((unknown.body as { data: { content: string } }).data.content).toMatch(/don’t know \/launch/);

    const dm = discord.world.createMessage(
      { channelId: discord.world.general.id, author: discord.world.bot, content: 'old answer' },
      { dispatch: false },
    );
    const expired = await discord.overHttp(url, discord.clickPayload(dm.id, '~no-such-ref'));
    expect(expired).toMatchObject({ status: 200, body: { type: 4 } });
    expect((expired.body as { data: { content: string } }).data.content).toMatch(/expired/);
    expect(h.llm.requestsTo('/chat/completions')).toHaveLength(0);
  });

  it('a button whose action nothing answers any more is not painted as chosen: a private note, nothing recorded', async () => {
    const old = discord.world.createMessage(
      {
        channelId: discord.world.general.id,
        author: discord.world.bot,
        content: 'an answer from an older version',
        components: [
          {
            type: 1,
            components: [{ type: 2, style: ButtonStyle.Secondary, label: 'Old', custom_id: 'retired.action' }],
          },
        ],
      },
      { dispatch: false },
    );
    const res = await discord.overHttp(url, discord.clickPayload(old.id, 'retired.action'));
    expect(res).toMatchObject({ status: 200, body: { type: 4, data: { flags: MessageFlags.Ephemeral } } });
    expect((res.body as { data: { content: string } }).data.content).toMatch(/expired/);
    expect(h.llm.requestsTo('/chat/completions')).toHaveLength(0);
  });

  it('autocomplete gets an autocomplete result (type 8, no choices), the only answer Discord takes for it', async () => {
    const payload = discord.commandPayload('ask', { question: 'wea' }) as unknown as {
      type: number;
      data: { options: { focused?: boolean }[] };
    };
    payload.type = 4;
    payload.data.options[0]!.focused = true;
    const res = await discord.overHttp(url, payload as unknown as Parameters<FakeDiscord['overHttp']>[1]);
    expect(res).toMatchObject({ status: 200, body: { type: 8, data: { choices: [] } } });
    expect(h.llm.requestsTo('/chat/completions')).toHaveLength(0);
  });

  it('a context-menu command, a modal submit and a select menu not ours get the private notes the gateway gives', async () => {
    const { world } = discord;
    const base = {
      applicationId: world.applicationId,
      channel: world.general,
      guildId: world.guildOf(world.general.id),
      user: world.people.alice,
    };
    const target = world.createMessage(
      { channelId: world.general.id, author: world.people.alice, content: 'pick one' },
      { dispatch: false },
    );
    const noteOf = async (payload: Parameters<FakeDiscord['overHttp']>[1]) => {
      const res = await discord.overHttp(url, payload);
      expect(res).toMatchObject({ status: 200, body: { type: 4, data: { flags: MessageFlags.Ephemeral } } });
      return (res.body as { data: { content: string } }).data.content;
    };
    // The same texts as test/adapters/discord/other-interactions.test.ts asserts over the gateway.
    expect(
      await noteOf(messageCommandInteraction({ ...base, commandId: snowflake(), name: 'Summarize', target })),
    ).toBe('⚠️ Only slash commands are supported here.');
    expect(await noteOf(modalSubmitInteraction({ ...base, customId: 'feedback-modal' }))).toBe(
      '⚠️ This kind of interaction is not supported.',
    );
    expect(
      await noteOf(
        selectInteraction({ ...base, message: structuredClone(target), customId: 'other-app:pick', values: ['a'] }),
      ),
    ).toBe('⚠️ That select menu isn’t one of mine.');
    expect(h.llm.requestsTo('/chat/completions')).toHaveLength(0);
  });

  it('a body cut off by the client is logged as unreadable, not reported as too large', async () => {
    const { port } = new URL(url);
    const socket = connect(Number(port), '127.0.0.1');
    await once(socket, 'connect');
    socket.write(
      'POST /discord/interactions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n' +
        'content-length: 500\r\n\r\n{"type":',
    );
    socket.destroy();
    const line = await discord.waitFor(
      () => h.logs.lines.find((l) => l.msg === 'discord interaction body could not be read'),
      'the unreadable-body warning',
    );
    expect(line).toMatchObject({ level: 40 });
  });

  it('a slash command with any one field dropped gets no 5xx, and the next /ask is answered', async () => {
    const base = discord.commandPayload('ask', { question: 'variant?' }) as unknown as Record<string, unknown>;
    const keys = Object.keys(base);
    // Variants that are still a valid /ask run a turn: script more answers than there are variants.
    h.llm.script(...keys.map(() => ({ text: 'A variant answer.' })));
    const results = [];
    for (const [i, key] of keys.entries()) {
      const { [key]: _dropped, ...rest } = structuredClone(base);
      const variant = {
        ...rest,
        id: `${BigInt(String(base.id)) + BigInt(i + 1)}`,
        token: `sweep-${i}-${String(base.token)}`,
      };
      results.push(await discord.overHttp(url, variant as unknown as Parameters<FakeDiscord['overHttp']>[1]));
    }
    expect(results.filter((r) => r.status >= 500).map((r) => r.status)).toEqual([]);
    // Every variant that became a turn has run before the fake model is reset.
    await inboxIdle(h.sb.inbox);
    h.llm.allowUnused();
    h.llm.reset();
    h.llm.script({ text: 'Still answering.' });
    const ask = await discord.overHttp(url, discord.commandPayload('ask', { question: 'still there?' }));
    expect(ask.status).toBe(200);
    await answered(ask.record.payload.token);
    expect([...ask.record.messageIds].map((id) => discord.world.messages.get(id)?.content)).toContain(
      'Still answering.',
    );
  });

  it('a payload of an unexpected shape is a 400, not a crash', async () => {
    const res = await discord.overHttp(url, { id: 'not-a-snowflake', type: 2 } as unknown as Parameters<
      FakeDiscord['overHttp']
    >[1]);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).not.toMatch(/at \w+ \(/); // no stack trace
  });
});

describe('configuration', () => {
  it('DISCORD_PUBLIC_KEY must be 64 hex characters and comes with DISCORD_APPLICATION_ID', () => {
    const base = { OPENAI_API_KEY: 'sk-x' };
    expect(() =>
      parseConfig({ ...base, DISCORD_PUBLIC_KEY: 'abc', DISCORD_APPLICATION_ID: '123456789012345678' }),
    ).toThrow(/DISCORD_PUBLIC_KEY.*64 hexadecimal/);
    expect(() => parseConfig({ ...base, DISCORD_PUBLIC_KEY: 'a'.repeat(64) })).toThrow(/DISCORD_APPLICATION_ID/);
    expect(
      parseConfig({ ...base, DISCORD_PUBLIC_KEY: 'a'.repeat(64), DISCORD_APPLICATION_ID: '123456789012345678' })
        .DISCORD_PUBLIC_KEY,
    ).toBe('a'.repeat(64));
  });
});
