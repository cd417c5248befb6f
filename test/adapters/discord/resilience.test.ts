/**
 * The Discord adapter when things go wrong or get busy: a slow model (deferral still within
 * 3 s), a dropped gateway connection and a RECONNECT (resume, nothing lost, nothing twice),
 * two gateway connections at once (exactly one answer), strict tenants, and login failures.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDiscordAdapter, type DiscordAdapter } from '../../../src/adapters/discord/index.js';
import { importFile } from '../../../src/data/import/run.js';
import type { AdminDataPort } from '../../../src/data/index.js';
import { startFakeDiscord, type FakeDiscord } from '../../fakes/discord/index.js';
import { startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../../fakes/openai-server.js';
import { openPgliteTestPort } from '../../helpers/db.js';
import { sentMessages, startHarness, type Harness } from '../../helpers/harness.js';
import { finalMessages, fromBot, reportTool, settle, specProblems, testExtension } from './helpers.js';

const REDIS_URL = process.env.TEST_REDIS_URL?.trim() || undefined;

let data: AdminDataPort;
let llm: FakeOpenAI;
const cleanup: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  [data, llm] = await Promise.all([openPgliteTestPort({ seedDemo: false }), startFakeOpenAI()]);
});
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn().catch(() => {});
  await data?.close();
  await llm?.close();
});

/** A Switchboard (sharing this file's database and model) with the Discord adapter started. */
async function bot(
  discord: FakeDiscord,
  env: Record<string, string> = {},
): Promise<{ h: Harness; adapter: DiscordAdapter }> {
  const h = await startHarness({
    env: { ...discord.env(), ...env },
    data,
    llm,
    tools: [reportTool],
    extensions: [testExtension({ commands: [] })],
  });
  const adapter = createDiscordAdapter(h.sb)!;
  cleanup.push(
    () => h.close(),
    async () => {
      await adapter.stop();
      await h.sb.inbox.stop(2_000);
      await adapter.close?.();
    },
  );
  await adapter.start();
  await h.sb.inbox.start();
  return { h, adapter };
}

async function fake(options: Parameters<typeof startFakeDiscord>[0] = {}): Promise<FakeDiscord> {
  const discord = await startFakeDiscord(options);
  cleanup.push(() => discord.close());
  return discord;
}

