/**
 * The Discord adapter on the inbox: each event is recorded before it is answered, an answer is
 * rebuilt from the entry's ids alone (so any replica can give it), and a run that died after
 * posting part of its answer is replayed by editing those messages, never by posting again.
 * Driven through discord.js against the fake Discord, as in conversations.test.ts.
 */
import { Events, MessageFlags, SnowflakeUtil } from 'discord.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DiscordWork } from '../../../src/adapters/discord/work.js';
import { createDiscordAdapter, type DiscordAdapter } from '../../../src/adapters/discord/index.js';
import type { AdminDataPort } from '../../../src/data/index.js';
import type { Delivery, DeliveryFn, Inbox, InboxEntry } from '../../../src/inbox/index.js';
import { createMemoryInbox } from '../../../src/inbox/memory-inbox.js';
import { startFakeDiscord, type FakeDiscord } from '../../fakes/discord/index.js';
import { openPgliteTestPort } from '../../helpers/db.js';
import { runAdapter, startHarness, type Harness } from '../../helpers/harness.js';
import { finalMessages, fromBot, isProgress, settle, specProblems, testExtension } from './helpers.js';

let data: AdminDataPort;
beforeAll(async () => {
  data = await openPgliteTestPort({ seedDemo: false });
});
afterAll(async () => {
  await data?.close();
});

