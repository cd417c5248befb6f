/**
 * Model text is data in Discord too: nobody is pinged (allowed_mentions empty) and a link the
 * model wrote gets no preview (SUPPRESS_EMBEDS) unless its host is on DISCORD_EMBED_DOMAINS.
 * The whole app, on the gateway (a mention answered in a thread, a slash command answered
 * through its webhook) and over HTTP interactions; assertions on what the fake Discord got.
 */
import { MessageFlags, type APIMessage } from 'discord.js';
import { Hono } from 'hono';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDiscordAdapter, type DiscordAdapter } from '../../../src/adapters/discord/index.js';
import { toDiscordOptions } from '../../../src/adapters/discord/sinks.js';
import { startHttpServer, type RunningServer } from '../../../src/adapters/http/server.js';
import type { AdminDataPort } from '../../../src/data/index.js';
import { startFakeDiscord, type FakeDiscord, type RecordedCall } from '../../fakes/discord/index.js';
import { openPgliteTestPort } from '../../helpers/db.js';
import { runAdapter, startHarness, type Harness } from '../../helpers/harness.js';
import { finalMessages, specProblems } from './helpers.js';

const ATTACK =
  'Heads up @everyone <@&123456789012345678> <@234567890123456789>. ' +
  'Read [the report](https://evil.example/r?d=secret) and ![chart](https://evil.example/p.png?d=secret).';
const ALLOWED = 'The guide: https://docs.example.com/guide';
const SUPPRESS = MessageFlags.SuppressEmbeds;

let discord: FakeDiscord;
let data: AdminDataPort;
let h: Harness;
let adapter: DiscordAdapter;
let server: RunningServer;
let stopAdapter: (() => Promise<void>) | undefined;
let url = '';

