/**
 * A turn that runs again after its replica died (crash, deploy) must never post its answer a
 * second time: the inbox gives the new run what the dead one recorded, and the writer edits
 * those messages. Driven through the real WebClient against the fake Slack Web API.
 */
import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TurnEvent } from '../../../src/contract/turn.js';
import { findMarker, parseMarkers } from '../../../src/adapters/slack/replay-marker.js';
import { postsOfEarlierRun } from '../../../src/adapters/slack/thread-poster.js';
import { TurnWriter } from '../../../src/adapters/slack/turn-writer.js';
import { silentLogger } from '../../../src/telemetry/logger.js';
import { captureLogs } from '../../helpers/harness.js';
import { startFakeSlack, type FakeSlack } from '../../fakes/slack/web-api.js';
import { freshTs } from './setup.js';

let slack: FakeSlack;
let client: webApi.WebClient;
beforeAll(async () => {
  slack = await startFakeSlack({ botUserId: 'U0REPLAYBOT' });
  client = new webApi.WebClient(slack.options.botToken, { slackApiUrl: slack.url, retryConfig: { retries: 0 } });
});
afterAll(() => slack.close());
beforeEach(() => slack.reset());

const CHANNEL = 'C0REPLAY';
const target = (threadTs: string) => ({
  client,
  channel: CHANNEL,
  threadTs,
  userId: 'U0HUMAN1',
  userTeamId: 'T0FAKETEAM',
  status: true,
  audience: { people: new Set(['U0HUMAN1']), unfurlDomains: [] },
});

async function* events(list: TurnEvent[], thenHang = false): AsyncIterable<TurnEvent> {
  for (const e of list) {
    yield e;
    await new Promise((r) => setTimeout(r, 5));
  }
  if (thenHang) await new Promise(() => undefined); // the process "dies" here: nothing more, ever
}

const answer = (text: string): TurnEvent[] => [
  { type: 'status', text: 'Thinking…' },
  { type: 'reply', reply: { text, blocks: [{ type: 'markdown', text }] } },
  { type: 'done', usage: { promptTokens: 1, completionTokens: 1 }, toolCalls: [], data: {} },
];

function writer(threadTs: string, recorded: string[], record: string[] = []) {
  return new TurnWriter(target(threadTs), {
    log: silentLogger(),
    streamFlushMs: 20,
    recorded,
    record: async (id) => void record.push(id),
  });
}

