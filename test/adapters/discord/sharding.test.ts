/**
 * Discord sharding across replicas: each replica connects only its DISCORD_SHARD_IDS, the fake
 * gateway routes a guild's events to shard `(guild_id >> 22) % count` (DMs to shard 0) as
 * Discord does, so each guild's messages reach exactly one replica. With a shared Redis inbox,
 * any replica can answer a turn another replica's shard received.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDiscordAdapter, type DiscordAdapter } from '../../../src/adapters/discord/index.js';
import type { AdminDataPort } from '../../../src/data/index.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFakeDiscord, type FakeDiscord } from '../../fakes/discord/index.js';
import { startFakeOpenAI, type RecordedRequest } from '../../fakes/openai-server.js';
import { shardOf } from '../../fakes/discord/gateway.js';
import { openPgliteTestPort } from '../../helpers/db.js';
import { runAdapter, sentMessages, startHarness, type Harness } from '../../helpers/harness.js';
import { finalMessages } from './helpers.js';

const REDIS_URL = process.env.TEST_REDIS_URL;

interface Replica {
  h: Harness;
  adapter: DiscordAdapter;
  stop: () => Promise<void>;
}

let data: AdminDataPort;
beforeAll(async () => {
  data = await openPgliteTestPort({ seedDemo: false });
});
afterAll(async () => {
  await data?.close();
});

async function replica(
  discord: FakeDiscord,
  env: Record<string, string>,
  opts: { worker?: boolean } = {},
): Promise<Replica> {
  const h = await startHarness({ env: { ...discord.env(), ...env }, data });
  const adapter = createDiscordAdapter(h.sb)!;
  if (opts.worker === false) {
    // Records what its shards receive; another replica's worker answers.
    await adapter.start();
    return { h, adapter, stop: async () => (await adapter.stop(), await adapter.close?.(), await h.close()) };
  }
  const stopAdapter = await runAdapter(h.sb, adapter);
  return { h, adapter, stop: async () => (await stopAdapter(), await h.close()) };
}

const asked = (r: Replica) =>
  r.h.llm.requestsTo('/chat/completions').map((req) => sentMessages(req.body).at(-1)?.content);

describe('two replicas with disjoint shards', () => {
  let discord: FakeDiscord;
  let zero: Replica;
  let one: Replica;
  /** The guild on shard 0 and the one on shard 1 (of 2). */
  let g0 = '';
  let g1 = '';

  beforeAll(async () => {
    discord = await startFakeDiscord({ recommendedShards: 2 });
    g0 = discord.world.guildIds.find((g) => shardOf(g, 2) === 0)!;
    g1 = discord.world.guildIds.find((g) => shardOf(g, 2) === 1)!;
    zero = await replica(discord, { DISCORD_SHARD_COUNT: '2', DISCORD_SHARD_IDS: '0' });
    one = await replica(discord, { DISCORD_SHARD_COUNT: '2', DISCORD_SHARD_IDS: '1' });
  });
  afterAll(async () => {
    await zero?.stop();
    await one?.stop();
    await discord?.close();
  });

  it('each replica identifies only its shard and holds only its guild', () => {
    expect(discord.gateway.sessions.map((s) => s.shard).sort()).toEqual([
      [0, 2],
      [1, 2],
    ]);
    expect([...zero.adapter.client.guilds.cache.keys()]).toEqual([g0]);
    expect([...one.adapter.client.guilds.cache.keys()]).toEqual([g1]);
  });

  it('a mention in each guild is answered once, by the replica whose shard received it; DMs go to shard 0', async () => {
    zero.h.llm.script({ text: 'Answer from shard 0.' }, { text: 'DM answer.' });
    one.h.llm.script({ text: 'Answer from shard 1.' });
    const channelOf = (g: string) =>
      g === discord.world.guildId ? discord.world.general.id : discord.world.otherGeneral.id;
    const inG0 = discord.say({ content: 'hello shard zero', channelId: channelOf(g0), mention: true });
    const inG1 = discord.say({ content: 'hello shard one', channelId: channelOf(g1), mention: true });
    // Each replica's first turn: on a loaded machine it may take longer than the usual 10 s.
    const first = (id: string) => finalMessages(discord, id, 1, 'the answer', 30_000);
    expect((await first(inG0.id)).map((m) => m.content)).toEqual(['Answer from shard 0.']);
    expect((await first(inG1.id)).map((m) => m.content)).toEqual(['Answer from shard 1.']);
    const dm = discord.dm('hello in a DM');
    expect((await finalMessages(discord, dm.channel_id)).map((m) => m.content)).toEqual(['DM answer.']);
    expect(asked(zero)).toEqual(['hello shard zero', 'hello in a DM']);
    expect(asked(one)).toEqual(['hello shard one']);
  });

  it('DISCORD_SHARD_COUNT=auto takes the count from GET /gateway/bot; an id outside it stops the start with a clear error', async () => {
    const auto = await replica(discord, { DISCORD_SHARD_COUNT: 'auto', DISCORD_SHARD_IDS: '1' });
    try {
      expect(discord.gateway.sessions.at(-1)!.shard).toEqual([1, 2]);
      expect([...auto.adapter.client.guilds.cache.keys()]).toEqual([g1]);
    } finally {
      await auto.stop();
    }
    const h = await startHarness({
      env: { ...discord.env(), DISCORD_SHARD_COUNT: 'auto', DISCORD_SHARD_IDS: '2' },
      data,
    });
    try {
      const adapter = createDiscordAdapter(h.sb)!;
      await expect(adapter.start()).rejects.toThrow(/DISCORD_SHARD_IDS: 2 is outside the 2 shards Discord recommends/);
    } finally {
      await h.close();
    }
  });
});

