/**
 * Issue 43's gaps on Slack (HTTP mode, signed events and interactions, the fake Web API, PGlite):
 * an approval nobody decides expires on its own (the sweep; its message says so, the model is
 * told, the tool does not run); a Slack user group as approvers (a member approves, others are
 * refused, a group Slack will not describe refuses everyone); two replicas on one Redis both
 * receiving the same click run the call once.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AdminDataPort } from '../../../src/data/index.js';
import { tenantApprovalsRow } from '../../../src/data/rows.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.js';
import { startFakeSlack, type FakeSlack } from '../../fakes/slack/web-api.js';
import { openPgliteTestPort } from '../../helpers/db.js';
import { sentMessages } from '../../helpers/harness.js';
import { inboxIdle } from '../../helpers/inbox-idle.js';
import {
  BOT_USER,
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

const REDIS_URL = process.env.TEST_REDIS_URL;

const { tool: noteTool, written } = createNoteTool();

let port: AdminDataPort;
let rig: SlackRig;
beforeAll(async () => {
  port = await openPgliteTestPort();
  // The sweep runs every 100 ms here (30 s by default).
  rig = await startSlackRig({ mode: 'http', tools: [noteTool], data: port, env: { APPROVAL_SWEEP_MS: '100' } });
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

type Button = { action_id?: string; value?: string };

/** The approval buttons of the bot's replies in a thread: action id → value. */
function approvalButtons(slack: FakeSlack, thread: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of slack.threadReplies('C0CHAN1', thread))
    for (const b of (m.blocks ?? []) as { elements?: Button[] }[])
      for (const e of b.elements ?? []) if (e.action_id?.startsWith('approval.')) out.set(e.action_id, e.value ?? '');
  return out;
}

/** A block_actions payload as Slack sends it for a click on the thread's last bot message. */
function clickBody(slack: FakeSlack, thread: string, actionId: string, value: string, user = 'U0HUMAN1') {
  const replyTs = slack.threadReplies('C0CHAN1', thread).at(-1)?.ts ?? thread;
  return {
    type: 'block_actions',
    user: { id: user, username: user, name: user, team_id: 'T0FAKETEAM' },
    api_app_id: 'A0FAKEAPP',
    token: 'legacy-verification-token',
    container: { type: 'message', message_ts: replyTs, channel_id: 'C0CHAN1', is_ephemeral: false, thread_ts: thread },
    trigger_id: `trigger-${freshTs()}`,
    team: { id: 'T0FAKETEAM', domain: 'fake' },
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: 'C0CHAN1', name: 'general' },
    message: { user: BOT_USER, type: 'message', ts: replyTs, thread_ts: thread },
    state: { values: {} },
    response_url: slack.responseUrl(),
    actions: [{ action_id: actionId, block_id: 'b1', type: 'button', value, action_ts: freshTs() }],
  };
}

async function askForNote(r: SlackRig, text: string): Promise<{ thread: string; buttons: Map<string, string> }> {
  const before = r.deliveredCount();
  r.llm.script({ toolCalls: [{ name: 'write_note', arguments: { text } }] });
  const post = mention(`note: ${text}`);
  await postEvent(r.eventsUrl, eventBody(post), sign());
  await r.delivered(before + 1);
  return { thread: post.ts, buttons: approvalButtons(r.slack, post.ts) };
}

/** Makes every pending approval past its time now (as if APPROVAL_TIMEOUT had passed). */
async function expireNow(): Promise<void> {
  await port.transport.sql!.query(
    "update public.tool_approvals set expires_at = now() - interval '1 second' where state = 'pending'",
  );
}

async function setApprovers(approvers: Record<string, unknown> | null): Promise<void> {
  await port.admin(
    'set_tenant_approvals',
    { tenant: 'default', approvals: approvers ? { approvers } : null },
    tenantApprovalsRow,
  );
}

describe('an approval nobody decides', () => {
  it('expires on its own: the message says so, the model is told, the tool does not run', async () => {
    const { thread, buttons } = await askForNote(rig, 'call the plumber');
    expect([...buttons.keys()]).toEqual(['approval.approve', 'approval.deny']);
    const approval = rig.slack.threadReplies('C0CHAN1', thread).at(-1)!;

    const before = rig.deliveredCount();
    rig.llm.script({ text: 'Nobody approved it in time, so I did not note it.' });
    await expireNow();
    await rig.delivered(before + 1);

    expect(written).toEqual([]);
    expect(rig.slack.threadReplies('C0CHAN1', thread).map((m) => m.text)).toContain(
      'Nobody approved it in time, so I did not note it.',
    );
    const last = rig.llm.requestsTo('/chat/completions').at(-1)!;
    expect(JSON.stringify(sentMessages(last.body))).toContain('no one approved this call in time');
    // The approval message now says it expired; its buttons are gone.
    const updated = rig.slack.messages.find((m) => m.ts === approval.ts)!;
    expect(updated.text).toMatch(/^⌛ Expired at \d\d:\d\d UTC\.$/);
    expect(updated.blocks).toEqual([]);
    const [row] = await port.transport.sql!.query('select state, decided_by from public.tool_approvals where id = $1', [
      buttons.get('approval.approve'),
    ]);
    expect(row).toMatchObject({ state: 'expired', decided_by: null });

    // A click after the expiry runs nothing and says so.
    const after = rig.deliveredCount();
    await postInteraction(
      rig.eventsUrl,
      clickBody(rig.slack, thread, 'approval.approve', buttons.get('approval.approve')!),
      sign(),
    );
    await rig.delivered(after + 1);
    expect(written).toEqual([]);
    expect(rig.slack.threadReplies('C0CHAN1', thread).map((m) => m.text)).toContain(
      'This was already decided (expired).',
    );
  });
});

