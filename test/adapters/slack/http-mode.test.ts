import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { invalidBlockPayloads } from '../../fakes/slack/block-kit.js';
import { z } from 'zod';
import { createSlackAdapter } from '../../../src/adapters/slack/index.js';
import { defineTool } from '../../../src/contract/tool.js';
import { testTools } from '../../helpers/test-tools.js';
import {
  BOT_USER,
  eventBody,
  fixture,
  freshTs,
  mention,
  postCommand,
  postEvent,
  postInteraction,
  sign,
  startSlackRig,
  type SlackRig,
  RIG_UPDATE_INTERVAL_MS,
} from './setup.js';
import { inboxIdle } from '../../helpers/inbox-idle.js';

const reportTool = defineTool({
  name: 'make_report',
  title: 'Building the report',
  description: 'Builds a CSV report.',
  input: z.object({}),
  async run() {
    const data = new TextEncoder().encode('a,b\n1,2\n3,4');
    return {
      content: 'Report built.',
      blocks: [
        { type: 'file', file: { name: 'report.csv', mime: 'text/csv', data, title: 'Report', preview: 'a,b\n1,2' } },
      ],
    };
  },
});

let rig: SlackRig;
beforeAll(async () => {
  rig = await startSlackRig({ mode: 'http', tools: [...testTools, reportTool] });
});
afterAll(() => rig.close());
beforeEach(() => {
  rig.llm.reset();
  rig.slack.reset();
});
// Whatever a test sent to Slack must be Block Kit that Slack accepts.
afterEach(() => expect(invalidBlockPayloads(rig.slack)).toEqual([]));

const streamsIn = (channel: string, thread: string) => rig.slack.threadReplies(channel, thread).filter((m) => m.stream);

describe('Slack adapter setup', () => {
  it('is absent without SLACK_BOT_TOKEN, and says what is missing without a way to receive events', () => {
    const config = rig.h.sb.config;
    expect(createSlackAdapter({ ...rig.h.sb, config: { ...config, SLACK_BOT_TOKEN: undefined } })).toBeUndefined();
    expect(() =>
      createSlackAdapter({
        ...rig.h.sb,
        config: { ...config, SLACK_SIGNING_SECRET: undefined, SLACK_APP_TOKEN: undefined },
      }),
    ).toThrow(/SLACK_APP_TOKEN .*or SLACK_SIGNING_SECRET/);
  });

  it('fails to start with a clear message when Slack rejects the token (invalid_auth)', async () => {
    const adapter = createSlackAdapter({
      ...rig.h.sb,
      config: { ...rig.h.sb.config, SLACK_BOT_TOKEN: 'xoxb-revoked-token' },
    })!;
    await expect(adapter.start()).rejects.toThrow(/Slack rejected the token \(invalid_auth\)\. Check SLACK_BOT_TOKEN/);
  });
});