describe('one replica with every shard', () => {
  it('identifies its shards max_concurrency at a time and holds every guild', async () => {
    const discord = await startFakeDiscord({ recommendedShards: 2, maxConcurrency: 2 });
    const all = await replica(discord, { DISCORD_SHARD_COUNT: 'auto' });
    try {
      const sessions = discord.gateway.sessions;
      expect(sessions.map((s) => s.shard[0]).sort()).toEqual([0, 1]);
      // With max_concurrency 1, discord.js waits 5 s between identifies; with 2 both go at once.
      expect(Math.abs(sessions[0]!.identifiedAt - sessions[1]!.identifiedAt)).toBeLessThan(2_500);
      expect([...all.adapter.client.guilds.cache.keys()].sort()).toEqual([...discord.world.guildIds].sort());
    } finally {
      await all.stop();
      await discord.close();
    }
  });
});

describe.skipIf(!REDIS_URL)('a shared Redis inbox across sharded replicas', () => {
  it('a replica answers a turn that another replica’s shard received (its guild fetched, a thread started there)', async () => {
    const discord = await startFakeDiscord({ recommendedShards: 2 });
    const queue = `shards-${randomUUID()}`;
    const env = { DISCORD_SHARD_COUNT: '2', REDIS_URL: REDIS_URL!, INBOX_QUEUE: queue };
    const g1 = discord.world.guildIds.find((g) => shardOf(g, 2) === 1)!;
    const worker = await replica(discord, { ...env, DISCORD_SHARD_IDS: '0' });
    const recorder = await replica(discord, { ...env, DISCORD_SHARD_IDS: '1' }, { worker: false });
    try {
      worker.h.llm.script({ text: 'Answered across shards.' });
      const channelId = g1 === discord.world.guildId ? discord.world.general.id : discord.world.otherGeneral.id;
      const q = discord.say({ content: 'who answers me?', channelId, mention: true });
      expect((await finalMessages(discord, q.id)).map((m) => m.content)).toEqual(['Answered across shards.']);
      expect(discord.world.channels.get(q.id)).toMatchObject({ parent_id: channelId }); // the thread was started in g1
      expect(worker.adapter.client.guilds.cache.has(g1)).toBe(true);
      expect(discord.callsMatching('GET', new RegExp(`^/guilds/${g1}$`))).toHaveLength(1);
      expect(asked(worker)).toEqual(['who answers me?']);
      expect(recorder.h.llm.requestsTo('/chat/completions')).toHaveLength(0);
    } finally {
      await recorder.stop();
      await worker.stop();
      await discord.close();
    }
  });
});

/** The question numbers in a model request's user messages, in the order the model sees them. */
const questionsSeen = (req: RecordedRequest): number[] =>
  sentMessages(req.body)
    .filter((m) => m.role === 'user')
    .flatMap((m) => [...JSON.stringify(m.content ?? '').matchAll(/question (\d+)/g)].map((x) => Number(x[1])));

describe.skipIf(!REDIS_URL)('one conversation across two replicas on a shared Redis inbox', () => {
  it('answers 10 messages sent 5 ms apart in the order of their snowflakes, whichever replica runs each', async () => {
    const discord = await startFakeDiscord({ recommendedShards: 2 });
    const llm = await startFakeOpenAI();
    const env = {
      ...discord.env(),
      DISCORD_SHARD_COUNT: '2',
      REDIS_URL: REDIS_URL!,
      INBOX_QUEUE: `order-${randomUUID()}`,
      USER_MESSAGES_PER_MINUTE: '0',
    };
    const started: Replica[] = [];
    try {
      for (const shard of ['0', '1']) {
        const h = await startHarness({ env: { ...env, DISCORD_SHARD_IDS: shard }, data, llm });
        const adapter = createDiscordAdapter(h.sb)!;
        const stopAdapter = await runAdapter(h.sb, adapter);
        started.push({ h, adapter, stop: async () => (await stopAdapter(), await h.close()) });
      }
      const n = 10;
      llm.script(
        ...Array.from({ length: n }, () => (req: RecordedRequest) => ({
          text: `Answer to question ${questionsSeen(req).at(-1)}.`,
          delayMs: 300,
        })),
      );
      // A DM conversation (shard 0 receives it; both replicas' workers take turns from the inbox).
      const first = discord.dm('question 0');
      for (let i = 1; i < n; i++) {
        await sleep(5);
        discord.dm(`question ${i}`);
      }
      const answers = () =>
        discord
          .messagesIn(first.channel_id)
          .filter((m) => m.author.id !== first.author.id && /^Answer to/.test(m.content));
      await discord.waitFor(() => answers().length >= n, `${n} answers`, 20_000);
      const requests = llm.requestsTo('/chat/completions');
      const runOrder = requests.map((r) => questionsSeen(r).at(-1)!);
      console.log(`[order] discord run order [${runOrder.join(', ')}]`);
      expect(runOrder).toEqual([...Array(n).keys()]);
      expect(answers().map((m) => m.content)).toEqual([...Array(n).keys()].map((i) => `Answer to question ${i}.`));
      // What the model saw as the conversation is in the same order.
      expect(questionsSeen(requests.at(-1)!)).toEqual([...Array(n).keys()]);
    } finally {
      for (const r of started.reverse()) await r.stop();
      await discord.close();
      await llm.close();
    }
  }, 40_000);
});