describe('a Slack user group as approvers', () => {
  afterAll(() => setApprovers(null));

  it('a member approves; the asker outside the group is refused privately', async () => {
    await setApprovers({ slackGroup: 'S0APPROVERS' });
    rig.slack.setUserGroup('S0APPROVERS', ['U0BOSS1', 'U0BOSS2']);
    const { thread, buttons } = await askForNote(rig, 'order toner');
    expect(rig.slack.threadReplies('C0CHAN1', thread).at(-1)!.text).toContain(
      'members of the Slack user group S0APPROVERS can approve this',
    );
    const id = buttons.get('approval.approve')!;

    let before = rig.deliveredCount();
    await postInteraction(rig.eventsUrl, clickBody(rig.slack, thread, 'approval.approve', id, 'U0HUMAN1'), sign());
    await rig.delivered(before + 1);
    expect(JSON.stringify(rig.slack.responses)).toContain(
      'Only members of the Slack user group S0APPROVERS can approve this.',
    );
    expect(written).toEqual([]);

    before = rig.deliveredCount();
    rig.llm.script({ text: 'Toner ordered.' });
    await postInteraction(rig.eventsUrl, clickBody(rig.slack, thread, 'approval.approve', id, 'U0BOSS2'), sign());
    await rig.delivered(before + 1);
    expect(written).toEqual(['order toner']);
    expect(rig.slack.threadReplies('C0CHAN1', thread).map((m) => m.text)).toContain('Toner ordered.');
    expect(rig.slack.callsTo('usergroups.users.list').length).toBeGreaterThan(0);
  });

  it('a group Slack will not describe (no usergroups:read) refuses the click with a note and one warning', async () => {
    await setApprovers({ slackGroup: 'S0NOSCOPE' });
    const { thread, buttons } = await askForNote(rig, 'pay the invoice');
    rig.slack.failNext('usergroups.users.list', { error: 'missing_scope' });
    const warnings = () => rig.h.logs.lines.filter((l) => l.event === 'approval_group_unchecked').length;
    const warned = warnings();
    const before = rig.deliveredCount();
    await postInteraction(
      rig.eventsUrl,
      clickBody(rig.slack, thread, 'approval.approve', buttons.get('approval.approve')!, 'U0BOSS1'),
      sign(),
    );
    await rig.delivered(before + 1);
    expect(written).toEqual([]);
    expect(JSON.stringify(rig.slack.responses)).toContain('usergroups:read');
    expect(warnings()).toBe(warned + 1);
    const [row] = await port.transport.sql!.query('select state from public.tool_approvals where id = $1', [
      buttons.get('approval.approve'),
    ]);
    expect(row).toMatchObject({ state: 'pending' });
  });
});

describe.skipIf(!REDIS_URL)('two replicas on one Redis', () => {
  let llm: FakeOpenAI;
  let slack: FakeSlack;
  let a: SlackRig;
  let b: SlackRig;
  beforeAll(async () => {
    llm = await startFakeOpenAI();
    slack = await startFakeSlack({ botUserId: BOT_USER });
    const env = { REDIS_URL: REDIS_URL!, INBOX_QUEUE: `approvals${freshTs().replace('.', '')}` };
    a = await startSlackRig({ mode: 'http', llm, slack, data: port, tools: [noteTool], env });
    b = await startSlackRig({ mode: 'http', llm, slack, data: port, tools: [noteTool], env });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await slack?.close();
    await llm?.close();
  });

  it('the same click on both (Slack retrying to the other replica) and a double click run the call once', async () => {
    const { thread, buttons } = await askForNote(a, 'book the room');
    const id = buttons.get('approval.approve')!;
    const click = clickBody(slack, thread, 'approval.approve', id);
    const again = clickBody(slack, thread, 'approval.approve', id);
    llm.script({ text: 'Room booked.' }); // one answer: a second resumed turn would call past the script
    await Promise.all([
      postInteraction(a.eventsUrl, click, sign()),
      postInteraction(b.eventsUrl, click, sign({ retryNum: 1 })),
      postInteraction(b.eventsUrl, again, sign()),
    ]);
    await slack.waitFor(() => written.length >= 1, 'the approved call');
    await slack.waitFor(
      () => slack.threadReplies('C0CHAN1', thread).some((m) => m.text === 'Room booked.'),
      'the resumed answer',
    );
    await Promise.all([inboxIdle(a.h.sb.inbox), inboxIdle(b.h.sb.inbox)]);
    expect(written).toEqual(['book the room']);
    const texts = slack.threadReplies('C0CHAN1', thread).map((m) => m.text);
    expect(texts.filter((t) => t === 'Room booked.')).toHaveLength(1);
    expect(texts).toContain('This was already decided (approved).');
  });
});