describe('gateway and timing', () => {
  let discord: FakeDiscord;
  beforeAll(async () => {
    discord = await fake({ heartbeatIntervalMs: 250 });
    await bot(discord);
  });

  it('heartbeats are acknowledged and dispatches carry rising sequence numbers', async () => {
    await discord.waitFor(() => (discord.gateway.received.Heartbeat ?? 0) >= 2, 'two heartbeats');
    const seqs = discord.gateway.sessions[0]!.events.map((e) => e.s);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(discord.gateway.sessions[0]!.events.slice(0, 3).map((e) => e.t)).toEqual([
      'READY',
      'GUILD_CREATE',
      'GUILD_CREATE',
    ]);
  });

  it('acknowledges an interaction within Discord’s 3 s even when the model takes longer', async () => {
    llm.reset();
    llm.script({ text: 'Worth the wait.', delayMs: 3_300 });
    const ask = discord.command('ask', { question: 'slow one?' });
    await discord.waitFor(
      () => ask.originalId && discord.world.messages.get(ask.originalId)?.content === 'Worth the wait.',
      'the slow answer',
    );
    expect(ask.callback!.type).toBe(5);
    // The fake refuses a callback after 3 s (10062 Unknown interaction), as Discord does.
    expect(discord.calls.filter((c) => c.path.startsWith('/interactions/')).map((c) => c.status)).toEqual([204]);
  });

  it('a dropped connection mid-conversation resumes and loses no message; events sent meanwhile are replayed', async () => {
    llm.reset();
    // Answers name their question: the replayed message and command run concurrently.
    const answer =
      (delayMs = 0) =>
      (req: RecordedRequest) => ({ text: `Answer to ${String(sentMessages(req.body).at(-1)?.content)}.`, delayMs });
    llm.script(answer(600), answer(), answer());
    const asked = discord.say({ content: 'first question', mention: true });
    await discord.waitFor(() => discord.messagesIn(asked.id).length > 0, 'the progress message');
    discord.gateway.dropConnections();
    // Sent while the bot is disconnected: the gateway keeps them for the resume.
    discord.say({ content: 'second question', channelId: asked.id });
    const ask = discord.command('ask', { question: 'third question' });
    await discord.gateway.waitForReady();
    const answers = await finalMessages(discord, asked.id, 2);
    expect(answers.map((m) => m.content)).toEqual(['Answer to first question.', 'Answer to second question.']);
    await discord.waitFor(
      () => ask.originalId && discord.world.messages.get(ask.originalId)?.content === 'Answer to third question.',
      'the /ask answer',
    );
    const session = discord.gateway.sessions[0]!;
    // Resumed, never identified anew (a stall on a loaded machine may cost a second resume).
    expect(session.identifies).toBe(1);
    expect(session.resumes).toBeGreaterThanOrEqual(1);
    expect(session.events.at(-1)?.t).not.toBe('READY');
  });

  it('after RECONNECT, an event delivered again is answered once', async () => {
    llm.reset();
    llm.script({ text: 'Only once.' }); // strict: a second answer would be a call past the script
    const asked = discord.say({ content: 'once please', mention: true });
    await finalMessages(discord, asked.id);
    discord.gateway.requestReconnect({ redeliver: 12 });
    await discord.waitFor(
      () => discord.gateway.sessions[0]!.resumes === 2 && discord.gateway.sessions[0]!.socket,
      'the second resume',
    );
    await settle(discord, 600);
    expect(
      discord
        .messagesIn(asked.id)
        .filter(fromBot(discord))
        .map((m) => m.content),
    ).toEqual(['Only once.']);
    expect(llm.requestsTo('/chat/completions')).toHaveLength(1);
    expect(specProblems(discord.calls)).toEqual([]);
  });
});

describe('gateway events Discord may send without fields discord.js expects', () => {
  let discord: FakeDiscord;
  beforeAll(async () => {
    discord = await fake();
    await bot(discord);
  });

  const answered = (record: ReturnType<FakeDiscord['command']>, text: string) =>
    discord.waitFor(
      () => record.originalId && discord.world.messages.get(record.originalId)?.content === text,
      `the answer “${text}”`,
    );

  it('answers a slash command without entitlements and with channel_id but no channel object', async () => {
    llm.reset();
    llm.script({ text: 'Answered anyway.' });
    const payload = discord.commandPayload('ask', { question: 'docs-shaped payload?' }) as unknown as Record<
      string,
      unknown
    >;
    delete payload.entitlements;
    delete payload.channel;
    expect(payload.channel_id).toEqual(expect.any(String));
    const ask = discord.interact(payload as unknown as Parameters<FakeDiscord['interact']>[0]);
    await answered(ask, 'Answered anyway.');
    expect(llm.remaining()).toBe(0);
  });

  it('drops an interaction discord.js cannot build and answers the next one (the process keeps running)', async () => {
    llm.reset();
    llm.script({ text: 'Still here.' });
    const broken = discord.commandPayload('ask', { question: 'broken' }) as unknown as Record<string, unknown>;
    delete broken.data;
    discord.interact(broken as unknown as Parameters<FakeDiscord['interact']>[0]);
    const ask = discord.command('ask', { question: 'next one' });
    await answered(ask, 'Still here.');
    expect(llm.requests.map((r) => sentMessages(r.body).at(-1)?.content)).toEqual(['next one']);
  });
});

