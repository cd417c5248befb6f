/**
 * Feedback on answers (issue 47) on two replicas of the app sharing Redis (the inbox) and
 * Postgres: the answer is given by one replica and voted on through the other (one
 * TURN_LOG_HASH_KEY: the voter's hash is the turn's user's); the same Slack click delivered to
 * both replicas at once is one vote, counted once; a 👎 on one and its modal's comment on the
 * other end as one row with the comment; a vote over HTTP on either replica is the same person's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminDataPort } from '../../src/data/index.js';
import { metrics } from '../../src/telemetry/metrics.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { startFakeSlack, type FakeSlack } from '../fakes/slack/web-api.js';
import { noticeWithoutPostgres, openPostgresTestPort, TEST_DATABASE_URL, type TestDatabase } from '../helpers/db.js';
import {
  BOT_USER,
  eventBody,
  freshTs,
  mention,
  postEvent,
  sign,
  startSlackRig,
  type SlackRig,
} from '../adapters/slack/setup.js';
import { feedbackButtons, feedbackClick, submitComment, until } from './slack-helpers.js';
import { ComponentType } from 'discord.js';
import { Hono } from 'hono';
import { createDiscordAdapter } from '../../src/adapters/discord/index.js';
import { startHttpServer, type RunningServer } from '../../src/adapters/http/server.js';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.js';
import { modalSubmitInteraction } from '../fakes/discord/payloads.js';
import { runAdapter, startHarness, type Harness } from '../helpers/harness.js';
import { buttonsOf, interactionAnswer } from '../adapters/discord/helpers.js';
import { sqlRows } from './sql.js';

const REDIS_URL = process.env.TEST_REDIS_URL;
noticeWithoutPostgres('the feedback replicas test');
if (!REDIS_URL) console.warn('TEST_REDIS_URL is not set: skipping the feedback replicas test');

describe.skipIf(!REDIS_URL || !TEST_DATABASE_URL)('feedback on two replicas (Redis and Postgres)', () => {
  let port: AdminDataPort;
  let db: TestDatabase;
  let llm: FakeOpenAI;
  let slack: FakeSlack;
  let a: SlackRig;
  let b: SlackRig;

  beforeAll(async () => {
    ({ port, db } = await openPostgresTestPort());
    llm = await startFakeOpenAI();
    slack = await startFakeSlack({ botUserId: BOT_USER });
    const env = {
      REDIS_URL: REDIS_URL!,
      INBOX_QUEUE: `feedback${freshTs().replace('.', '')}`,
      TURN_LOG_HASH_KEY: 'replicas-share-this-hash-key-0123456789',
      FEEDBACK: 'on',
    };
    a = await startSlackRig({ mode: 'http', llm, slack, data: port, env });
    b = await startSlackRig({ mode: 'http', llm, slack, data: port, env });
  }, 120_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await slack?.close();
    await llm?.close();
    await port?.close();
    await db?.drop();
  });

  const votes = (turnId: string) =>
    sqlRows<{ value: string; comment: string | null; user_hash: string }>(
      port,
      `select value, comment, user_hash from public.turn_feedback where turn_id = $1`,
      [turnId],
    );
  const counted = async (value: string) =>
    (await metrics.feedback.get()).values.find((v) => v.labels.value === value)?.value ?? 0;

  it('one click delivered to both replicas is one vote; a 👎 and its comment on different replicas are one row', async () => {
    llm.script({ text: 'We open at nine.' });
    const post = mention('when do you open?');
    const before = a.deliveredCount() + b.deliveredCount();
    await postEvent(a.eventsUrl, eventBody(post), sign());
    await slack.waitFor(() => a.deliveredCount() + b.deliveredCount() > before, 'the answer');
    const { up, down } = feedbackButtons(a, post.ts)!;
    const turnId = up.slice(3);
    const ups = await counted('up');

    // Slack sends the same click twice (a retry), and each lands on another replica.
    const [first, second] = await Promise.all([
      feedbackClick(a, post.ts, up, { triggerId: 'trigger-replicas-up' }),
      feedbackClick(b, post.ts, up, { triggerId: 'trigger-replicas-up', eventsUrl: b.eventsUrl }),
    ]);
    expect([first.status, second.status]).toEqual([200, 200]);
    await until(async () => (await votes(turnId)).length === 1, 'the vote', 10_000);
    await slack.waitFor(() => JSON.stringify(slack.responses).includes('glad it helped'), 'the thanks', 10_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(await votes(turnId)).toHaveLength(1);
    expect(await counted('up')).toBe(ups + 1);
    // The voter is the asker: the same keyed hash as the turn record's user on either replica.
    const [turn] = await sqlRows<{ user_hash: string }>(
      port,
      `select user_hash from public.turn_log where turn_id = $1`,
      [turnId],
    );
    expect((await votes(turnId))[0]!.user_hash).toBe(turn!.user_hash);

    // A 👎 through replica B, its comment through replica A.
    await feedbackClick(b, post.ts, down, { triggerId: 'trigger-replicas-down', eventsUrl: b.eventsUrl });
    await slack.waitFor(() => slack.calls.some((c) => c.method === 'views.open'), 'the modal', 10_000);
    const view = slack.calls.find((c) => c.method === 'views.open')!.args.view as {
      callback_id: string;
      private_metadata: string;
    };
    await submitComment(
      a,
      { ...(typeof view === 'string' ? JSON.parse(view) : view), id: 'V0REPLICA' },
      'Nine thirty on Sundays.',
    );
    await until(async () => (await votes(turnId))[0]?.comment === 'Nine thirty on Sundays.', 'the comment', 10_000);
    expect(await votes(turnId)).toEqual([
      expect.objectContaining({ value: 'down', comment: 'Nine thirty on Sundays.' }),
    ]);
  });

  it('a vote over HTTP on either replica is one vote of the same person', async () => {
    llm.script({ text: 'Yes, we deliver.' });
    const asked = await fetch(`${a.server!.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'do you deliver?' }),
    });
    const { turnId } = (await asked.json()) as { turnId: string };
    const vote = (rig: SlackRig, value: string) =>
      fetch(`${rig.server!.url}/api/feedback`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ turnId, value }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));
    expect(await vote(a, 'up')).toMatchObject({ status: 200, body: { changed: true } });
    expect(await vote(b, 'up')).toMatchObject({ status: 200, body: { previous: 'up', changed: false } });
    expect(await vote(b, 'down')).toMatchObject({ status: 200, body: { previous: 'up', changed: true } });
    expect(await votes(turnId)).toEqual([expect.objectContaining({ value: 'down' })]);
  });
});

describe.skipIf(!REDIS_URL || !TEST_DATABASE_URL)('feedback on two Discord replicas (interactions endpoint)', () => {
  let port: AdminDataPort;
  let db: TestDatabase;
  let discord: FakeDiscord;
  const replicas: { h: Harness; url: string; server: RunningServer; stop: () => Promise<void> }[] = [];

  beforeAll(async () => {
    ({ port, db } = await openPostgresTestPort({ seed: false }));
    discord = await startFakeDiscord();
    const { DISCORD_TOKEN: _token, ...env } = discord.env();
    const queue = `dfeedback${freshTs().replace('.', '')}`;
    for (let i = 0; i < 2; i++) {
      const h = await startHarness({
        data: port,
        env: {
          ...env,
          DISCORD_PUBLIC_KEY: discord.publicKey,
          REDIS_URL: REDIS_URL!,
          INBOX_QUEUE: queue,
          TURN_LOG_HASH_KEY: 'replicas-share-this-hash-key-0123456789',
          FEEDBACK: 'on',
        },
      });
      const adapter = createDiscordAdapter(h.sb)!;
      const server = await startHttpServer(new Hono(), 0, '127.0.0.1', adapter.routes);
      const stop = await runAdapter(h.sb, adapter);
      replicas.push({ h, url: `${server.url}/discord/interactions`, server, stop });
    }
  }, 120_000);
  afterAll(async () => {
    for (const r of replicas.reverse()) {
      await r.stop();
      await r.server.close();
      await r.h.close();
    }
    await discord?.close();
    await port?.close();
    await db?.drop();
  });

  const votes = (turnId: string) =>
    sqlRows<{ value: string; comment: string | null }>(
      port,
      `select value, comment from public.turn_feedback where turn_id = $1`,
      [turnId],
    );

  it('a click redelivered to the other replica is one vote; a 👎 on one and its comment on the other are one row', async () => {
    const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    a.h.llm.allowUnused();
    b.h.llm.allowUnused();
    a.h.llm.script({ text: 'We open at nine.' });
    b.h.llm.script({ text: 'We open at nine.' });
    const ask = await discord.overHttp(a.url, discord.commandPayload('ask', { question: 'when do you open?' }));
    const [answer] = await interactionAnswer(discord, ask.record.payload.token);
    const ids = buttonsOf(answer!).map((x) => x.custom_id);
    const up = ids.find((id) => id.startsWith('feedback|up:'))!;
    const down = ids.find((id) => id.startsWith('feedback|down:'))!;
    const turnId = up.slice('feedback|up:'.length);

    const click = discord.clickPayload(answer!.id, up);
    expect((await discord.overHttp(b.url, click)).body).toMatchObject({ type: 6 });
    await until(async () => (await votes(turnId)).length === 1, 'the vote', 10_000);
    await interactionAnswer(discord, click.token);
    // Discord sends the same interaction again, this time to the other replica: still one vote.
    await discord.overHttp(a.url, click);
    await new Promise((r) => setTimeout(r, 500));
    expect(await votes(turnId)).toEqual([{ value: 'up', comment: null }]);

    const thumbsDown = await discord.overHttp(a.url, discord.clickPayload(answer!.id, down));
    expect(thumbsDown.body).toMatchObject({ type: 9 });
    const submit = modalSubmitInteraction({
      applicationId: discord.world.applicationId,
      channel: discord.world.general,
      guildId: discord.world.guildOf(discord.world.general.id),
      user: discord.world.people.alice,
      customId: thumbsDown.record.modal!.custom_id,
    });
    submit.data.components = [
      {
        type: ComponentType.ActionRow,
        components: [{ type: ComponentType.TextInput, custom_id: 'comment', value: 'Nine thirty.' }],
      },
    ];
    expect((await discord.overHttp(b.url, submit)).body).toMatchObject({ type: 4 });
    await until(async () => (await votes(turnId))[0]?.comment === 'Nine thirty.', 'the comment', 10_000);
    expect(await votes(turnId)).toEqual([{ value: 'down', comment: 'Nine thirty.' }]);
  });
});
