/**
 * Slack's Agent messaging experience (issue 42, item 3), through the real app over signed HTTP:
 * `app_home_opened` with `tab: "messages"` starts the conversation as `assistant_thread_started`
 * does for `assistant_view` apps (a greeting the first time, suggested prompts for the DM without
 * a thread_ts, each retry answered once); a message in that DM is then a turn with its status;
 * `assistant_thread_started` (apps still on `assistant_view`) keeps working.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventBody, freshTs, postEvent, sign, startSlackRig, type SlackRig } from './setup.js';

let rig: SlackRig;
beforeAll(async () => {
  rig = await startSlackRig({ mode: 'http' });
});
afterAll(() => rig.close());
beforeEach(() => {
  rig.llm.reset();
  rig.slack.reset();
});

const opened = (channel: string, tab: string, eventId?: string) =>
  eventBody({ type: 'app_home_opened', user: 'U0AGENT1', channel, tab, event_ts: freshTs() }, { eventId });

describe('the agent messaging view (agent_view)', () => {
  it('greets once and sets the suggested prompts when the Messages tab opens; a retry of the event does nothing more', async () => {
    const channel = 'D0AGENT01';
    const first = opened(channel, 'messages');
    expect((await postEvent(rig.eventsUrl, first, sign())).status).toBe(200);
    await rig.slack.waitFor(() => rig.slack.callsTo('assistant.threads.setSuggestedPrompts').length === 1, 'prompts');
    const prompts = rig.slack.callsTo('assistant.threads.setSuggestedPrompts')[0]!.args;
    expect(prompts).toMatchObject({ channel_id: channel, title: 'Try one of these' });
    expect(prompts.thread_ts).toBeUndefined(); // agent_view: a call with thread_ts silently fails
    expect((prompts.prompts as unknown[]).length).toBe(4);
    await rig.slack.waitFor(() => rig.slack.messages.some((m) => m.channel === channel), 'the greeting');
    expect(rig.slack.messages.filter((m) => m.channel === channel)).toMatchObject([
      { text: expect.stringContaining('I’m Switchboard') },
    ]);

    // Slack retries the same event: nothing more. The person opens the tab again later: prompts, no second greeting.
    await postEvent(rig.eventsUrl, first, sign({ retryNum: 1, retryReason: 'http_timeout' }));
    await postEvent(rig.eventsUrl, opened(channel, 'messages'), sign());
    await rig.slack.waitFor(() => rig.slack.callsTo('assistant.threads.setSuggestedPrompts').length === 2, 'prompts');
    expect(rig.slack.callsTo('chat.postMessage').filter((c) => c.args.channel === channel)).toHaveLength(1);

    // The person writes in the DM: a turn, with the status shown while it works.
    rig.llm.script({ text: 'Here is what I can do.' });
    const before = rig.deliveredCount();
    const ts = freshTs();
    await postEvent(
      rig.eventsUrl,
      eventBody({ type: 'message', user: 'U0AGENT1', ts, text: 'what can you do?', channel, channel_type: 'im' }),
      sign(),
    );
    await rig.delivered(before + 1);
    expect(rig.slack.callsTo('assistant.threads.setStatus')[0]!.args).toMatchObject({
      channel_id: channel,
      thread_ts: ts,
    });
    expect(rig.slack.threadReplies(channel, ts).at(-1)?.text).toContain('Here is what I can do.');
  });

  it('leaves the Home tab to its own view, and an assistant_view app’s new thread to assistant_thread_started', async () => {
    await postEvent(rig.eventsUrl, opened('D0AGENT02', 'home'), sign());
    await rig.slack.waitFor(() => rig.slack.callsTo('views.publish').length === 1, 'the Home view');
    expect(rig.slack.callsTo('assistant.threads.setSuggestedPrompts')).toHaveLength(0);

    const threadTs = freshTs();
    await postEvent(
      rig.eventsUrl,
      eventBody({
        type: 'assistant_thread_started',
        assistant_thread: { user_id: 'U0AGENT1', context: {}, channel_id: 'D0ASSIST2', thread_ts: threadTs },
        event_ts: threadTs,
      }),
      sign(),
    );
    await rig.slack.waitFor(() => rig.slack.callsTo('assistant.threads.setSuggestedPrompts').length === 1, 'prompts');
    expect(rig.slack.callsTo('assistant.threads.setSuggestedPrompts')[0]!.args).toMatchObject({
      channel_id: 'D0ASSIST2',
      thread_ts: threadTs,
    });
  });
});
