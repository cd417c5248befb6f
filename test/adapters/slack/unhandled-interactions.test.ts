/**
 * Every Slack interaction is acknowledged at once, through the real app (Bolt over HTTP and Socket
 * Mode, the fake Slack): a modal submit, a shortcut and a select menu's options request that
 * nothing of ours handles get their 200 (never Bolt's 404 after 3 s, which Slack shows its user as
 * an error); a click on a select menu that is not ours gets a private note naming it, and no turn.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, postInteraction, sign, startSlackRig, type SlackRig } from './setup.js';

const user = { id: 'U0HUMAN1', username: 'human', name: 'human', team_id: 'T0FAKETEAM' };
const team = { id: 'T0FAKETEAM', domain: 'fake' };
const shortcut = {
  type: 'shortcut',
  token: 'x',
  action_ts: '1767326200.000001',
  team,
  user,
  callback_id: 'someone_elses_shortcut',
  trigger_id: '1.2.shortcut',
};
const optionsRequest = {
  type: 'block_suggestion',
  token: 'x',
  action_id: 'pick_customer',
  block_id: 'b1',
  value: 'acm',
  api_app_id: 'A0FAKEAPP',
  team,
  user,
  container: { type: 'view', view_id: 'V0FAKE' },
};
const viewSubmission = () => fixture('slash-commands.slack.json').viewSubmission!;

describe('Slack over HTTP: interactions nothing of ours handles', () => {
  let rig: SlackRig;
  beforeAll(async () => {
    rig = await startSlackRig({ mode: 'http' });
  }, 60_000);
  afterAll(() => rig?.close());

  it('a modal submit gets its 200 at once, with an empty body (the modal closes), and one debug line', async () => {
    const res = await postInteraction(rig.eventsUrl, viewSubmission(), sign());
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    expect(rig.h.logs.lines.filter((l) => l.msg === 'slack view submission acknowledged; nothing handles it')).toEqual([
      expect.objectContaining({ level: 20, callbackId: 'feedback_form' }),
    ]);
    expect(rig.h.logs.lines.filter((l) => Number(l.level) >= 50)).toEqual([]);
  });

  it('a shortcut gets its 200', async () => {
    const res = await postInteraction(rig.eventsUrl, shortcut, sign());
    expect(res.status).toBe(200);
  });

  it('an options request gets a 200 with no options', async () => {
    const res = await postInteraction(rig.eventsUrl, optionsRequest, sign());
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ options: [] });
  });

  it('a click on a select menu that is not ours gets a private note naming it, and runs no turn', async () => {
    const { staticSelectAction } = fixture('actions-reactions.slack.json');
    const payload = structuredClone(staticSelectAction!) as {
      actions: Record<string, unknown>[];
      response_url: string;
    };
    payload.actions[0] = { ...payload.actions[0], action_id: 'other_app_menu' };
    payload.response_url = rig.slack.responseUrl();
    const res = await postInteraction(rig.eventsUrl, payload, sign());
    expect(res.status).toBe(200);
    await rig.slack.waitFor(() => rig.slack.responses.length > 0, 'the private note');
    expect(rig.slack.responses.map((r) => r.body)).toEqual([
      { response_type: 'ephemeral', replace_original: false, text: 'That select menu isn’t one of mine.' },
    ]);
    expect(rig.slack.callsTo('chat.postMessage')).toEqual([]);
    expect(rig.llm.requestsTo('/chat/completions')).toHaveLength(0);
  });
});

describe('Slack over Socket Mode: interactions nothing of ours handles', () => {
  let rig: SlackRig;
  beforeAll(async () => {
    rig = await startSlackRig({ mode: 'socket' });
  }, 60_000);
  afterAll(() => rig?.close());

  it('a modal submit, a shortcut and an options request are each acked', async () => {
    const socket = rig.slack.socket!;
    const submitted = await socket.deliver('interactive', viewSubmission(), { timeoutMs: 2_000 });
    expect(submitted.envelope_id).toBeTruthy();
    await socket.deliver('interactive', shortcut, { timeoutMs: 2_000 });
    const options = await socket.deliver('interactive', optionsRequest, { timeoutMs: 2_000 });
    expect(options.payload).toEqual({ options: [] });
  });
});
