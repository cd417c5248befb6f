/**
 * Payload shapes that real workspaces send and that once went wrong, replayed over signed HTTP
 * through the real app.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sentMessages } from '../../helpers/harness.js';
import {
  eventBody,
  fixture,
  freshTs,
  postEvent,
  postInteraction,
  sign,
  startSlackRig,
  type SlackRig,
} from './setup.js';

let rig: SlackRig;
beforeAll(async () => {
  rig = await startSlackRig({ mode: 'http' });
});
afterAll(() => rig.close());
beforeEach(() => {
  rig.llm.reset();
  rig.slack.reset();
});

describe('Slack events that are not a person talking to the bot', () => {
  it('leaves Slackbot’s notices in a DM unanswered (user USLACKBOT, no bot_id), and answers the person next', async () => {
    const before = rig.deliveredCount();
    rig.llm.script({ text: 'Hi Ana.' });
    const notice = eventBody({
      type: 'message',
      user: 'USLACKBOT',
      ts: freshTs(),
      text: 'You have been removed from #testing by <@U0ADMIN1>',
      channel: 'D0SLACKBOT',
      channel_type: 'im',
    });
    expect((await postEvent(rig.eventsUrl, notice, sign())).status).toBe(200);
    const ts = freshTs();
    const person = eventBody({
      type: 'message',
      user: 'U0ANA',
      ts,
      text: 'hello',
      channel: 'D0ANA',
      channel_type: 'im',
    });
    expect((await postEvent(rig.eventsUrl, person, sign())).status).toBe(200);
    await rig.delivered(before + 1);
    const asked = rig.llm.requestsTo('/chat/completions').map((r) => sentMessages(r.body).at(-1)?.content);
    expect(asked).toEqual([expect.stringContaining('hello')]);
    expect(rig.slack.messages.filter((m) => m.channel === 'D0SLACKBOT')).toEqual([]);
  });
});

describe('Slack clicks on a message only the clicker sees', () => {
  it('answers a button on an ephemeral message through its response_url, privately, not in a thread of the ephemeral’s ts', async () => {
    const { channel_post_action } = fixture('channel.slack.json');
    const payload = structuredClone(channel_post_action!) as {
      actions: Record<string, unknown>[];
      container: Record<string, unknown>;
      response_url: string;
    };
    payload.actions[0] = { ...payload.actions[0], action_id: 'campaigns.more#2', value: '2' };
    payload.container = { ...payload.container, is_ephemeral: true };
    payload.response_url = rig.slack.responseUrl();
    expect((await postInteraction(rig.eventsUrl, payload, sign())).status).toBe(200);
    await rig.slack.waitFor(() => rig.slack.responses.length > 0, 'the answer through response_url');
    const [answer] = rig.slack.responses;
    expect(answer!.body).toMatchObject({
      response_type: 'ephemeral',
      replace_original: false,
      text: 'Page 2',
      unfurl_links: false,
      unfurl_media: false,
    });
    expect(JSON.stringify(answer!.body.blocks)).toContain('*Autumn promo*');
    expect(rig.slack.callsTo('chat.postMessage')).toEqual([]);
    expect(rig.slack.messages).toEqual([]);
  });
});