describe('Slack delivery on replay', () => {
  it('crash after the reply was posted but before the entry was done: the replay edits that message, never re-posts', async () => {
    const thread = freshTs();
    const recorded: string[] = [];
    await writer(thread, [], recorded).deliver(events(answer('First run answer.')));
    expect(recorded).toEqual([`post:${slack.threadReplies(CHANNEL, thread)[0]!.ts}`]);
    const postsBefore = slack.callsTo('chat.postMessage').length;

    // The replay (attempt 2) gets what the first run recorded.
    await writer(thread, recorded).deliver(events(answer('Replayed answer.')));
    expect(slack.callsTo('chat.postMessage').length).toBe(postsBefore);
    const thread2 = slack.threadReplies(CHANNEL, thread);
    expect(thread2).toHaveLength(1);
    expect(thread2[0]).toMatchObject({ text: 'Replayed answer.', updates: 1 });
  });

  it('crash after the reply was posted but before its ts was recorded: the replay finds it by its metadata and edits it', async () => {
    const thread = freshTs();
    const turnId = `slack:Ev${thread.replace('.', '')}`;
    // The first run posts, then "dies" before the record lands (the recorder never stores).
    await new TurnWriter(
      { ...target(thread), turnId },
      { log: silentLogger(), streamFlushMs: 20, recorded: [], record: async () => undefined },
    ).deliver(events(answer('First run answer.')));
    const [first] = slack.threadReplies(CHANNEL, thread);
    expect(first?.metadata).toEqual({ event_type: 'switchboard_turn', event_payload: { turn: turnId } });
    // Another turn's message in the same thread is not taken for ours.
    await new TurnWriter(
      { ...target(thread), turnId: 'slack:EvOther' },
      { log: silentLogger(), streamFlushMs: 20, recorded: [] },
    ).deliver(events(answer('Another answer.')));

    const found = await postsOfEarlierRun(target(thread), turnId, silentLogger());
    expect(found).toEqual([{ ts: first!.ts, stream: false }]);
    const postsBefore = slack.callsTo('chat.postMessage').length;
    await new TurnWriter(
      { ...target(thread), turnId },
      { log: silentLogger(), streamFlushMs: 20, recorded: found.map((f) => `post:${f.ts}`) },
    ).deliver(events(answer('Replayed answer.')));
    expect(slack.callsTo('chat.postMessage').length).toBe(postsBefore);
    expect(slack.threadReplies(CHANNEL, thread).map((m) => m.text)).toEqual(['Replayed answer.', 'Another answer.']);
    expect(slack.callsTo('conversations.replies').at(-1)?.args).toMatchObject({ include_all_metadata: 'true' }); // form-encoded, as the WebClient sends it
  });

  it('crash mid-stream: the replay stops the dead stream and writes the final answer into it', async () => {
    const thread = freshTs();
    const recorded: string[] = [];
    const dying = writer(thread, [], recorded);
    void dying.deliver(
      events(
        [
          { type: 'status', text: 'Thinking…' },
          { type: 'text_delta', text: 'Half an ans' },
        ],
        true,
      ),
    );
    await slack.waitFor(() => recorded.some((r) => r.startsWith('stream:')), 'the stream to start and be recorded');
    expect(recorded).toEqual([expect.stringMatching(/^stream-intent:\d+\.\d{3}$/), expect.stringMatching(/^stream:/)]);
    expect(slack.threadReplies(CHANNEL, thread)[0]!.stream!.state).toBe('in_progress');

    await writer(thread, recorded).deliver(events(answer('The whole answer, once.')));
    const [only, ...rest] = slack.threadReplies(CHANNEL, thread);
    expect(rest).toEqual([]);
    expect(only!.stream!.state).toBe('completed');
    expect(only!.text).toBe('The whole answer, once.');
    expect(slack.callsTo('chat.startStream')).toHaveLength(1);
  });

  it('crash after Slack started the stream but before its ts was recorded: the replay finds it from the recorded intent and finishes it', async () => {
    const thread = freshTs();
    const turnId = `slack:Ev${thread.replace('.', '')}`;
    // An earlier turn's streamed answer in the same thread is tagged when it stops: not taken for ours.
    const earlier = `Earlier answer. ${'More words. '.repeat(25)}`.trim(); // long enough to stream at once
    await new TurnWriter(
      { ...target(thread), turnId: 'slack:EvEarlier' },
      { log: silentLogger(), streamFlushMs: 20, recorded: [] },
    ).deliver(events([{ type: 'text_delta', text: earlier }, ...answer(earlier).slice(1)]));
    expect(slack.threadReplies(CHANNEL, thread)[0]).toMatchObject({
      stream: { state: 'completed' },
      metadata: { event_type: 'switchboard_turn', event_payload: { turn: 'slack:EvEarlier' } },
    });
    await new Promise((r) => setTimeout(r, 1_100)); // the dead run starts a second later

    // The dead run records its intent, Slack starts the stream, and the run dies before the ts is recorded.
    const recorded: string[] = [];
    const dying = new TurnWriter(
      { ...target(thread), turnId },
      {
        log: silentLogger(),
        streamFlushMs: 20,
        recorded: [],
        record: async (id) => void (id.startsWith('stream-intent:') && recorded.push(id)),
      },
    );
    void dying.deliver(
      events(
        [
          { type: 'status', text: 'Thinking…' },
          { type: 'text_delta', text: 'Half an ans' },
        ],
        true,
      ),
    );
    await slack.waitFor(
      () => slack.threadReplies(CHANNEL, thread).some((m) => m.stream?.state === 'in_progress'),
      'the dead run’s stream',
    );
    expect(recorded).toHaveLength(1);

    const found = await postsOfEarlierRun(
      target(thread),
      turnId,
      silentLogger(),
      findMarker(parseMarkers(recorded), 'stream-intent')?.at,
    );
    const open = slack.threadReplies(CHANNEL, thread).find((m) => m.stream?.state === 'in_progress')!;
    expect(found).toEqual([{ ts: open.ts, stream: true }]);
    await new TurnWriter(
      { ...target(thread), turnId },
      { log: silentLogger(), streamFlushMs: 20, recorded: [...recorded, ...found.map((f) => `stream:${f.ts}`)] },
    ).deliver(events(answer('The whole answer, once.')));
    expect(slack.threadReplies(CHANNEL, thread).map((m) => [m.text, m.stream?.state])).toEqual([
      [earlier, 'completed'],
      ['The whole answer, once.', 'completed'],
    ]);
    expect(slack.callsTo('chat.startStream')).toHaveLength(2);
  });

  it('a replay whose answer is shorter removes the dead run’s extra messages; one that is longer posts only the rest', async () => {
    const thread = freshTs();
    const a = (await client.chat.postMessage({ channel: CHANNEL, thread_ts: thread, text: 'old 1' })).ts!;
    const b = (await client.chat.postMessage({ channel: CHANNEL, thread_ts: thread, text: 'old 2' })).ts!;
    await writer(thread, [`post:${a}`, `post:${b}`]).deliver(events(answer('Short now.')));
    expect(slack.threadReplies(CHANNEL, thread).map((m) => m.text)).toEqual(['Short now.']);

    const thread2 = freshTs();
    const c = (await client.chat.postMessage({ channel: CHANNEL, thread_ts: thread2, text: 'old' })).ts!;
    const record: string[] = [];
    const long = Array.from({ length: 1_400 }, (_, i) => `Sentence ${i} is here.`).join(' ');
    await writer(thread2, [`post:${c}`], record).deliver(events(answer(long)));
    const shown = slack.threadReplies(CHANNEL, thread2);
    expect(shown.length).toBeGreaterThan(1);
    expect(shown[0]!.ts).toBe(c);
    expect(record).toEqual(shown.slice(1).map((m) => `post:${m.ts}`));
  });

  it('an error on replay replaces the earlier message with the notice instead of adding one', async () => {
    const thread = freshTs();
    const a = (await client.chat.postMessage({ channel: CHANNEL, thread_ts: thread, text: 'partial' })).ts!;
    await writer(thread, [`post:${a}`]).deliver(
      events([{ type: 'error', code: 'llm_unavailable', message: 'I can’t reach the language model right now.' }]),
    );
    const [only, ...rest] = slack.threadReplies(CHANNEL, thread);
    expect(rest).toEqual([]);
    expect(only!.text).toMatch(/language model/);
  });
  it('a replay that cannot look for its earlier messages says so at warn (it may post again), and goes on', async () => {
    const thread = freshTs();
    const { log, logs } = captureLogs('debug');
    slack.failNext('conversations.replies', { error: 'ratelimited' });
    expect(await postsOfEarlierRun(target(thread), 'slack:EvLost', log)).toEqual([]);
    expect(logs.lines).toContainEqual(
      expect.objectContaining({
        level: 40,
        code: 'ratelimited',
        method: 'conversations.replies',
        turn: 'slack:EvLost',
      }),
    );
  });

  it('a replay whose earlier stream cannot be stopped logs it at warn and still edits the message', async () => {
    const thread = freshTs();
    const recorded: string[] = [];
    await writer(thread, [], recorded).deliver(events(answer('First run answer.')));
    const ts = slack.threadReplies(CHANNEL, thread)[0]!.ts;
    const { log, logs } = captureLogs('debug');
    slack.failNext('chat.stopStream', { error: 'message_not_in_streaming_state' });
    await new TurnWriter(target(thread), { log, streamFlushMs: 20, recorded: [`stream:${ts}`] }).deliver(
      events(answer('Replayed answer.')),
    );
    expect(logs.lines).toContainEqual(
      expect.objectContaining({ level: 40, code: 'message_not_in_streaming_state', method: 'chat.stopStream' }),
    );
    expect(slack.threadReplies(CHANNEL, thread).map((m) => m.text)).toEqual(['Replayed answer.']);
  });

  it('a replay’s edits and a file’s title and comment are inert too: no live special mention, no unfurl', async () => {
    const thread = freshTs();
    const recorded: string[] = [];
    await writer(thread, [], recorded).deliver(events(answer('First run answer.')));
    const hostile = 'Done <!channel> <@U0STRANGER>, see https://evil.example/x?d=1';
    await writer(thread, recorded).deliver(
      events([
        {
          type: 'reply',
          reply: {
            text: hostile,
            blocks: [
              { type: 'markdown', text: hostile },
              {
                type: 'file',
                file: {
                  name: 'notes.md',
                  mime: 'text/markdown',
                  data: new TextEncoder().encode('# notes'),
                  title: 'Notes for <!here>',
                  preview: 'Preview <!everyone> https://evil.example/p',
                },
              },
            ],
          },
        },
        { type: 'done', usage: { promptTokens: 1, completionTokens: 1 }, toolCalls: [], data: {} },
      ]),
    );
    const [edit] = slack.callsTo('chat.update');
    expect(edit!.args).toMatchObject({ unfurl_links: 'false', unfurl_media: 'false' });
    expect(JSON.stringify([edit!.args.text, edit!.args.blocks])).not.toMatch(/<!channel|<@U0STRANGER/);
    expect(String(edit!.args.text)).toContain('Done @channel @U0STRANGER');
    const [upload] = slack.callsTo('files.completeUploadExternal');
    const shown = JSON.stringify(upload!.args);
    expect(shown).not.toMatch(/<!here|<!everyone/);
    expect(shown).toContain('Notes for @here');
    expect(upload!.args.initial_comment).toBe('Preview @everyone `https://evil.example/p`');
  });
});
