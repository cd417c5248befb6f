/**
 * Feedback on answers in Slack (issue 47), through the real app in HTTP mode (signed events and
 * interactions, the fake Web API, PGlite): the final answer carries Slack's `feedback_buttons` in a
 * `context_actions` block (valid Block Kit); a 👍 is recorded through the inbox and thanked
 * privately; the same click delivered twice counts once; a 👎 changes the vote and opens the
 * comment modal with the click's trigger_id; the modal's submission puts the comment with the vote.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AdminDataPort } from '../../src/data/index.js';
import { metrics } from '../../src/telemetry/metrics.js';
import { invalidBlockPayloads, modalViewProblems } from '../fakes/slack/block-kit.js';
import { openPgliteTestPort } from '../helpers/db.js';
import { sqlRows } from './sql.js';
import { eventBody, mention, postEvent, sign, startSlackRig, type SlackRig } from '../adapters/slack/setup.js';
import { feedbackButtons, feedbackClick, submitComment, until } from './slack-helpers.js';

let port: AdminDataPort;
let rig: SlackRig;
beforeAll(async () => {
  port = await openPgliteTestPort();
  rig = await startSlackRig({ mode: 'http', data: port, env: { FEEDBACK: 'on' } });
});
afterAll(async () => {
  await rig?.close();
  await port?.close();
});
beforeEach(() => {
  rig.llm.reset();
  rig.slack.reset();
});

const votes = (turnId: string) =>
  sqlRows<{ value: string; comment: string | null; platform: string }>(
    port,
    `select value, comment, platform from public.turn_feedback where turn_id = $1`,
    [turnId],
  );
const counted = async (value: string) =>
  (await metrics.feedback.get()).values.find((v) => v.labels.value === value)?.value ?? 0;

async function answered(text: string) {
  const before = rig.deliveredCount();
  rig.llm.script({ text });
  const post = mention('what are your hours?');
  await postEvent(rig.eventsUrl, eventBody(post), sign());
  await rig.delivered(before + 1);
  return post.ts;
}

describe('feedback on Slack', () => {
  it('puts feedback_buttons under the final answer, naming its turn record, in valid Block Kit', async () => {
    const thread = await answered('We open at nine.');
    const buttons = feedbackButtons(rig, thread);
    expect(buttons?.actionId).toBe('feedback');
    const turnId = buttons!.up.replace(/^up:/, '');
    expect(buttons!.down).toBe(`down:${turnId}`);
    const [turn] = await sqlRows<{ outcome: string }>(port, `select outcome from public.turn_log where turn_id = $1`, [
      turnId,
    ]);
    expect(turn?.outcome).toBe('answered');
    expect(invalidBlockPayloads(rig.slack)).toEqual([]);
  });

  it('records a 👍 once however often the click is delivered, thanks privately, then a 👎 changes it and opens the modal', async () => {
    const thread = await answered('Nine to five.');
    const { up, down } = feedbackButtons(rig, thread)!;
    const turnId = up.slice(3);
    const ups = await counted('up');

    // The same click twice (Slack's retry: same trigger_id): one entry, one vote, counted once.
    const first = await feedbackClick(rig, thread, up, { triggerId: 'trigger-same-click' });
    const retry = await feedbackClick(rig, thread, up, { triggerId: 'trigger-same-click' });
    expect([first.status, retry.status]).toEqual([200, 200]);
    await until(async () => (await votes(turnId)).length === 1, 'the vote');
    await rig.slack.waitFor(() => JSON.stringify(rig.slack.responses).includes('glad it helped'), 'the thanks');
    expect(await votes(turnId)).toEqual([{ value: 'up', comment: null, platform: 'slack' }]);
    expect(await counted('up')).toBe(ups + 1);
    expect(rig.slack.responses.filter((r) => JSON.stringify(r.body).includes('glad it helped'))).toHaveLength(1);
    // No turn ran for it: nothing new in the thread, no model call.
    expect(rig.slack.threadReplies('C0CHAN1', thread)).toHaveLength(1);

    // A 👎 changes the vote and opens the comment modal with the click's trigger_id.
    await feedbackClick(rig, thread, down, { triggerId: 'trigger-thumbs-down' });
    await until(async () => (await votes(turnId))[0]?.value === 'down', 'the changed vote');
    await rig.slack.waitFor(() => rig.slack.calls.some((c) => c.method === 'views.open'), 'the modal');
    const open = rig.slack.calls.find((c) => c.method === 'views.open')!;
    expect(open.args.trigger_id).toBe('trigger-thumbs-down');
    const view = (typeof open.args.view === 'string' ? JSON.parse(open.args.view) : open.args.view) as {
      callback_id: string;
      private_metadata: string;
    };
    expect(modalViewProblems(view)).toEqual([]);
    expect(view.private_metadata).toBe(turnId);

    // The submission (through the inbox) puts the comment with the 👎; submitted twice, still one row.
    const submitted = await submitComment(rig, { ...view, id: 'V0MODAL1' }, 'It was the Sunday hours.');
    expect(submitted.status).toBe(200);
    await submitComment(rig, { ...view, id: 'V0MODAL1' }, 'It was the Sunday hours.');
    await until(async () => (await votes(turnId))[0]?.comment === 'It was the Sunday hours.', 'the comment');
    expect(await votes(turnId)).toEqual([{ value: 'down', comment: 'It was the Sunday hours.', platform: 'slack' }]);
  });

  it('each person has their own vote on an answer', async () => {
    const thread = await answered('Closed on Mondays.');
    const { up, down } = feedbackButtons(rig, thread)!;
    await feedbackClick(rig, thread, up, { user: 'U0HUMAN1' });
    await feedbackClick(rig, thread, down, { user: 'U0HUMAN2' });
    await until(async () => (await votes(up.slice(3))).length === 2, 'two votes');
    expect((await votes(up.slice(3))).map((v) => v.value).sort()).toEqual(['down', 'up']);
  });
});
