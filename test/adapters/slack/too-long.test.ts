/**
 * A Slack message or command over MAX_MESSAGE_CHARS is refused where it comes in: a notice in
 * its thread (a command's privately), a structured log line, and no turn: the strict fake LLM
 * is scripted with nothing, so a turn would fail the test.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_MESSAGE_CHARS } from '../../../src/contract/turn.js';
import { fixture, eventBody, mention, postCommand, postEvent, sign, startSlackRig, type SlackRig } from './setup.js';
import { inboxIdle } from '../../helpers/inbox-idle.js';

let rig: SlackRig;
beforeAll(async () => {
  rig = await startSlackRig({ mode: 'http' });
});
afterAll(() => rig.close());
beforeEach(() => {
  rig.llm.reset();
  rig.slack.reset();
});

const refusals = () => rig.h.logs.lines.filter((l) => l.msg === 'slack message over the length limit refused');

describe('Slack messages over the length limit', () => {
  it('answers a long mention with a notice in its thread, once, without running a turn', async () => {
    // Chinese prose without a space: the kind of text that froze the replica.
    const post = mention('长'.repeat(MAX_MESSAGE_CHARS + 5_000));
    const chars = post.text.length;
    const body = eventBody(post);
    const res = await postEvent(rig.eventsUrl, body, sign());
    expect(res.status).toBe(200);
    // A retry and the message.channels twin of the same post post nothing more.
    await postEvent(rig.eventsUrl, body, sign({ retryNum: 1, retryReason: 'http_timeout' }));
    await postEvent(rig.eventsUrl, eventBody({ ...post, type: 'message', channel_type: 'channel' }), sign());
    await rig.slack.waitFor(() => rig.slack.threadReplies('C0CHAN1', post.ts).length > 0, 'the notice');
    await inboxIdle(rig.h.sb.inbox);
    const replies = rig.slack.threadReplies('C0CHAN1', post.ts);
    expect(replies).toHaveLength(1);
    expect(replies[0]!.text).toContain(`That message is ${chars.toLocaleString('en-US')} characters long`);
    expect(replies[0]!.text).toContain('at most 20,000');
    expect(rig.llm.requestsTo('/chat/completions')).toHaveLength(0);
    expect(refusals()).toHaveLength(1);
    expect(refusals()[0]).toMatchObject({ level: 30, chars, limit: MAX_MESSAGE_CHARS, channel: 'C0CHAN1' });
    // The text itself is neither logged nor echoed.
    expect(JSON.stringify(rig.h.logs.lines)).not.toContain('长长长');
  });

  it('still answers a mention of exactly the limit', async () => {
    rig.llm.script({ text: 'Read it all.' });
    const prefix = mention('').text;
    const post = mention('word '.repeat(MAX_MESSAGE_CHARS).slice(0, MAX_MESSAGE_CHARS - prefix.length));
    expect(post.text.length).toBe(MAX_MESSAGE_CHARS);
    const before = rig.deliveredCount();
    await postEvent(rig.eventsUrl, eventBody(post), sign());
    await rig.delivered(before + 1);
    expect(rig.slack.threadReplies('C0CHAN1', post.ts).map((m) => m.text)).toEqual(['Read it all.']);
  });

  it('answers a long /ask privately in its acknowledgement', async () => {
    const { slashCommandWithArgs } = fixture('slash-commands.slack.json');
    const text = '['.repeat(MAX_MESSAGE_CHARS + 1);
    const res = await postCommand(
      rig.eventsUrl,
      {
        ...(slashCommandWithArgs as Record<string, string>),
        command: '/ask',
        text,
        response_url: rig.slack.responseUrl(),
      },
      sign(),
    );
    expect(res.status).toBe(200);
    const ack = (await res.json()) as { response_type: string; text: string };
    expect(ack.response_type).toBe('ephemeral');
    expect(ack.text).toContain('That message is 20,001 characters long');
    await inboxIdle(rig.h.sb.inbox);
    expect(rig.slack.messages).toHaveLength(0);
    expect(rig.llm.requestsTo('/chat/completions')).toHaveLength(0);
    expect(rig.h.logs.lines.some((l) => l.msg === 'slack command over the length limit refused')).toBe(true);
  });
});