describe('Slack over HTTP (Events API)', () => {
  it('answers the URL verification challenge and rejects forged or stale signatures', async () => {
    const challenge = await postEvent(
      rig.eventsUrl,
      { type: 'url_verification', challenge: 'abc123', token: 'x' },
      sign(),
    );
    expect(await challenge.json()).toEqual({ challenge: 'abc123' });

    const body = eventBody(mention('hello'));
    const forged = await postEvent(rig.eventsUrl, body, sign({ signature: 'v0=' + 'f'.repeat(64) }));
    const wrongSecret = await postEvent(rig.eventsUrl, body, sign({ secret: 'not-the-secret' }));
    const stale = await postEvent(rig.eventsUrl, body, sign({ timestamp: Math.floor(Date.now() / 1000) - 6 * 60 }));
    expect([forged.status, wrongSecret.status, stale.status]).toEqual([401, 401, 401]);
    await inboxIdle(rig.h.sb.inbox);
    expect(rig.llm.requestsTo('/chat/completions')).toHaveLength(0);
    expect(rig.slack.callsTo('chat.postMessage')).toHaveLength(0);
  });

  it('answers a recorded mention in its thread, streaming tool calls as tasks, then a thread follow-up without a mention', async () => {
    const { mention: recorded, followUp } = fixture('basic.slack.json');
    rig.llm.script(
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { text: 'It is **18°** and raining in Oslo.' },
    );
    const before = rig.deliveredCount();
    const res = await postEvent(rig.eventsUrl, recorded!, sign());
    expect(res.status).toBe(200);
    await rig.delivered(before + 1);

    const ts = (recorded!.event as { ts: string }).ts;
    const [stream] = streamsIn('C00FAKECHAN1', ts);
    expect(stream).toMatchObject({
      thread_ts: ts,
      stream: { state: 'completed', markdown: 'It is **18°** and raining in Oslo.' },
    });
    expect(stream!.stream!.chunks.filter((c) => c.type === 'task_update').map((c) => c.status)).toEqual([
      'in_progress',
      'complete',
    ]);
    expect(JSON.stringify(stream!.blocks)).toContain('*City*\\nOslo');
    const start = rig.slack.callsTo('chat.startStream')[0]!.args;
    expect(start).toMatchObject({
      channel: 'C00FAKECHAN1',
      thread_ts: ts,
      recipient_user_id: 'U00FAKEUSER1',
      recipient_team_id: 'T00FAKE00AA',
    });
    expect(rig.slack.callsTo('assistant.threads.setStatus')[0]!.args).toMatchObject({
      thread_ts: ts,
      loading_messages: expect.arrayContaining(['Thinking…']),
    });
    // The model saw the text without the bot's mention.
    const firstPrompt = rig.llm.requestsTo('/chat/completions')[0]!.body.messages as {
      role: string;
      content: string;
    }[];
    expect(firstPrompt.at(-1)).toEqual({ role: 'user', content: 'Hey' });

    // A later message in that thread reaches the bot with no new mention.
    rig.llm.script({ text: 'Still raining.' });
    await postEvent(rig.eventsUrl, followUp!, sign());
    await rig.delivered(before + 2);
    const replies = rig.slack.threadReplies('C00FAKECHAN1', ts);
    expect(replies.map((m) => m.text)).toEqual(['It is **18°** and raining in Oslo.', 'Still raining.']);
    const history = rig.llm.lastRequest('/chat/completions')!.body.messages as { content: unknown }[];
    expect(history.map((m) => m.content)).toContain('It is **18°** and raining in Oslo.');
  });

  it('ignores channel chatter, other bots, edits and deletions', async () => {
    const { promptMessage } = fixture('streaming.slack.json');
    const events = [
      eventBody({
        type: 'message',
        user: 'U0HUMAN1',
        ts: freshTs(),
        text: 'just chatting',
        channel: 'C0CHAN1',
        channel_type: 'channel',
      }),
      eventBody({
        type: 'message',
        user: 'U0HUMAN1',
        ts: freshTs(),
        thread_ts: freshTs(),
        text: 'unfollowed thread',
        channel: 'C0CHAN1',
        channel_type: 'channel',
      }),
      promptMessage!,
      eventBody({
        type: 'message',
        subtype: 'message_changed',
        channel: 'C0CHAN1',
        ts: freshTs(),
        message: { text: `<@${BOT_USER}> edited` },
      }),
      eventBody({ type: 'message', subtype: 'message_deleted', channel: 'C0CHAN1', ts: freshTs(), deleted_ts: '1.2' }),
      eventBody({
        type: 'app_mention',
        bot_id: 'B0OTHER',
        user: 'U0OTHERBOT',
        ts: freshTs(),
        text: `<@${BOT_USER}> from a bot`,
        channel: 'C0CHAN1',
      }),
      eventBody({
        type: 'message',
        user: BOT_USER,
        bot_id: rig.slack.options.botId,
        ts: freshTs(),
        text: `our own <@${BOT_USER}>`,
        channel: 'D0DM9',
        channel_type: 'im',
      }),
    ];
    for (const body of events) expect((await postEvent(rig.eventsUrl, body, sign())).status).toBe(200);
    await inboxIdle(rig.h.sb.inbox);
    expect(rig.llm.requestsTo('/chat/completions')).toHaveLength(0);
    expect(rig.slack.messages).toHaveLength(0);
  });

  it('answers exactly once: Slack retries and the app_mention + message twins of one post', async () => {
    const before = rig.deliveredCount();
    rig.llm.script({ text: 'Only once.' }); // strict: a second answer would be a call past the script
    const post = mention('twice?', { client_msg_id: 'cmid-1' });
    const first = eventBody(post);
    await postEvent(rig.eventsUrl, first, sign());
    // The same event retried (same event_id), and the message.channels twin (its own event_id).
    await postEvent(rig.eventsUrl, first, sign({ retryNum: 1, retryReason: 'http_timeout' }));
    await postEvent(rig.eventsUrl, first, sign({ retryNum: 2, retryReason: 'http_timeout' }));
    await postEvent(rig.eventsUrl, eventBody({ ...post, type: 'message', channel_type: 'channel' }), sign());
    await rig.delivered(before + 1);
    await inboxIdle(rig.h.sb.inbox);
    expect(rig.deliveredCount()).toBe(before + 1);
    expect(rig.llm.requestsTo('/chat/completions')).toHaveLength(1);
    expect(rig.slack.threadReplies('C0CHAN1', post.ts).map((m) => m.text)).toEqual(['Only once.']);
    expect(rig.h.logs.lines.filter((l) => l.msg === 'slack duplicate event dropped')).toHaveLength(3);
  });

  it('reads a recorded mention with a channel reference as plain text, and shows a failed tool as an error task', async () => {
    const { mention: recorded } = fixture('channel-mention.slack.json');
    const before = rig.deliveredCount();
    rig.llm.script({ toolCalls: [{ name: 'broken_lookup', arguments: {} }] }, { text: 'I could not look that up.' });
    await postEvent(rig.eventsUrl, recorded!, sign());
    await rig.delivered(before + 1);
    const first = rig.llm.requestsTo('/chat/completions')[0]!.body.messages as { content: string }[];
    expect(first.at(-1)!.content).toBe('Can you see the name of this channel: #C00FAKECHAN2?');
    const [stream] = streamsIn('C00FAKECHAN1', (recorded!.event as { ts: string }).ts);
    const tasks = stream!.stream!.chunks.filter((c) => c.type === 'task_update');
    expect(tasks.map((c) => c.status)).toEqual(['in_progress', 'error']);
    // The tool's internal error (with its secret) never reaches Slack.
    expect(JSON.stringify(rig.slack.calls)).not.toContain('hunter2');
  });

  it('rides out Slack rate limiting (429 + Retry-After) and still answers once', async () => {
    rig.slack.failNext('chat.postMessage', { status: 429, retryAfter: 0 }, 2);
    const before = rig.deliveredCount();
    rig.llm.script({ text: 'Eventually.' });
    const post = mention('rate limited?');
    await postEvent(rig.eventsUrl, eventBody(post), sign());
    await rig.delivered(before + 1);
    expect(rig.slack.callsTo('chat.postMessage')).toHaveLength(3);
    expect(rig.slack.threadReplies('C0CHAN1', post.ts).map((m) => m.text)).toEqual(['Eventually.']);
  });

  it('answers a recorded DM in a thread under the message', async () => {
    const { directDM } = fixture('dm.slack-direct.json');
    const before = rig.deliveredCount();
    rig.llm.script({ text: 'Hello there!' });
    await postEvent(rig.eventsUrl, directDM!, sign());
    await rig.delivered(before + 1);
    const ts = (directDM!.event as { ts: string }).ts;
    expect(rig.slack.threadReplies('D0ACX51K95H', ts)).toMatchObject([{ thread_ts: ts, text: 'Hello there!' }]);
    const system = (rig.llm.lastRequest('/chat/completions')!.body.messages as { content: string }[])[0]!.content;
    expect(system).toContain('Slack direct message');
  });

  it('runs an AI-app thread: greeting with suggested prompts, then title, status and a streamed answer', async () => {
    const channel = 'D0ASSIST1';
    const threadTs = freshTs();
    await postEvent(
      rig.eventsUrl,
      eventBody({
        type: 'assistant_thread_started',
        assistant_thread: { user_id: 'U0HUMAN1', context: {}, channel_id: channel, thread_ts: threadTs },
        event_ts: threadTs,
      }),
      sign(),
    );
    await rig.slack.waitFor(
      () => rig.slack.callsTo('assistant.threads.setSuggestedPrompts').length === 1,
      'suggested prompts',
    );
    const prompts = rig.slack.callsTo('assistant.threads.setSuggestedPrompts')[0]!.args;
    expect(prompts).toMatchObject({ channel_id: channel, thread_ts: threadTs });
    expect((prompts.prompts as unknown[]).length).toBeLessThanOrEqual(4);
    expect(rig.slack.threadReplies(channel, threadTs)[0]!.text).toContain('Switchboard');

    const before = rig.deliveredCount();
    rig.llm.script({ text: 'Streaming this answer word by word for you.', chunkDelayMs: 15 });
    await postEvent(
      rig.eventsUrl,
      eventBody({
        type: 'message',
        user: 'U0HUMAN1',
        ts: freshTs(),
        thread_ts: threadTs,
        text: 'What changed in   our pricing?',
        channel,
        channel_type: 'im',
      }),
      sign(),
    );
    await rig.delivered(before + 1);
    expect(rig.slack.callsTo('assistant.threads.setTitle')[0]!.args).toMatchObject({
      title: 'What changed in our pricing?',
    });
    expect(rig.slack.callsTo('assistant.threads.setStatus').length).toBeGreaterThan(0);
    const [stream] = streamsIn(channel, threadTs);
    expect(stream!.stream).toMatchObject({
      state: 'completed',
      markdown: 'Streaming this answer word by word for you.',
    });
    expect(rig.slack.callsTo('chat.appendStream').length).toBeGreaterThan(0);
  });

  it('acks /ask at once and answers in a thread under a visible root message', async () => {
    const { slashCommandWithArgs } = fixture('slash-commands.slack.json');
    const before = rig.deliveredCount();
    rig.llm.script({ text: 'Forty-two.' });
    const res = await postCommand(
      rig.eventsUrl,
      {
        ...(slashCommandWithArgs as Record<string, string>),
        command: '/ask',
        text: 'what is the answer?',
        response_url: rig.slack.responseUrl(),
      },
      sign(),
    );
    expect(res.status).toBe(200);
    await rig.delivered(before + 1);
    const [root, answer] = rig.slack.messages;
    expect(root).toMatchObject({ channel: 'C00FAKECHAN3', thread_ts: undefined });
    expect(root!.text).toContain('what is the answer?');
    expect(answer).toMatchObject({ thread_ts: root!.ts, text: 'Forty-two.' });
    const sent = rig.llm.lastRequest('/chat/completions')!.body.messages as { role: string; content: string }[];
    expect(sent.at(-1)).toEqual({ role: 'user', content: 'what is the answer?' });
  });

  it('routes a button click from our blocks back to the core and answers in the same thread', async () => {
    const { channel_post_action } = fixture('channel.slack.json');
    const payload = structuredClone(channel_post_action!) as {
      actions: Record<string, unknown>[];
      response_url: string;
    };
    payload.actions[0] = { ...payload.actions[0], action_id: 'campaigns.more#2', value: '2' };
    payload.response_url = rig.slack.responseUrl();
    const before = rig.deliveredCount();
    const res = await postInteraction(rig.eventsUrl, payload, sign());
    expect(res.status).toBe(200);
    await rig.delivered(before + 1);
    const [reply] = rig.slack.threadReplies('C00FAKECHAN1', '1771287144.743569');
    expect(reply!.text).toBe('Page 2');
    expect(JSON.stringify(reply!.blocks)).toContain('*Autumn promo*');
    expect(rig.llm.requestsTo('/chat/completions')).toHaveLength(0);
  });

  it('falls back to post + update (at most once per update interval) where streaming is unavailable', async () => {
    rig.slack.disableStreaming();
    const before = rig.deliveredCount();
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    // About 1.6 s of streamed text: several live updates at the rig's interval (300 ms; 1 s by default).
    rig.llm.script({ toolCalls: [{ name: 'get_time', arguments: { tz: 'UTC' } }] }, { text: words, chunkDelayMs: 40 });
    const post = mention('slowly please');
    await postEvent(rig.eventsUrl, eventBody(post), sign());
    await rig.delivered(before + 1);
    const messages = rig.slack.threadReplies('C0CHAN1', post.ts);
    expect(messages).toHaveLength(1);
    expect(messages[0]!.blocks).toEqual([{ type: 'markdown', text: words }]);
    // The live message's updates, the final one aside (it goes out as soon as the answer is whole).
    const live = rig.slack.callsTo('chat.update').slice(0, -1);
    expect(live.length).toBeGreaterThanOrEqual(3);
    const gaps = live.slice(1).map((call, i) => call.at - live[i]!.at);
    // Timer tolerance: a few ms early at most.
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(RIG_UPDATE_INTERVAL_MS - 25);
    expect(
      rig.h.logs.lines.some(
        (l) => l.msg === 'slack streaming unavailable; falling back to post and update' && l.code === 'unknown_method',
      ),
    ).toBe(true);
  });

  it('keeps the streamed message when streaming breaks mid-answer, finishing it by update', async () => {
    rig.slack.failNext('chat.appendStream', { error: 'internal_error' });
    const before = rig.deliveredCount();
    rig.llm.script({ toolCalls: [{ name: 'get_time', arguments: { tz: 'UTC' } }] }, { text: 'Noon, give or take.' });
    const post = mention('time?');
    await postEvent(rig.eventsUrl, eventBody(post), sign());
    await rig.delivered(before + 1);
    const messages = rig.slack.threadReplies('C0CHAN1', post.ts);
    expect(messages).toHaveLength(1);
    expect(messages[0]!.stream?.state).toBe('completed');
    expect(messages[0]!.updates).toBeGreaterThan(0);
    expect(messages[0]!.blocks).toEqual([{ type: 'markdown', text: 'Noon, give or take.' }]);
  });

  it('posts a clear error in the thread when the turn fails', async () => {
    rig.llm.failNext(1, 500);
    const before = rig.deliveredCount();
    const post = mention('will fail');
    await postEvent(rig.eventsUrl, eventBody(post), sign());
    await rig.delivered(before + 1);
    const [notice] = rig.slack.threadReplies('C0CHAN1', post.ts);
    expect(notice!.text).toMatch(/language model/);
    expect(JSON.stringify(notice!.blocks)).toContain(':warning:');
  });

  it('explains privately when it is not in the channel, and logs the Slack error code', async () => {
    rig.slack.notInChannel('C0PRIVATE');
    const responseUrl = rig.slack.responseUrl();
    await postCommand(
      rig.eventsUrl,
      {
        command: '/ask',
        text: 'anyone?',
        user_id: 'U0HUMAN1',
        channel_id: 'C0PRIVATE',
        team_id: 'T0FAKETEAM',
        trigger_id: `tr-${freshTs()}`,
        response_url: responseUrl,
      },
      sign(),
    );
    await rig.slack.waitFor(() => rig.slack.responses.length === 1, 'an ephemeral explanation');
    expect(rig.slack.responses[0]!.body).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringContaining('/invite @Switchboard'),
    });
    expect(rig.h.logs.lines.some((l) => l.code === 'not_in_channel')).toBe(true);
    expect(rig.llm.requestsTo('/chat/completions')).toHaveLength(0);
  });

  it('continues a very long streamed answer in further messages, within the markdown budget', async () => {
    const before = rig.deliveredCount();
    const long = Array.from({ length: 1_400 }, (_, i) => `Sentence ${i} is here.`).join(' ');
    rig.llm.script({ text: long });
    const post = mention('write a lot');
    await postEvent(rig.eventsUrl, eventBody(post), sign());
    await rig.delivered(before + 1);
    const [streamed, ...more] = rig.slack.threadReplies('C0CHAN1', post.ts);
    expect(streamed!.stream!.markdown.length).toBeLessThanOrEqual(12_000);
    expect(more.length).toBeGreaterThan(0);
    // Continuations are streams of their own (issue 46); a finished post's text is in its markdown blocks.
    for (const m of more) expect(m.stream?.markdown.length ?? 0).toBeLessThanOrEqual(12_000);
    const continued = more.flatMap((m) =>
      m.stream
        ? [m.stream.markdown]
        : ((m.blocks ?? []) as { type: string; text?: string }[])
            .filter((b) => b.type === 'markdown')
            .map((b) => b.text),
    );
    const shown = [streamed!.stream!.markdown, ...continued].join(' ').replace(/\s+/g, ' ');
    // Nothing lost, nothing repeated (compared by length first to keep a failure readable).
    expect(shown.length).toBe(long.length);
    expect(shown === long).toBe(true);
  });

  it('uploads a tool’s file into the thread with the files upload flow', async () => {
    const before = rig.deliveredCount();
    rig.llm.script({ toolCalls: [{ name: 'make_report', arguments: {} }] }, { text: 'Here is your report.' });
    const post = mention('report please');
    await postEvent(rig.eventsUrl, eventBody(post), sign());
    await rig.delivered(before + 1);
    expect(rig.slack.callsTo('files.getUploadURLExternal')[0]!.args).toMatchObject({
      filename: 'report.csv',
      length: '11',
    });
    expect(rig.slack.uploads).toEqual([{ fileId: expect.any(String), bytes: expect.any(Number) }]);
    const complete = rig.slack.callsTo('files.completeUploadExternal')[0]!.args;
    expect(complete).toMatchObject({
      channel_id: 'C0CHAN1',
      thread_ts: post.ts,
      initial_comment: 'a,b\n1,2',
      files: [{ id: rig.slack.uploads[0]!.fileId, title: 'Report' }],
    });
  });
});
