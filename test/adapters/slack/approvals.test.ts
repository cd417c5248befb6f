/**
 * Issue 43 on Slack (HTTP mode, signed events and interactions, the fake Web API, PGlite): a
 * `write` call posts an approval message with Approve / Deny buttons in the thread and runs
 * nothing; a stranger's click gets a private "only … can approve this"; the asker's Approve runs
 * the call once and the answer follows in the same thread; a second click runs nothing; Deny
 * tells the model.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AdminDataPort } from '../../../src/data/index.js';
import { openPgliteTestPort } from '../../helpers/db.js';
import { sentMessages } from '../../helpers/harness.js';
import {
  eventBody,
  freshTs,
  mention,
  postEvent,
  postInteraction,
  sign,
  startSlackRig,
  type SlackRig,
} from './setup.js';
import { createNoteTool } from '../../helpers/note-tool.js';

const { tool: noteTool, written } = createNoteTool();

let port: AdminDataPort;
let rig: SlackRig;
beforeAll(async () => {
  port = await openPgliteTestPort();
  rig = await startSlackRig({ mode: 'http', tools: [noteTool], data: port });
});
afterAll(async () => {
  await rig?.close();
  await port?.close();
});
beforeEach(() => {
  written.length = 0;
  rig.llm.reset();
  rig.slack.reset();
});

/** The approval buttons of the bot's reply in a thread: action id → value. */
function approvalButtons(thread: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of rig.slack.threadReplies('C0CHAN1', thread))
    for (const b of (m.blocks ?? []) as { type: string; elements?: { action_id?: string; value?: string }[] }[])
      for (const e of b.elements ?? []) if (e.action_id?.startsWith('approval.')) out.set(e.action_id, e.value ?? '');
  return out;
}

function click(thread: string, actionId: string, value: string, user = 'U0HUMAN1') {
  const replyTs = rig.slack.threadReplies('C0CHAN1', thread).at(-1)?.ts ?? thread;
  return postInteraction(
    rig.eventsUrl,
    {
      type: 'block_actions',
      user: { id: user, username: user, name: user, team_id: 'T0FAKETEAM' },
      api_app_id: 'A0FAKEAPP',
      token: 'legacy-verification-token',
      container: {
        type: 'message',
        message_ts: replyTs,
        channel_id: 'C0CHAN1',
        is_ephemeral: false,
        thread_ts: thread,
      },
      trigger_id: `trigger-${freshTs()}`,
      team: { id: 'T0FAKETEAM', domain: 'fake' },
      enterprise: null,
      is_enterprise_install: false,
      channel: { id: 'C0CHAN1', name: 'general' },
      message: { user: 'U00FAKEBOT01', type: 'message', ts: replyTs, thread_ts: thread },
      state: { values: {} },
      response_url: rig.slack.responseUrl(),
      actions: [{ action_id: actionId, block_id: 'b1', type: 'button', value, action_ts: freshTs() }],
    },
    sign(),
  );
}

async function askForNote(text: string): Promise<{ thread: string; buttons: Map<string, string> }> {
  const before = rig.deliveredCount();
  rig.llm.script({ toolCalls: [{ name: 'write_note', arguments: { text } }] });
  const post = mention(`note: ${text}`);
  await postEvent(rig.eventsUrl, eventBody(post), sign());
  await rig.delivered(before + 1);
  return { thread: post.ts, buttons: approvalButtons(post.ts) };
}

describe('approvals on Slack', () => {
  it('posts Approve/Deny, refuses a stranger privately, runs the call once on the asker’s Approve', async () => {
    const { thread, buttons } = await askForNote('buy milk');
    expect([...buttons.keys()]).toEqual(['approval.approve', 'approval.deny']);
    const approval = rig.slack.threadReplies('C0CHAN1', thread).at(-1)!;
    expect(approval.text).toContain('I need an OK before I go on');
    expect(written).toEqual([]);

    let before = rig.deliveredCount();
    expect((await click(thread, 'approval.approve', buttons.get('approval.approve')!, 'U0STRANGER')).status).toBe(200);
    await rig.slack.waitFor(
      () => JSON.stringify(rig.slack.responses).includes('can approve this'),
      'a private refusal to the stranger',
    );
    expect(JSON.stringify(rig.slack.responses)).toContain('Only the person who asked (U0HUMAN1) can approve this.');
    await rig.delivered(before + 1);
    expect(rig.slack.threadReplies('C0CHAN1', thread)).toHaveLength(1);
    expect(written).toEqual([]);

    before = rig.deliveredCount();
    rig.llm.script({ text: 'Noted it.' });
    await click(thread, 'approval.approve', buttons.get('approval.approve')!);
    await rig.delivered(before + 1);
    expect(written).toEqual(['buy milk']);
    expect(rig.slack.threadReplies('C0CHAN1', thread).map((m) => m.text)).toContain('Noted it.');
    // The approval message now says who decided and when; its buttons are gone.
    const replaced = rig.slack.responses.find((r) => r.body.replace_original === true);
    expect(replaced?.body).toMatchObject({
      blocks: [],
      text: expect.stringMatching(/^✅ Approved by <@U0HUMAN1> at \d\d:\d\d UTC\.$/),
    });

    // A second click (a double click, or Slack's retry under another action_ts) runs nothing.
    before = rig.deliveredCount();
    await click(thread, 'approval.approve', buttons.get('approval.approve')!);
    await rig.delivered(before + 1);
    expect(written).toEqual(['buy milk']);
    expect(rig.slack.threadReplies('C0CHAN1', thread).map((m) => m.text)).toContain(
      'This was already decided (approved).',
    );
  });

  it('Deny: the call does not run and the model is told', async () => {
    const { thread, buttons } = await askForNote('x');
    const before = rig.deliveredCount();
    rig.llm.script({ text: 'OK, I left it.' });
    await click(thread, 'approval.deny', buttons.get('approval.deny')!);
    await rig.delivered(before + 1);
    expect(written).toEqual([]);
    expect(rig.slack.threadReplies('C0CHAN1', thread).map((m) => m.text)).toContain('OK, I left it.');
    const last = rig.llm.requestsTo('/chat/completions').at(-1)!;
    expect(JSON.stringify(sentMessages(last.body))).toContain('the person declined this call');
  });
});
