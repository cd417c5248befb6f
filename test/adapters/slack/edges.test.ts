/**
 * Payload shapes that real workspaces send and that once went wrong, replayed over signed HTTP
 * through the real app.
 */
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpenAI } from '../../fakes/openai-server.js';
import { sentMessages } from '../../helpers/harness.js';
import {
  eventBody,
  fixture,
  freshTs,
  mention,
  postCommand,
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

describe('recorded Slack events with one field dropped at a time', () => {
  // Every event_callback body in the recorded fixtures, each field of the body and of its event
  // dropped in turn, signed and sent; then an ordinary mention must still be answered. Variants
  // that are still a valid question reach the model (a lenient fake answers those).
  it('answers the next normal message after every malformed event and interaction variant; no event gets a 5xx', async () => {
    const llm = await startFakeOpenAI({ lenient: true });
    const own = await startSlackRig({ mode: 'http', llm });
    try {
      const bodies: Record<string, unknown>[] = [];
      const kinds = new Set<string>();
      for (const name of readdirSync(new URL('../../fixtures/slack/events/', import.meta.url))) {
        if (!name.endsWith('.json')) continue;
        for (const value of Object.values(fixture<Record<string, unknown>>(name))) {
          if (!isRecord(value) || value.type !== 'event_callback' || !isRecord(value.event)) continue;
          // One body per kind of event (type, channel type, subtype, thread or not): the rest repeat it.
          const e = value.event;
          const kind = [e.type, e.channel_type, e.subtype, 'thread_ts' in e, 'files' in e].join(':');
          if (kinds.has(kind)) continue;
          kinds.add(kind);
          bodies.push(value);
        }
      }
      expect(bodies.length).toBeGreaterThan(4);
      const statuses = new Set<number>();
      const all: Record<string, unknown>[] = [];
      for (const body of bodies) {
        const event = body.event as Record<string, unknown>;
        const drops: Record<string, unknown>[] = [
          ...Object.keys(body).map((k) => withEventId(without(body, k))),
          ...Object.keys(event).map((k) => withEventId({ ...body, event: without(event, k) })),
        ];
        all.push(...drops);
      }
      // All at once: a variant no listener takes is answered only after Bolt's unhandled-request
      // timeout (3 s), so one by one the sweep took 25 s.
      for (const res of await Promise.all(all.map((variant) => postEvent(own.eventsUrl, variant, sign()))))
        statuses.add(res.status);
      const variants = all.length;
      console.log(`[slack sweep] ${bodies.length} kinds of event, ${variants} variants`);
      expect(variants).toBeGreaterThan(50);
      // Interactions too: a recorded button click and slash command, each field dropped in turn.
      const { channel_post_action } = fixture('channel.slack.json');
      const click = channel_post_action as Record<string, unknown>;
      const { slashCommandWithArgs } = fixture('slash-commands.slack.json');
      const command = slashCommandWithArgs as Record<string, string>;
      const interactions = await Promise.all([
        ...Object.keys(click).map((k) =>
          postInteraction(own.eventsUrl, { ...without(click, k), trigger_id: `t${freshTs()}` }, sign()),
        ),
        ...Object.keys(command).map((k) => {
          const fields = { ...command, trigger_id: `t${freshTs()}` };
          delete (fields as Record<string, string | undefined>)[k];
          return postCommand(own.eventsUrl, fields, sign());
        }),
      ]);
      expect(interactions.length).toBeGreaterThan(15);
      expect([...statuses].filter((s) => s >= 500)).toEqual([]);
      // Bolt reads a click's body.user.id before any listener runs: without `user` it answers 500
      // (Slack retries; nothing is recorded). Every other variant is answered below 500.
      const failed = [
        ...Object.keys(click).map((k) => `click without ${k}`),
        ...Object.keys(command).map((k) => `command without ${k}`),
      ].filter((_, i) => interactions[i]!.status >= 500);
      expect(failed).toEqual(['click without user']);
      const ts = freshTs();
      llm.script({ text: 'Still answering.' });
      await postEvent(own.eventsUrl, eventBody(mention('are you there?', { ts, channel: 'C0AFTER' })), sign());
      await own.slack.waitFor(
        () => own.slack.threadReplies('C0AFTER', ts).some((m) => m.text === 'Still answering.'),
        'the answer after the malformed variants',
        30_000,
      );
    } finally {
      await own.close();
      await llm.close();
    }
  }, 120_000);
});

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function without(o: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: _dropped, ...rest } = o;
  return rest;
}

/** A fresh event id (unless the variant drops it), so dedup does not swallow the variants. */
function withEventId(body: Record<string, unknown>): Record<string, unknown> {
  return 'event_id' in body ? { ...body, event_id: `Ev${freshTs().replace('.', '')}` } : body;
}