describe('gateway events with one field dropped at a time', () => {
  // A slash command's INTERACTION_CREATE and a mention's MESSAGE_CREATE, each field dropped in
  // turn; then an ordinary /ask must still be answered. Variants that are still a valid question
  // reach the model: this bot has its own lenient fake model for them.
  it('keeps answering after every malformed variant (the process survives them all)', async () => {
    const lenient = await startFakeOpenAI({ lenient: true });
    cleanup.push(() => lenient.close());
    const discord = await fake();
    const h = await startHarness({
      env: discord.env(),
      data,
      llm: lenient,
      tools: [reportTool],
      extensions: [testExtension({ commands: [] })],
    });
    const adapter = createDiscordAdapter(h.sb)!;
    cleanup.push(
      () => h.close(),
      async () => (await adapter.stop(), await h.sb.inbox.stop(2_000), await adapter.close?.()),
    );
    await adapter.start();
    await h.sb.inbox.start();

    const command = discord.commandPayload('ask', { question: 'variant?' }) as unknown as Record<string, unknown>;
    let variants = 0;
    for (const key of Object.keys(command)) {
      const { [key]: _dropped, ...rest } = structuredClone(command);
      discord.interact({ ...rest, id: snowflakeLike(), token: `t-${variants}` } as unknown as Parameters<
        FakeDiscord['interact']
      >[0]);
      variants++;
    }
    const said = discord.world.createMessage(
      {
        channelId: discord.world.general.id,
        author: discord.world.people.alice,
        content: `<@${discord.world.bot.id}> hi`,
      },
      { dispatch: false },
    ) as unknown as Record<string, unknown>;
    const message: Record<string, unknown> = { ...said, guild_id: discord.world.guildOf(discord.world.general.id) };
    for (const key of Object.keys(message)) {
      const { [key]: _dropped, ...rest } = message;
      discord.gateway.dispatch('MESSAGE_CREATE', { ...rest, id: snowflakeLike() });
      variants++;
    }
    expect(variants).toBeGreaterThan(20);
    await settle(discord);
    lenient.script({ text: 'Still here after all of them.' });
    const ask = discord.command('ask', { question: 'are you alive?' });
    await discord.waitFor(
      () => ask.originalId && discord.world.messages.get(ask.originalId)?.content === 'Still here after all of them.',
      'the answer after the malformed variants',
      30_000,
    );
  }, 120_000);
});

let snowflakeCounter = 0n;
/** A fresh id in Discord's snowflake form, so no variant is deduplicated against another. */
function snowflakeLike(): string {
  return String(((BigInt(Date.now()) - 1420070400000n) << 22n) + ++snowflakeCounter);
}

describe('two gateway connections receiving the same events', () => {
  const setups = [
    { name: 'two adapters in one process (memory kv)', redis: false },
    { name: 'two replicas sharing Redis', redis: true },
  ];
  for (const setup of setups) {
    it(`answers each message, command and click once: ${setup.name}`, async (ctx) => {
      if (setup.redis && !REDIS_URL) {
        console.warn('TEST_REDIS_URL is not set: skipping the two-replica Discord test');
        ctx.skip();
      }
      const discord = await fake();
      const first = await bot(discord, setup.redis ? { REDIS_URL: REDIS_URL! } : {});
      if (setup.redis) await bot(discord, { REDIS_URL: REDIS_URL! });
      else {
        // Shares the first one's inbox (already started): its delivery function now answers for both.
        const second = createDiscordAdapter(first.h.sb)!;
        cleanup.push(async () => (await second.stop(), await second.close?.()));
        await second.start();
      }
      await discord.gateway.waitForReady(2);
      llm.reset();
      // The mention and the command run concurrently: answers depend on the request, not the order.
      const respond = (req: RecordedRequest) => {
        const last = sentMessages(req.body).at(-1);
        if (last?.role === 'tool') return { text: 'One command answer.' };
        return last?.content === 'and you?'
          ? { toolCalls: [{ name: 'weather_report', arguments: { city: 'Oslo' } }] }
          : { text: 'One answer.' };
      };
      // The mention, then /ask's tool call and its answer; the click needs no model.
      llm.script(respond, respond, respond);

      const asked = discord.say({ content: 'hello both', mention: true });
      const ask = discord.command('ask', { question: 'and you?' });
      await finalMessages(discord, asked.id);
      const answer = await discord.waitFor(
        () =>
          ask.originalId &&
          discord.world.messages.get(ask.originalId)?.content === 'One command answer.' &&
          discord.world.messages.get(ask.originalId),
        'the /ask answer',
      );
      const clear = (answer.components![0] as { components: { label: string; custom_id: string }[] }).components.find(
        (b) => b.label === 'Clear filters',
      )!;
      const click = discord.click(answer.id, clear.custom_id);
      await discord.waitFor(
        () => [...click.messageIds].some((id) => discord.world.messages.get(id)?.content === 'Filters cleared.'),
        'the click answer',
      );
      await settle(discord);
      expect(discord.messagesIn(asked.id).filter(fromBot(discord))).toHaveLength(1);
      expect(discord.callsMatching('POST', /\/threads$/)).toHaveLength(1);
      expect(discord.calls.filter((c) => c.path.startsWith('/interactions/')).map((c) => c.status)).toEqual([204, 204]);
      expect(discord.callsMatching('POST', new RegExp(`^/webhooks/.+/${click.payload.token}$`))).toHaveLength(1);
      expect(llm.requestsTo('/chat/completions')).toHaveLength(3);
      expect(specProblems(discord.calls)).toEqual([]);
    });
  }
});