beforeAll(async () => {
  [discord, data] = await Promise.all([startFakeDiscord(), openPgliteTestPort({ seedDemo: false })]);
  h = await startHarness({
    env: { ...discord.env(), DISCORD_PUBLIC_KEY: discord.publicKey, DISCORD_EMBED_DOMAINS: 'docs.example.com' },
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
afterEach(() => expect(specProblems(discord.calls)).toEqual([]));

/** Every message the bot created or edited with this text in it. */
const writesWith = (text: string): RecordedCall[] =>
  discord.calls.filter(
    (c) =>
      (c.method === 'POST' || c.method === 'PATCH') &&
      /\/messages(\/[^/]+)?$|^\/webhooks\/[^/]+\/[^/]+$/.test(c.path) &&
      JSON.stringify(c.body ?? {}).includes(text),
  );

function expectSuppressed(calls: RecordedCall[]): void {
  expect(calls.length).toBeGreaterThan(0);
  for (const c of calls) {
    expect(Number(c.body?.flags ?? 0) & SUPPRESS, `${c.method} ${c.path}`).toBe(SUPPRESS);
    expect(c.body?.allowed_mentions, `${c.method} ${c.path}`).toMatchObject({ parse: [] });
  }
}

const interactionAnswer = (token: string) =>
  discord.waitFor(() => {
    const it = discord.world.interactions.get(token);
    const m = it?.originalId ? discord.world.messages.get(it.originalId) : undefined;
    return m && ((m.flags ?? 0) & MessageFlags.Loading) === 0 && m.content.includes('the report') && m;
  }, 'the interaction’s answer');

describe('model text in Discord', () => {
  it('gateway mention: the answer’s links get no preview and nobody is pinged', async () => {
    h.llm.script({ text: ATTACK });
    const asked = discord.say({ content: 'summarise the page', mention: true });
    const [answer] = await finalMessages(discord, asked.id);
    // The mentions are text too (a zero-width space after `@everyone`'s `@`), whatever allowed_mentions says.
    expect(answer!.content).toBe(
      'Heads up @\u200beveryone @&123456789012345678 @234567890123456789. ' +
        'Read [the report](https://evil.example/r?d=secret) and ![chart](https://evil.example/p.png?d=secret).',
    );
    expect((answer!.flags ?? 0) & SUPPRESS).toBe(SUPPRESS);
    expectSuppressed(writesWith('evil.example'));
    expect(answer!.mentions).toEqual([]);
    expect(answer!.mention_everyone).toBe(false);
  });

  it('gateway mention: a link on DISCORD_EMBED_DOMAINS keeps its preview', async () => {
    h.llm.script({ text: ALLOWED });
    const asked = discord.say({ content: 'where is the guide?', mention: true });
    const [answer] = await finalMessages(discord, asked.id);
    expect(answer!.content).toBe(ALLOWED);
    expect((answer!.flags ?? 0) & SUPPRESS).toBe(0);
    for (const c of writesWith('docs.example.com')) expect(Number(c.body?.flags ?? 0) & SUPPRESS).toBe(0);
  });

  it('gateway slash command: the deferred reply, filled in through the webhook, gets no preview', async () => {
    h.llm.script({ text: ATTACK });
    const ask = discord.command('ask', { question: 'summarise the page' });
    const answer: APIMessage = await interactionAnswer(ask.payload.token);
    expect((answer.flags ?? 0) & SUPPRESS).toBe(SUPPRESS);
    expectSuppressed(writesWith('evil.example').filter((c) => c.path.includes(ask.payload.token)));
  });

  it('HTTP interactions: the answer through the webhook gets no preview', async () => {
    h.llm.script({ text: ATTACK });
    const ask = await discord.overHttp(url, discord.commandPayload('ask', { question: 'summarise the page' }));
    expect(ask).toMatchObject({ status: 200, body: { type: 5 } });
    const answer = await interactionAnswer(ask.record.payload.token);
    expect((answer.flags ?? 0) & SUPPRESS).toBe(SUPPRESS);
    expectSuppressed(writesWith('evil.example').filter((c) => c.path.includes(ask.record.payload.token)));
  });
});

/** Issue 39: mentions that only allowed_mentions kept quiet, and masked links whose text names another site. */
const DECEPTIVE =
  'Pay at [https://good.example/pay](https://evil.example/pay) or [good.example](<https://evil.example/x>), ' +
  'says <@!234567890123456789> to @here.';
const expectNoDeception = (calls: RecordedCall[]) => {
  expect(calls.length).toBeGreaterThan(0);
  for (const c of calls) {
    const body = JSON.stringify(c.body ?? {});
    expect(body, `${c.method} ${c.path}`).not.toMatch(/\[(https:\/\/)?good\.example[^\]]*\]\(/);
    expect(body, `${c.method} ${c.path}`).not.toMatch(/<@!?\d+>|@here/);
  }
};

describe('model text in Discord: deceptive links and mentions', () => {
  it('gateway mention: a masked link naming another site shows its URL, and no mention looks live', async () => {
    h.llm.script({ text: DECEPTIVE });
    const asked = discord.say({ content: 'where do I pay?', mention: true });
    const [answer] = await finalMessages(discord, asked.id);
    expect(answer!.content).toBe(
      'Pay at <https://evil.example/pay> or <https://evil.example/x>, says @234567890123456789 to @\u200bhere.',
    );
    expectNoDeception(writesWith('evil.example'));
  });

  it('slash command and HTTP interactions: the same through the webhook', async () => {
    h.llm.script({ text: `the report: ${DECEPTIVE}` }, { text: `the report: ${DECEPTIVE}` });
    const ask = discord.command('ask', { question: 'where do I pay?' });
    await interactionAnswer(ask.payload.token);
    const overHttp = await discord.overHttp(url, discord.commandPayload('ask', { question: 'where do I pay?' }));
    await interactionAnswer(overHttp.record.payload.token);
    expectNoDeception(writesWith('evil.example').filter((c) => c.path.includes(ask.payload.token)));
    expectNoDeception(writesWith('evil.example').filter((c) => c.path.includes(overHttp.record.payload.token)));
  });
});

describe('toDiscordOptions', () => {
  const msg = (content: string) => ({ content, embeds: [], components: [], files: [] });
  it('suppresses embeds for a link off the list, never pings', () => {
    expect(toDiscordOptions(msg('see https://evil.example/x'), ['docs.example.com'])).toMatchObject({
      flags: SUPPRESS,
      allowedMentions: { parse: [] },
    });
    expect(toDiscordOptions(msg('see https://api.docs.example.com/x'), ['docs.example.com'])).not.toHaveProperty(
      'flags',
    );
    expect(toDiscordOptions(msg('no link at all'), [])).not.toHaveProperty('flags');
    expect(
      toDiscordOptions(msg('<https://evil.example/x> and https://docs.example.com'), ['docs.example.com']).flags,
    ).toBe(SUPPRESS);
  });
});
