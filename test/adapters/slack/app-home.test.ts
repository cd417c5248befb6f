/**
 * Slack's App Home tab: a signed `app_home_opened` event to the real app (Bolt over HTTP, the
 * real data port and tools) makes it publish a Home view to the fake Slack Web API with what the
 * bot can do in this workspace (its tenant's tool families, each with a question to try), the
 * user's own usage this month and today against the daily budget, and a link to a DM; the view's
 * blocks pass Slack's Block Kit schema.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockKitProblems } from '../../fakes/slack/block-kit.js';
import { eventBody, mention, postEvent, sign, startSlackRig, type SlackRig } from './setup.js';

let rig: SlackRig;
beforeAll(async () => {
  rig = await startSlackRig({ mode: 'http', env: { TOKEN_BUDGET_PER_USER_DAILY: '50000' } });
}, 60_000);
afterAll(() => rig?.close());

const homeOpened = (user: string, tab = 'home') =>
  eventBody({ type: 'app_home_opened', user, channel: 'D0HOME1', tab, ts: `${Math.floor(Date.now() / 1000)}.000001` });

interface PublishedView {
  type: string;
  blocks: Record<string, unknown>[];
}
async function openHome(user: string): Promise<PublishedView> {
  const before = rig.slack.callsTo('views.publish').length;
  const res = await postEvent(rig.eventsUrl, homeOpened(user), sign());
  expect(res.status).toBe(200);
  await rig.slack.waitFor(() => rig.slack.callsTo('views.publish').length > before, 'views.publish');
  const call = rig.slack.callsTo('views.publish').at(-1)!;
  expect(call.args.user_id).toBe(user);
  return call.args.view as PublishedView;
}
const textOf = (view: PublishedView) => JSON.stringify(view.blocks);

describe('Slack App Home', () => {
  it('shows the workspace’s toolsets with a question each, the user’s own usage against the budget, and a DM link', async () => {
    // One answered mention by U0HUMAN1: 1,000 + 200 tokens in the ledger.
    rig.llm.script({ text: 'Hello.', usage: { prompt_tokens: 1_000, completion_tokens: 200 } });
    await postEvent(rig.eventsUrl, eventBody(mention('hello')), sign());
    await rig.delivered(1);

    const view = await openHome('U0HUMAN1');
    expect(view.type).toBe('home');
    expect(blockKitProblems(view.blocks)).toEqual([]);
    const text = textOf(view);
    // The default (marketing) tenant's families, each with a question to try; not the clinic's.
    expect(text).toContain('*Campaigns*');
    expect(text).toContain('_Try:_ “Which Instagram campaigns ran last month');
    expect(text).toContain('*Competitors*');
    expect(text).not.toContain('*Your business*');
    // The user's own figures: 1 question, 1,200 tokens, today against the 50,000 daily budget.
    expect(text).toContain('*Questions*\\n1');
    expect(text).toContain('*Tokens*\\n1,200');
    expect(text).toContain('*Today*\\n1,200 of 50,000 tokens (your daily budget)');
    const button = view.blocks
      .filter((b) => b.type === 'actions')
      .flatMap((b) => b.elements as { url?: string }[])
      .find((e) => e.url);
    expect(button?.url).toBe('https://slack.com/app_redirect?app=A0FAKEAPP&team=T0FAKETEAM');
  });

  it('shows another user only their own figures, and ignores the Messages tab', async () => {
    const view = await openHome('U0SOMEONEELSE');
    expect(blockKitProblems(view.blocks)).toEqual([]);
    expect(textOf(view)).toContain('*Tokens*\\n0');
    expect(textOf(view)).toContain('*Questions*\\n0');

    const before = rig.slack.callsTo('views.publish').length;
    expect((await postEvent(rig.eventsUrl, homeOpened('U0HUMAN1', 'messages'), sign())).status).toBe(200);
    // A later Home open is published; the Messages-tab event before it published nothing.
    await openHome('U0HUMAN1');
    expect(rig.slack.callsTo('views.publish').length).toBe(before + 1);
  });

  it('logs nothing at warn when the Home tab opens, though a family is off for the tenant', async () => {
    const from = rig.h.logs.lines.length;
    const view = await openHome('U0HUMAN3');
    // The clinic's family is off here (see above), and that is no warning: nobody asked for it.
    expect(textOf(view)).not.toContain('*Your business*');
    expect(rig.h.logs.lines.slice(from).filter((l) => Number(l.level) >= 40)).toEqual([]);
  });
});