describe('deliveries driven by the test (a held inbox)', () => {
  let discord: FakeDiscord;
  let h: Harness;
  let adapter: DiscordAdapter;
  /** Each entry the adapter recorded, with the interaction's callback type at that moment. */
  const added: { entry: InboxEntry<DiscordWork>; callbackType?: number }[] = [];
  let deliver: DeliveryFn<DiscordWork> | undefined;

  beforeAll(async () => {
    discord = await startFakeDiscord();
    h = await startHarness({ env: discord.env(), data, extensions: [testExtension({ commands: [] })] });
    // A real memory inbox that is never started: it dedups and bounds, the test runs the entries.
    const store = createMemoryInbox(h.sb.log);
    const held: Inbox = {
      kind: 'memory',
      async add(entry) {
        const e = entry as InboxEntry<DiscordWork>;
        const token = e.payload.kind === 'interaction' ? e.payload.interaction.token : undefined;
        const callbackType = token ? discord.world.interactions.get(token)?.callback?.type : undefined;
        const result = await store.add(entry);
        added.push({ entry: e, ...(callbackType !== undefined ? { callbackType } : {}) });
        return result;
      },
      deliver: (_platform, fn) => void (deliver = fn as DeliveryFn<DiscordWork>),
      start: async () => undefined,
      stop: async () => undefined,
      stats: () => store.stats(),
    };
    adapter = createDiscordAdapter({ ...h.sb, inbox: held })!;
    await adapter.start();
  });
  afterAll(async () => {
    await adapter?.stop();
    await adapter?.close?.();
    await h?.close();
    await discord?.close();
  });
  beforeEach(() => h.llm.reset());

  const entryFor = (id: string) => discord.waitFor(() => added.find((a) => a.entry.id === id), `the inbox entry ${id}`);

  /** One run of an entry, as a replica that knows nothing but the (JSON) entry would do it. */
  async function run(
    entry: InboxEntry<DiscordWork>,
    recorded: string[] = [],
    opts: { signal?: AbortSignal; attempt?: number; record?: string[] } = {},
  ) {
    const out = opts.record ?? [];
    const delivery: Delivery<DiscordWork> = {
      entry: JSON.parse(JSON.stringify(entry)) as InboxEntry<DiscordWork>,
      attempt: opts.attempt ?? 1,
      recorded: [...recorded],
      record: async (id) => void out.push(id),
      signal: opts.signal ?? new AbortController().signal,
    };
    await deliver!(delivery);
    return out;
  }

  it('a slash command is deferred before its entry is recorded, then answered through the interaction webhook', async () => {
    h.llm.script({ text: 'Answered through the webhook.' });
    const ask = discord.command('ask', { question: 'who answers?' });
    const { entry, callbackType } = await entryFor(`discord:interaction:${ask.payload.id}`);
    expect(callbackType).toBe(5); // DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE, before the entry existed
    expect(entry).toMatchObject({
      platform: 'discord',
      thread: `discord:${discord.world.guildId}:${discord.world.general.id}:${ask.payload.id}`,
      payload: {
        kind: 'interaction',
        interaction: {
          id: ask.payload.id,
          token: ask.payload.token,
          applicationId: discord.world.applicationId,
          channelId: discord.world.general.id,
          ownsOriginal: true,
        },
        message: { platform: 'discord', text: 'who answers?', command: { name: 'ask' } },
      },
    });
    expect((entry.payload as Extract<DiscordWork, { kind: 'interaction' }>).interaction.receivedAt).toBeGreaterThan(0);
    // Ordered in its conversation by Discord's clock: the interaction snowflake's time.
    expect(Math.floor(entry.order!)).toBe(SnowflakeUtil.timestampFrom(ask.payload.id));
    // Recorded, not answered: the deferred reply still shows "thinking".
    expect((discord.world.messages.get(ask.originalId!)!.flags ?? 0) & MessageFlags.Loading).toBe(MessageFlags.Loading);

    const recorded = await run(entry);
    expect(discord.world.messages.get(ask.originalId!)).toMatchObject({ content: 'Answered through the webhook.' });
    const token = ask.payload.token;
    expect(
      discord.callsMatching(
        'PATCH',
        new RegExp(`^/webhooks/${discord.world.applicationId}/${token}/messages/@original$`),
      ).length,
    ).toBeGreaterThanOrEqual(1);
    expect(recorded).toEqual(['msg:@original', 'delivered']);
    expect(discord.calls.filter((c) => c.path.startsWith('/interactions/')).map((c) => c.status)).toEqual([204]);
  });

  it('a run that died after starting the thread and posting progress is replayed by editing that message: one thread, one message', async () => {
    h.llm.script({ hang: true }, { text: 'The replayed answer.' });
    const asked = discord.say({ content: 'crash halfway', mention: true });
    const { entry } = await entryFor(`discord:message:${asked.id}`);
    expect(entry).toMatchObject({
      thread: `discord:${discord.world.guildId}:${discord.world.general.id}:${asked.id}`,
      payload: {
        kind: 'message',
        channelId: discord.world.general.id,
        originId: asked.id,
        startThread: { name: 'crash halfway' },
        message: { text: 'crash halfway', threadId: asked.id },
      },
    });
    expect(discord.world.channels.has(asked.id)).toBe(false); // nothing happens before a delivery

    // The first run posts its progress, then its replica stops (the entry is handed back).
    const stopping = new AbortController();
    const first: string[] = [];
    const dying = run(entry, [], { signal: stopping.signal, record: first });
    await discord.waitFor(() => first.some((r) => r.startsWith('msg:')), 'the progress message to be recorded');
    stopping.abort(new Error('shutting down'));
    await dying;
    const [progress, ...others] = discord.messagesIn(asked.id).filter(fromBot(discord));
    expect(others).toEqual([]);
    expect(isProgress(progress!)).toBe(true);
    expect(first).toEqual([`thread:${asked.id}`, `msg:${progress!.id}`]); // no 'delivered', no error shown

    const second = await run(entry, first, { attempt: 2 });
    const mine = discord.messagesIn(asked.id).filter(fromBot(discord));
    expect(mine.map((m) => [m.id, m.content])).toEqual([[progress!.id, 'The replayed answer.']]);
    expect(discord.callsMatching('POST', /\/threads$/)).toHaveLength(1);
    expect(discord.callsMatching('POST', new RegExp(`^/channels/${asked.id}/messages$`))).toHaveLength(1);
    expect(second).toEqual(['delivered']);
    expect(specProblems(discord.calls)).toEqual([]);
  });

  it('a run that died after sending its progress but before recording it: the replay’s send gets that same message back (nonce), one message', async () => {
    h.llm.script({ hang: true }, { text: 'Answered once.' });
    const asked = discord.say({ content: 'crash before the record', mention: true });
    const { entry } = await entryFor(`discord:message:${asked.id}`);
    // The first run's thread is recorded, its message id never is (the record is lost with the replica).
    const stopping = new AbortController();
    const first: string[] = [];
    const dying = run(entry, [], { signal: stopping.signal, record: first });
    await discord.waitFor(() => discord.messagesIn(asked.id).some(fromBot(discord)), 'the progress message');
    stopping.abort(new Error('shutting down'));
    await dying;
    const recordedThread = first.filter((r) => r.startsWith('thread:'));
    const [progress] = discord.messagesIn(asked.id).filter(fromBot(discord));

    const second = await run(entry, recordedThread, { attempt: 2 });
    const mine = discord.messagesIn(asked.id).filter(fromBot(discord));
    expect(mine.map((m) => [m.id, m.content])).toEqual([[progress!.id, 'Answered once.']]);
    // Both runs asked Discord to create the message; the second got the first one back.
    const posts = discord.callsMatching('POST', new RegExp(`^/channels/${asked.id}/messages$`));
    expect(posts).toHaveLength(2);
    expect(posts.map((c) => c.body?.nonce)).toEqual([posts[0]!.body?.nonce, posts[0]!.body?.nonce]);
    expect(posts.every((c) => c.body?.enforce_nonce === true)).toBe(true);
    expect(second).toContain('delivered');
    expect(specProblems(discord.calls)).toEqual([]);
  });

  it('a replay of a slash command edits the recorded messages, removes the extra one and posts nothing new; a delivered one is left alone', async () => {
    h.llm.script({ text: 'First run.' });
    const ask = discord.command('ask', { question: 'twice?' });
    const { entry } = await entryFor(`discord:interaction:${ask.payload.id}`);
    await run(entry);
    // The first run had also sent a follow-up before its replica died.
    const res = await fetch(
      `${discord.apiUrl}/v10/webhooks/${discord.world.applicationId}/${ask.payload.token}?wait=true`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content: 'a second part' }),
      },
    );
    const extra = (await res.json()) as { id: string };

    h.llm.script({ text: 'The replayed answer.' });
    const before = discord.calls.length;
    const recorded = await run(entry, ['msg:@original', `msg:${extra.id}`], { attempt: 2 });
    const calls = discord.calls.slice(before).filter((c) => c.path.startsWith('/webhooks/'));
    expect(calls.map((c) => c.method).sort()).toEqual(['DELETE', 'PATCH']);
    expect(discord.world.messages.get(ask.originalId!)).toMatchObject({ content: 'The replayed answer.' });
    expect(discord.world.messages.has(extra.id)).toBe(false);
    expect(recorded).toEqual(['delivered']);

    const quiet = discord.calls.length;
    await run(entry, ['msg:@original', 'delivered'], { attempt: 3 });
    expect(discord.calls.length).toBe(quiet);
    expect(h.llm.requestsTo('/chat/completions')).toHaveLength(2);
  });
});

