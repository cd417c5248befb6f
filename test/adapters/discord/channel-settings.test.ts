/**
 * Settings per channel on Discord (issue 46, item 3): a real discord.js client against the fake
 * Discord (gateway and REST), and the interactions endpoint over HTTP. #general sits in a
 * category: the category's settings apply where the channel sets none, the channel's win. In
 * `reply_mode: all` a top-level post is answered without a mention (in a new thread, as a mention
 * is); `/switchboard settings` answers privately, over the gateway and over HTTP.
 */
import { Hono } from 'hono';
import { MessageFlags } from 'discord.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDiscordAdapter, type DiscordAdapter } from '../../../src/adapters/discord/index.js';
import { slashCommands } from '../../../src/adapters/discord/commands.js';
import { startHttpServer, type RunningServer } from '../../../src/adapters/http/server.js';
import { tenantsCommand } from '../../../src/data/cli/tenants.js';
import type { AdminDataPort } from '../../../src/data/index.js';
import { startFakeDiscord, type FakeDiscord } from '../../fakes/discord/index.js';
import { snowflake } from '../../fakes/discord/payloads.js';
import { openPgliteTestPort } from '../../helpers/db.js';
import { inboxIdle } from '../../helpers/inbox-idle.js';
import { runAdapter, sentMessages, sentToolNames, startHarness, type Harness } from '../../helpers/harness.js';
import { fromBot, interactionAnswer } from './helpers.js';

let discord: FakeDiscord;
let data: AdminDataPort;
let h: Harness;
let adapter: DiscordAdapter;
let server: RunningServer;
let stopAdapter: (() => Promise<void>) | undefined;
const CATEGORY = snowflake();

const cli = async (...argv: string[]) => {
  const lines: string[] = [];
  const code = await tenantsCommand(data, argv, (l) => lines.push(l));
  expect(code, lines.join('\n')).toBe(0);
};
const system = () =>
  sentMessages(h.llm.lastRequest('/chat/completions')!.body)
    .filter((m) => m.role === 'system')
    .map((m) => String(m.content))
    .join('\n');

beforeAll(async () => {
  [discord, data] = await Promise.all([startFakeDiscord(), openPgliteTestPort({ seedDemo: false })]);
  // #general is in a category (as Discord sends it in GUILD_CREATE).
  (discord.world.general as { parent_id?: string }).parent_id = CATEGORY;
  h = await startHarness({
    // The real tool families, web search among them: a channel's toolsets decide which are offered.
    env: { ...discord.env(), DISCORD_PUBLIC_KEY: discord.publicKey, TAVILY_API_KEY: 'tvly-test' },
    data,
  });
  // The category answers every message and speaks Danish; #general has its own model and instructions.
  await cli('channel', 'set', 'default', CATEGORY, '--reply-mode', 'all', '--language', 'da');
  await cli(
    'channel',
    'set',
    'default',
    discord.world.general.id,
    '--model',
    'gpt-general',
    '--instructions',
    'Keep it to one line.',
    '--toolsets',
    'web',
  );
  adapter = createDiscordAdapter(h.sb)!;
  server = await startHttpServer(new Hono(), 0, '127.0.0.1', adapter.routes);
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

describe('a channel and its category', () => {
  it('answers a top-level post without a mention, with the channel’s model and tools and the category’s language', async () => {
    h.llm.script({ text: 'Ja, kl. 9.' });
    const asked = discord.say({ content: 'is the office open tomorrow?' });
    // The first turn of the file warms up (a loaded machine takes seconds): a generous wait.
    const answer = await discord.waitFor(
      () =>
        discord
          .messagesIn(asked.id)
          .filter(fromBot(discord))
          .find((m) => m.content === 'Ja, kl. 9.'),
      'the answer',
      30_000,
    );
    expect(answer!.content).toBe('Ja, kl. 9.');
    const req = h.llm.lastRequest('/chat/completions')!;
    expect(req.body.model).toBe('gpt-general');
    expect(sentToolNames(req.body)).toEqual(['web_search']);
    expect(system()).toContain('Keep it to one line.');
    expect(system()).toContain('Answer in Danish');
    expect(sentMessages(req.body).at(-1)).toMatchObject({ role: 'user', content: 'is the office open tomorrow?' });
  });

  it('does not answer another bot’s post, nor a post in a channel on the default mode', async () => {
    discord.say({ content: 'build passed', author: discord.world.people.otherBot });
    const other = [...discord.world.channels.values()].find(
      (c) => c.id !== discord.world.general.id && 'name' in c && c.name === 'general',
    )!;
    discord.say({ content: 'anyone here?', channelId: other.id });
    await new Promise((r) => setTimeout(r, 300));
    await inboxIdle(h.sb.inbox);
    expect(h.llm.requestsTo('/chat/completions')).toHaveLength(0);
  });
});

describe('/switchboard settings', () => {
  const settingsPayload = (channelId = discord.world.general.id) => {
    const payload = discord.commandPayload('switchboard', {}, { channelId });
    (payload.data as { options?: unknown[] }).options = [{ type: 1, name: 'settings' }];
    return payload;
  };

  it('is one of the commands `npm run discord:deploy` registers, with its subcommand', () => {
    const command = slashCommands().find((c) => c.name === 'switchboard');
    expect(command?.options).toMatchObject([{ type: 1, name: 'settings' }]);
  });

  it('over the gateway: a private answer naming each value’s source, no turn', async () => {
    const record = discord.interact(settingsPayload());
    const [answer] = await interactionAnswer(discord, record.payload.token);
    expect((answer!.flags ?? 0) & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect(answer!.content).toMatch(/\*\*Model:\*\* gpt-general _\(this channel\)_/);
    expect(answer!.content).toMatch(/\*\*Tools:\*\* web _\(this channel\)_/);
    expect(answer!.content).toMatch(/\*\*Reply mode:\*\* every message _\(this channel\)_/);
    expect(answer!.content).toMatch(/\*\*Language:\*\* da _\(this channel\)_/);
    expect(h.llm.requestsTo('/chat/completions')).toHaveLength(0);
  });

  it('over the interactions endpoint: the same answer in the response itself', async () => {
    const res = await discord.overHttp(`${server.url}/discord/interactions`, settingsPayload());
    expect(res.status).toBe(200);
    const body = res.body as { type: number; data: { content: string; flags: number } };
    expect(body.type).toBe(4);
    expect(body.data.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect(body.data.content).toMatch(/\*\*Model:\*\* gpt-general _\(this channel\)_/);
    expect(h.llm.requestsTo('/chat/completions')).toHaveLength(0);
  });
});
