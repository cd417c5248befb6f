/**
 * Feedback on answers in Discord (issue 47), through the real app with the fake Discord (PGlite):
 * the last message of an answer carries 👍 and 👎 buttons naming its turn record. Over the
 * interactions endpoint a click is recorded in the inbox before its response: a 👍 is deferred and
 * thanked privately by the run, the same interaction delivered twice counts once, a 👎 is answered
 * with the comment modal (response type 9) and the modal's submission puts the comment with the
 * vote. Over the gateway the same: the 👎's modal, its submission, the comment stored.
 */
import { ComponentType, InteractionType, MessageFlags, type APIMessage } from 'discord.js';
import { Hono } from 'hono';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDiscordAdapter } from '../../src/adapters/discord/index.js';
import { startHttpServer, type RunningServer } from '../../src/adapters/http/server.js';
import type { AdminDataPort } from '../../src/data/index.js';
import { metrics } from '../../src/telemetry/metrics.js';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.js';
import { modalSubmitInteraction } from '../fakes/discord/payloads.js';
import { openPgliteTestPort } from '../helpers/db.js';
import { runAdapter, startHarness, type Harness } from '../helpers/harness.js';
import { buttonsOf, interactionAnswer, specProblems } from '../adapters/discord/helpers.js';
import { until } from './slack-helpers.js';
import { inboxIdle } from '../helpers/inbox-idle.js';
import { sqlRows } from './sql.js';

let discord: FakeDiscord;
let data: AdminDataPort;
let h: Harness;
let server: RunningServer;
let stop: (() => Promise<void>) | undefined;
let url = '';

beforeAll(async () => {
  [discord, data] = await Promise.all([startFakeDiscord(), openPgliteTestPort({ seedDemo: false })]);
  // The gateway and the interactions endpoint at once: each test says which way its interaction comes.
  h = await startHarness({ env: { ...discord.env(), DISCORD_PUBLIC_KEY: discord.publicKey, FEEDBACK: 'on' }, data });
  const adapter = createDiscordAdapter(h.sb)!;
  server = await startHttpServer(new Hono(), 0, '127.0.0.1', adapter.routes);
  url = `${server.url}/discord/interactions`;
  stop = await runAdapter(h.sb, adapter);
});
afterAll(async () => {
  await stop?.();
  await server?.close();
  await h?.close();
  await data?.close();
  await discord?.close();
});
beforeEach(() => h.llm.reset());

const votes = (turnId: string) =>
  sqlRows<{ value: string; comment: string | null; platform: string }>(
    data,
    `select value, comment, platform from public.turn_feedback where turn_id = $1`,
    [turnId],
  );
const counted = async (value: string) =>
  (await metrics.feedback.get()).values.find((v) => v.labels.value === value)?.value ?? 0;

/** An answer to /ask over the gateway, and its 👍/👎 buttons. */
async function answer(text: string): Promise<{ message: APIMessage; up: string; down: string; turnId: string }> {
  h.llm.script({ text });
  const ask = discord.command('ask', { question: 'when do you open?' });
  const [message] = await interactionAnswer(discord, ask.payload.token);
  const buttons = buttonsOf(message!);
  const up = buttons.find((b) => 'emoji' in b && b.emoji?.name === '👍')!.custom_id;
  const down = buttons.find((b) => 'emoji' in b && b.emoji?.name === '👎')!.custom_id;
  return { message: message!, up, down, turnId: up.replace(/^feedback\|up:/, '') };
}

function modalSubmit(customId: string, comment: string) {
  const p = modalSubmitInteraction({
    applicationId: discord.world.applicationId,
    channel: discord.world.general,
    guildId: discord.world.guildOf(discord.world.general.id),
    user: discord.world.people.alice,
    customId,
  });
  p.data.components = [
    {
      type: ComponentType.ActionRow,
      components: [{ type: ComponentType.TextInput, custom_id: 'comment', value: comment }],
    },
  ];
  return p;
}

describe('feedback on Discord', () => {
  it('puts 👍 and 👎 on the answer’s last message, naming its turn record', async () => {
    const { message, turnId, down } = await answer('We open at nine.');
    expect(message.content).toBe('We open at nine.');
    expect(down).toBe(`feedback|down:${turnId}`);
    const [turn] = await sqlRows<{ outcome: string }>(data, `select outcome from public.turn_log where turn_id = $1`, [
      turnId,
    ]);
    expect(turn?.outcome).toBe('answered');
    expect(specProblems(discord.calls)).toEqual([]);
  });

  it('over the interactions endpoint: a 👍 recorded before its response and counted once when delivered twice; a 👎 opens the modal; the comment is kept', async () => {
    const { message, up, down, turnId } = await answer('Nine to five.');
    const ups = await counted('up');
    const click = discord.clickPayload(message.id, up);
    const first = await discord.overHttp(url, click);
    expect(first).toMatchObject({ status: 200, body: { type: 6 }, callbackStatus: 204 });
    await until(async () => (await votes(turnId)).length === 1, 'the vote');
    const [thanks] = await interactionAnswer(discord, click.token);
    expect(thanks!.content).toContain('glad it helped');
    expect(thanks!.flags! & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    // Discord delivers the same interaction again (its retry after a lost response): recorded once, counted once.
    const again = await discord.overHttp(url, click);
    expect(again.status).toBe(200);
    await inboxIdle(h.sb.inbox);
    expect(await votes(turnId)).toHaveLength(1);
    expect(await counted('up')).toBe(ups + 1);

    const thumbsDown = await discord.overHttp(url, discord.clickPayload(message.id, down));
    expect(thumbsDown).toMatchObject({ status: 200, body: { type: 9 }, callbackStatus: 204 });
    const modal = thumbsDown.record.modal!;
    expect(modal.custom_id).toBe(`feedback.comment|${turnId}`);
    await until(async () => (await votes(turnId))[0]?.value === 'down', 'the changed vote');

    const submit = modalSubmit(modal.custom_id, 'The Sunday hours were wrong.');
    const submitted = await discord.overHttp(url, submit);
    expect(submitted).toMatchObject({ status: 200, body: { type: 4, data: { flags: MessageFlags.Ephemeral } } });
    await until(async () => (await votes(turnId))[0]?.comment === 'The Sunday hours were wrong.', 'the comment');
    expect(await votes(turnId)).toEqual([
      { value: 'down', comment: 'The Sunday hours were wrong.', platform: 'discord' },
    ]);
  });

  it('over the gateway: a 👎 shows the modal, its submission keeps the comment', async () => {
    const { message, down, turnId } = await answer('Closed on Mondays.');
    const click = discord.click(message.id, down);
    await discord.waitFor(() => click.modal, 'the modal');
    expect(click.callback?.type).toBe(9);
    await until(async () => (await votes(turnId))[0]?.value === 'down', 'the vote');
    const submit = discord.interact(modalSubmit(click.modal!.custom_id, 'Open on Mondays since May.'));
    await discord.waitFor(() => submit.callback, 'the answer to the submission');
    expect(submit.callback?.type).toBe(4);
    await until(async () => (await votes(turnId))[0]?.comment === 'Open on Mondays since May.', 'the comment');
    expect(submit.payload.type).toBe(InteractionType.ModalSubmit);
  });
});