describe('the inbox running the turns', () => {
  let discord: FakeDiscord;
  let h: Harness;
  let adapter: DiscordAdapter;
  let stopAdapter: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    discord = await startFakeDiscord();
    h = await startHarness({
      env: { ...discord.env(), INBOX_THREAD_QUEUE_MAX: '2' },
      data,
      extensions: [testExtension({ commands: [] })],
    });
    adapter = createDiscordAdapter(h.sb)!;
    stopAdapter = await runAdapter(h.sb, adapter);
  });
  afterAll(async () => {
    await stopAdapter?.();
    await h?.close();
    await discord?.close();
  });
  beforeEach(() => h.llm.reset());

  it('a gateway message delivered twice (the second time while it is being answered) is answered once', async () => {
    // The fake is strict: a second model call (a second answer) would be a call past the script.
    h.llm.script({ text: 'Answered once.', delayMs: 800 });
    let received = 0;
    const asked = discord.say({ content: 'only once', mention: true });
    adapter.client.on(Events.MessageCreate, (m) => {
      if (m.id !== asked.id) return;
      received++;
      // discord.js drops a redelivered message it still has cached; its cache is bounded, so
      // a late redelivery gets through: only the inbox's dedup stands between it and a second answer.
      m.channel.messages.cache.delete(m.id);
    });
    await discord.waitFor(() => discord.messagesIn(asked.id).length > 0, 'the progress message');
    discord.gateway.dropConnections({ redeliver: 50 });
    await discord.waitFor(() => received >= 2, 'the message delivered again on resume');
    const [answer, ...more] = await finalMessages(discord, asked.id);
    await settle(discord, 600);
    expect(received).toBe(2);
    expect(more).toEqual([]);
    expect(answer!.content).toBe('Answered once.');
    expect(discord.messagesIn(asked.id).filter(fromBot(discord))).toHaveLength(1);
    expect(discord.callsMatching('POST', /\/threads$/)).toHaveLength(1);
    expect(h.llm.requestsTo('/chat/completions')).toHaveLength(1);
  });

  it('a conversation with INBOX_THREAD_QUEUE_MAX messages waiting refuses the next with “already have N messages waiting”; the others are answered in order', async () => {
    h.llm.script({ text: 'First answer.', delayMs: 1_000 }, { text: 'Second answer.' });
    const first = discord.dm('first');
    const dmId = first.channel_id;
    await discord.waitFor(() => h.llm.requestsTo('/chat/completions').length === 1, 'the first turn to start');
    discord.dm('second');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const third = discord.dm('third');
    const refusal = await discord.waitFor(
      () => discord.messagesIn(dmId).find((m) => m.message_reference?.message_id === third.id),
      'the refusal',
    );
    expect(refusal.content).toBe(
      '⚠️ I already have 2 messages waiting in this conversation. Please wait for my answers, then ask again.',
    );
    await discord.waitFor(
      () => discord.messagesIn(dmId).some((m) => m.content === 'Second answer.'),
      'the second answer',
    );
    await settle(discord, 600);
    const answers = discord
      .messagesIn(dmId)
      .filter(fromBot(discord))
      .filter((m) => m.id !== refusal.id);
    expect(answers.map((m) => m.content)).toEqual(['First answer.', 'Second answer.']);
    expect(h.llm.requestsTo('/chat/completions')).toHaveLength(2); // the refused third never reached the model
    expect(specProblems(discord.calls)).toEqual([]);
  });
});