describe('tenants', () => {
  // DMs have no server: the adapter sends them as workspace 'default'. Under strict mode the
  // core refuses that workspace too (src/agent/agent.ts), so DMs are left out here.
  it('TENANT_MODE=strict: a mapped server is answered; another gets a clear “not set up”', async () => {
    const discord = await fake();
    const dir = await mkdtemp(join(tmpdir(), 'sb-discord-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const mapping = join(dir, 'workspaces.csv');
    await writeFile(mapping, `platform,workspace_id\ndiscord,${discord.world.guildId}\n`);
    expect(
      await importFile(data, { table: 'tenant_workspaces', file: mapping, tenantId: (await data.defaultTenant()).id }),
    ).toMatchObject({ ok: true });
    await bot(discord, { TENANT_MODE: 'strict' });
    llm.reset();
    llm.script({ text: 'Mapped server answer.' });

    const mapped = discord.say({ content: 'hello', mention: true });
    expect((await finalMessages(discord, mapped.id))[0]!.content).toBe('Mapped server answer.');

    const other = discord.say({ content: 'hello', mention: true, channelId: discord.world.otherGeneral.id });
    const [refusal] = await finalMessages(discord, discord.world.otherGeneral.id, 1, 'the refusal');
    expect(refusal!.content).toMatch(/^⚠️ This server is not set up for Switchboard yet/);
    expect(refusal!.message_reference?.message_id).toBe(other.id);
    expect(discord.world.channels.has(other.id)).toBe(false); // no thread for a refusal

    const ask = discord.command('ask', { question: 'hello?' }, { channelId: discord.world.otherGeneral.id });
    await discord.waitFor(
      () =>
        [...ask.messageIds].map((id) => discord.world.messages.get(id)).find((m) => m?.content.includes('not set up')),
      'the ephemeral refusal',
    );
    expect(specProblems(discord.calls)).toEqual([]);
  });
});

describe('permissions', () => {
  it('without Create Public Threads, answers a mention in the channel', async () => {
    const discord = await fake({ canCreateThreads: false });
    await bot(discord);
    llm.reset();
    llm.script({ text: 'Answered in the channel.' });
    discord.say({ content: 'no threads here', mention: true });
    const [answer] = await finalMessages(discord, discord.world.general.id);
    expect(answer!.content).toBe('Answered in the channel.');
    expect(discord.callsMatching('POST', /\/threads$/).map((c) => c.status)).toEqual([403]);
  });
});

describe('login', () => {
  it('says what to fix when the token is wrong or the Message Content intent is not enabled', async () => {
    const discord = await fake({ messageContentAllowed: false });
    const wrongToken = await startHarness({ env: { ...discord.env(), DISCORD_TOKEN: 'not-the-token' }, data, llm });
    cleanup.push(() => wrongToken.close());
    await expect(createDiscordAdapter(wrongToken.sb)!.start()).rejects.toThrow(/Discord rejected DISCORD_TOKEN/);

    const noIntent = await startHarness({ env: discord.env(), data, llm });
    cleanup.push(() => noIntent.close());
    await expect(createDiscordAdapter(noIntent.sb)!.start()).rejects.toThrow(/Message Content Intent/);
    expect(createDiscordAdapter((await startHarness({ data, llm })).sb)).toBeUndefined();
  });
});
