import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { invalidBlockPayloads } from '../../fakes/slack/block-kit.js';
import { testTools } from '../../helpers/test-tools.js';
import { eventBody, fixture, freshTs, mention, startSlackRig, type SlackRig } from './setup.js';
import { inboxIdle } from '../../helpers/inbox-idle.js';

let rig: SlackRig;
beforeAll(async () => {
  rig = await startSlackRig({ mode: 'socket', tools: testTools });
});
afterAll(() => rig.close());
beforeEach(() => {
  rig.llm.reset();
  rig.slack.reset();
});
afterEach(() => expect(invalidBlockPayloads(rig.slack)).toEqual([]));

const socket = () => rig.slack.socket!;

describe('Slack over Socket Mode', () => {
  it('connected with the app token through apps.connections.open and the hello handshake', () => {
    expect(socket().connections).toBe(1);
    expect(socket().open).toBe(1);
    expect(rig.h.logs.lines.some((l) => l.msg === 'Slack connected over Socket Mode')).toBe(true);
  });

  it('acks a recorded app_mention envelope and streams the answer into its thread, then follows the thread', async () => {
    const { mention: recorded } = fixture('channel.slack.json');
    const before = rig.deliveredCount();
    rig.llm.script({ toolCalls: [{ name: 'get_time', arguments: { tz: 'UTC' } }] }, { text: 'It is noon.' });
    const ack = await socket().deliver('events_api', recorded!);
    expect(ack).toEqual({ envelope_id: expect.any(String), payload: {} });
    await rig.delivered(before + 1);
    const ts = (recorded!.event as { ts: string }).ts;
    const [stream] = rig.slack.threadReplies('C00FAKECHAN1', ts);
    expect(stream).toMatchObject({ thread_ts: ts, stream: { state: 'completed', markdown: 'It is noon.' } });

    rig.llm.script({ text: 'Yes, still noon.' });
    await socket().deliver(
      'events_api',
      eventBody(
        {
          type: 'message',
          user: 'U00FAKEUSER1',
          ts: freshTs(),
          thread_ts: ts,
          text: 'sure?',
          channel: 'C00FAKECHAN1',
          channel_type: 'channel',
        },
        { team: 'T00FAKE00AA' },
      ),
    );
    await rig.delivered(before + 2);
    expect(rig.slack.threadReplies('C00FAKECHAN1', ts).map((m) => m.text)).toEqual(['It is noon.', 'Yes, still noon.']);
  });

  it('answers a redelivered envelope (retry_attempt) once', async () => {
    const before = rig.deliveredCount();
    rig.llm.script({ text: 'Once.' }); // strict: a second answer would be a call past the script
    const body = eventBody(mention('hi'));
    await socket().deliver('events_api', body);
    await socket().deliver('events_api', body, { retryAttempt: 1, retryReason: 'timeout' });
    await rig.delivered(before + 1);
    await inboxIdle(rig.h.sb.inbox);
    expect(rig.deliveredCount()).toBe(before + 1);
    expect(rig.llm.requestsTo('/chat/completions')).toHaveLength(1);
  });

  it('acks a slash command envelope at once and answers /quote in a thread', async () => {
    const { slashCommandWithArgs } = fixture('slash-commands.slack.json');
    const before = rig.deliveredCount();
    rig.llm.script({ text: 'Here is a premium quote.' });
    const ack = await socket().deliver('slash_commands', {
      ...slashCommandWithArgs,
      command: '/quote',
      text: 'premium 3 laptops with support',
      response_url: rig.slack.responseUrl(),
    });
    expect(ack.envelope_id).toEqual(expect.any(String));
    await rig.delivered(before + 1);
    const [root, answer] = rig.slack.messages;
    expect(answer).toMatchObject({ thread_ts: root!.ts, text: 'Here is a premium quote.' });
    const sent = rig.llm.lastRequest('/chat/completions')!.body.messages as { role: string; content: string }[];
    expect(sent.at(-1)).toEqual({ role: 'user', content: 'Draft a premium quote: 3 laptops with support' });
  });

  it('routes an interactive envelope (a recorded select) to the core: a suggestion becomes the next message', async () => {
    const { staticSelectAction } = fixture('actions-reactions.slack.json');
    const payload = structuredClone(staticSelectAction!) as {
      actions: Record<string, unknown>[];
      response_url: string;
    };
    payload.actions[0] = { ...payload.actions[0], action_id: 'suggest.next' };
    payload.response_url = rig.slack.responseUrl();
    const before = rig.deliveredCount();
    rig.llm.script({ text: 'Hello to you too!' });
    await socket().deliver('interactive', payload);
    await rig.delivered(before + 1);
    const sent = rig.llm.lastRequest('/chat/completions')!.body.messages as { role: string; content: string }[];
    expect(sent.at(-1)).toEqual({ role: 'user', content: 'greet' });
    expect(rig.slack.threadReplies('C00FAKECHAN1', '1767326125.870439').map((m) => m.text)).toEqual([
      'Hello to you too!',
    ]);
  });

  it('answers a DM and an AI-app thread, and ignores reactions', async () => {
    const { reaction } = fixture('actions-reactions.slack.json');
    await socket().deliver('events_api', reaction!);
    const before = rig.deliveredCount();
    rig.llm.script({ text: 'Hi in DM.' }, { text: 'Hi in the assistant thread.' });
    const dm = {
      type: 'message',
      user: 'U0HUMAN1',
      ts: freshTs(),
      text: 'hello',
      channel: 'D0DM1',
      channel_type: 'im',
    };
    await socket().deliver('events_api', eventBody(dm));
    const threadTs = freshTs();
    await socket().deliver(
      'events_api',
      eventBody({
        type: 'assistant_thread_started',
        assistant_thread: { user_id: 'U0HUMAN1', context: {}, channel_id: 'D0DM1', thread_ts: threadTs },
        event_ts: threadTs,
      }),
    );
    await socket().deliver(
      'events_api',
      eventBody({
        type: 'message',
        user: 'U0HUMAN1',
        ts: freshTs(),
        thread_ts: threadTs,
        text: 'a question',
        channel: 'D0DM1',
        channel_type: 'im',
      }),
    );
    await rig.delivered(before + 2);
    expect(rig.slack.threadReplies('D0DM1', dm.ts).map((m) => m.text)).toEqual(['Hi in DM.']);
    const assistantThread = rig.slack.threadReplies('D0DM1', threadTs).map((m) => m.text);
    expect(assistantThread).toHaveLength(2);
    expect(assistantThread[1]).toBe('Hi in the assistant thread.');
    expect(rig.slack.callsTo('assistant.threads.setSuggestedPrompts')).toHaveLength(1);
    expect(rig.llm.requestsTo('/chat/completions')).toHaveLength(2);
  });

  it('reconnects after Slack asks it to (disconnect) and keeps answering', async () => {
    const connections = socket().connections;
    socket().disconnect('refresh_requested');
    await socket().waitForConnections(connections + 1);
    expect(rig.slack.callsTo('apps.connections.open').length).toBeGreaterThan(0);
    const before = rig.deliveredCount();
    rig.llm.script({ text: 'Back again.' });
    const post = mention('still there?');
    await socket().deliver('events_api', eventBody(post));
    await rig.delivered(before + 1);
    expect(rig.slack.threadReplies('C0CHAN1', post.ts).map((m) => m.text)).toEqual(['Back again.']);
  });
});
