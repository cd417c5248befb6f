import { freshTs, postInteraction, sign, type SlackRig } from '../adapters/slack/setup.js';

/** The feedback_buttons of the bot's answer in a thread (its last message): positive and negative values. */
export function feedbackButtons(rig: SlackRig, thread: string, channel = 'C0CHAN1') {
  const last = rig.slack.threadReplies(channel, thread).at(-1);
  type El = {
    type?: string;
    action_id?: string;
    positive_button?: { value: string };
    negative_button?: { value: string };
  };
  const blocks = (last?.blocks ?? []) as { type: string; elements?: El[] }[];
  const el = blocks.find((b) => b.type === 'context_actions')?.elements?.find((e) => e.type === 'feedback_buttons');
  return el
    ? { actionId: el.action_id!, up: el.positive_button!.value, down: el.negative_button!.value, message: last! }
    : undefined;
}

/** A click on the feedback buttons as Slack sends it (`block_actions`, the element's action and the clicked value). */
export function feedbackClick(
  rig: SlackRig,
  thread: string,
  value: string,
  opts: { user?: string; triggerId?: string; eventsUrl?: string } = {},
) {
  const user = opts.user ?? 'U0HUMAN1';
  const replyTs = rig.slack.threadReplies('C0CHAN1', thread).at(-1)?.ts ?? thread;
  return postInteraction(
    opts.eventsUrl ?? rig.eventsUrl,
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
      trigger_id: opts.triggerId ?? `trigger-${freshTs()}`,
      team: { id: 'T0FAKETEAM', domain: 'fake' },
      enterprise: null,
      is_enterprise_install: false,
      channel: { id: 'C0CHAN1', name: 'general' },
      message: { user: 'U00FAKEBOT01', type: 'message', ts: replyTs, thread_ts: thread },
      state: { values: {} },
      response_url: rig.slack.responseUrl(),
      actions: [
        {
          action_id: 'feedback',
          block_id: 'fb',
          type: 'feedback_buttons',
          value,
          text: { type: 'plain_text', text: value.startsWith('up') ? '👍' : '👎' },
          action_ts: freshTs(),
        },
      ],
    },
    sign(),
  );
}

/** The comment modal submitted, as Slack sends a `view_submission`. */
export function submitComment(
  rig: SlackRig,
  view: { id: string; private_metadata: string; callback_id: string },
  comment: string,
  opts: { user?: string; eventsUrl?: string } = {},
) {
  const user = opts.user ?? 'U0HUMAN1';
  return postInteraction(
    opts.eventsUrl ?? rig.eventsUrl,
    {
      type: 'view_submission',
      team: { id: 'T0FAKETEAM', domain: 'fake' },
      user: { id: user, username: user, name: user, team_id: 'T0FAKETEAM' },
      api_app_id: 'A0FAKEAPP',
      token: 'legacy-verification-token',
      trigger_id: `trigger-${freshTs()}`,
      view: {
        id: view.id,
        team_id: 'T0FAKETEAM',
        type: 'modal',
        callback_id: view.callback_id,
        private_metadata: view.private_metadata,
        blocks: [],
        state: { values: { comment: { comment: { type: 'plain_text_input', value: comment } } } },
        hash: `h${freshTs()}`,
        title: { type: 'plain_text', text: 'What went wrong?' },
        app_id: 'A0FAKEAPP',
        bot_id: 'B0FAKEBOT',
      },
      response_urls: [],
      is_enterprise_install: false,
      enterprise: null,
    },
    sign(),
  );
}

/** Polls `check` until it holds (the inbox runs entries in the background). */
export async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}
