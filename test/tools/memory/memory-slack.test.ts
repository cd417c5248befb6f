/**
 * `/memory` on Slack (issue 45; HTTP mode, signed requests, the fake Web API, PGlite): the command
 * lists this channel's and the team's notes (a person's own only as a count in a channel), each
 * with a Forget button; a guest's click on a team note is refused; a member's click forgets it,
 * through the inbox like every other button.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AdminDataPort } from '../../../src/data/index.js';
import { memoryAddedRow, memoryAdminRow } from '../../../src/data/rows.js';
import { openPgliteTestPort } from '../../helpers/db.js';
import { blockKitProblems } from '../../fakes/slack/block-kit.js';
import {
  eventBody,
  fixture,
  freshTs,
  postCommand,
  postEvent,
  postInteraction,
  sign,
  startSlackRig,
  type SlackRig,
} from '../../adapters/slack/setup.js';

let port: AdminDataPort;
let rig: SlackRig;
const CHANNEL = 'C00FAKECHAN3';
const TEAM = 'T00FAKE00BB';

beforeAll(async () => {
  port = await openPgliteTestPort();
  await port.admin(
    'set_tenant_tools',
    { tenant: 'default', tools: ['artifacts', 'campaigns', 'competitors', 'memory', 'quotes', 'web'] },
    z.unknown(),
  );
  rig = await startSlackRig({ mode: 'http', data: port });
  rig.slack.setUser('U0GUEST1', { is_restricted: true });
}, 120_000);
afterAll(async () => {
  await rig?.close();
  await port?.close();
});
beforeEach(async () => {
  rig.llm.reset();
  rig.slack.reset();
  rig.slack.setUser('U0GUEST1', { is_restricted: true });
  await port.admin('memory_purge', { tenant: 'default' }, z.unknown());
});

async function add(scope: 'user' | 'channel' | 'team', text: string, user: string): Promise<string> {
  const [row] = await port.forTenant(await port.defaultTenant()).call(
    'memory_add',
    {
      scope,
      platform: 'slack',
      user_id: user,
      text,
      member: true,
      max_per_user: 10,
      max_per_tenant: 10,
      ttl_days: 30,
      ...(scope === 'channel' ? { channel_id: CHANNEL } : {}),
    },
    memoryAddedRow,
  );
  return row!.id!;
}

type Element = { action_id?: string; value?: string; text?: { text?: string } };
/** The bot's messages' Forget buttons: label → value. */
const forgetButtons = () => {
  const out = new Map<string, string>();
  for (const m of rig.slack.messages)
    for (const b of (m.blocks ?? []) as { elements?: Element[] }[])
      for (const e of b.elements ?? [])
        if (e.action_id?.startsWith('memory.forget')) out.set(e.text?.text ?? '', e.value ?? '');
  return out;
};

async function memoryCommand(user: string): Promise<void> {
  const { slashCommandWithArgs } = fixture('slash-commands.slack.json');
  const before = rig.deliveredCount();
  const res = await postCommand(
    rig.eventsUrl,
    {
      ...(slashCommandWithArgs as Record<string, string>),
      command: '/memory',
      text: '',
      user_id: user,
      response_url: rig.slack.responseUrl(),
    },
    sign(),
  );
  expect(res.status).toBe(200);
  await rig.delivered(before + 1);
}

async function click(user: string, value: string): Promise<void> {
  const message = rig.slack.messages.find((m) => JSON.stringify(m.blocks ?? []).includes(value))!;
  const before = rig.deliveredCount();
  await postInteraction(
    rig.eventsUrl,
    {
      type: 'block_actions',
      user: { id: user, username: user, name: user, team_id: TEAM },
      api_app_id: 'A0FAKEAPP',
      token: 'legacy-verification-token',
      container: {
        type: 'message',
        message_ts: message.ts,
        channel_id: CHANNEL,
        is_ephemeral: false,
        thread_ts: message.thread_ts ?? message.ts,
      },
      trigger_id: `trigger-${freshTs()}`,
      team: { id: TEAM, domain: 'fake' },
      enterprise: null,
      is_enterprise_install: false,
      channel: { id: CHANNEL, name: 'general' },
      message: { user: 'U00FAKEBOT01', type: 'message', ts: message.ts, thread_ts: message.thread_ts ?? message.ts },
      state: { values: {} },
      response_url: rig.slack.responseUrl(),
      actions: [{ action_id: 'memory.forget', block_id: 'b1', type: 'button', value, action_ts: freshTs() }],
    },
    sign(),
  );
  await rig.delivered(before + 1);
}

describe('/memory on Slack', () => {
  it('lists the channel’s and the team’s notes with Forget buttons; a guest’s click is refused, a member’s forgets', async () => {
    const team = await add('team', 'Our fiscal year starts in July', 'U0OTHER1');
    await add('channel', 'The launch is on May 2', 'U0OTHER1');
    await add('user', 'I prefer answers in Danish', 'U0HUMAN1');

    await memoryCommand('U0HUMAN1');
    const posted = JSON.stringify(rig.slack.messages);
    expect(posted).toContain('The launch is on May 2');
    expect(posted).toContain('Our fiscal year starts in July');
    // The person's own note stays out of the channel: a count and where to see it.
    expect(posted).not.toContain('Danish');
    expect(posted).toContain('1 private note');
    const buttons = forgetButtons();
    expect([...buttons.keys()]).toEqual(['Forget 1', 'Forget 2']);
    expect(buttons.get('Forget 2')).toBe(team);
    expect(rig.llm.requestsTo('/chat/completions')).toHaveLength(0);

    await click('U0GUEST1', team);
    expect(JSON.stringify(rig.slack.messages)).toContain(
      'Only members of the workspace can forget team and channel notes.',
    );
    expect((await port.admin('memory_admin_list', { tenant: 'default' }, memoryAdminRow)).map((r) => r.id)).toContain(
      team,
    );

    await click('U0HUMAN1', team);
    expect(JSON.stringify(rig.slack.messages)).toContain('Forgotten (team): “Our fiscal year starts in July”');
    const left = await port.admin('memory_admin_list', { tenant: 'default' }, memoryAdminRow);
    expect(left.map((r) => r.scope).sort()).toEqual(['channel', 'user']);
    expect(rig.llm.requestsTo('/chat/completions')).toHaveLength(0);
  });

  it('the App Home tab shows the person’s own notes, and nobody else’s', async () => {
    await add('user', 'I prefer answers in Danish', 'U0HUMAN1');
    await add('user', 'Bob keeps his notes', 'U0BOB1');
    await add('team', 'Quarterly reviews are on Mondays', 'U0HUMAN1');
    const before = rig.slack.callsTo('views.publish').length;
    const opened = eventBody({
      type: 'app_home_opened',
      user: 'U0HUMAN1',
      channel: 'D0HOME1',
      tab: 'home',
      ts: `${Math.floor(Date.now() / 1000)}.000001`,
    });
    expect((await postEvent(rig.eventsUrl, opened, sign())).status).toBe(200);
    await rig.slack.waitFor(() => rig.slack.callsTo('views.publish').length > before, 'views.publish');
    const view = rig.slack.callsTo('views.publish').at(-1)!.args.view as { blocks: Record<string, unknown>[] };
    expect(blockKitProblems(view.blocks)).toEqual([]);
    const text = JSON.stringify(view.blocks);
    expect(text).toContain('What I remember about you');
    expect(text).toContain('• I prefer answers in Danish');
    expect(text).not.toContain('Bob keeps');
    expect(text).not.toContain('Quarterly reviews');
  });
});
