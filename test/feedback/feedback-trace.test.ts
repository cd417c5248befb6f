/**
 * A vote on an answer (issue 47) as a span event on the answer's trace: a Slack answer traced over
 * OTLP (the loopback collector), then a 👍 on it: a `switchboard.feedback` span in the turn's
 * trace (its id from the turn record) carries a `feedback` event with the value; a repeated vote
 * says it changed nothing.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTracing, type Tracing } from '../../src/telemetry/start.js';
import { isAdminPort } from '../../src/data/index.js';
import { startOtlpCollector, type OtlpCollector } from '../fakes/otlp-collector.js';
import { eventBody, mention, postEvent, sign, startSlackRig, type SlackRig } from '../adapters/slack/setup.js';
import { feedbackButtons, feedbackClick, until } from './slack-helpers.js';
import { sqlRows } from './sql.js';

let rig: SlackRig;
let collector: OtlpCollector;
let tracing: Tracing | undefined;

beforeAll(async () => {
  collector = await startOtlpCollector();
  rig = await startSlackRig({ mode: 'http', env: { FEEDBACK: 'on' } });
  vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', collector.url);
  tracing = await startTracing({ ...process.env, OPENAI_BASE_URL: rig.h.config.OPENAI_BASE_URL }, rig.h.sb.log);
});
afterAll(async () => {
  await tracing?.shutdown();
  vi.unstubAllEnvs();
  await rig?.close();
  await collector?.close();
});

describe('feedback on the trace', () => {
  it('puts a feedback event on the answer’s trace', async () => {
    expect(tracing).toBeDefined();
    rig.llm.script({ text: 'We open at nine.' });
    const before = rig.deliveredCount();
    const post = mention('when do you open?');
    await postEvent(rig.eventsUrl, eventBody(post), sign());
    await rig.delivered(before + 1);
    const { up } = feedbackButtons(rig, post.ts)!;
    const turnId = up.slice(3);
    const port = rig.h.sb.data;
    if (!isAdminPort(port)) throw new Error('no admin port');
    const [turn] = await sqlRows<{ trace_id: string | null }>(
      port,
      `select trace_id from public.turn_log where turn_id = $1`,
      [turnId],
    );
    expect(turn?.trace_id).toMatch(/^[0-9a-f]{32}$/);

    await feedbackClick(rig, post.ts, up);
    await until(
      async () => (await sqlRows(port, `select 1 from public.turn_feedback where turn_id = $1`, [turnId])).length === 1,
      'the vote',
    );
    const feedbackSpan = async () => {
      await tracing!.flush();
      return collector.spans.find((s) => s.name === 'switchboard.feedback' && s.traceId === turn!.trace_id);
    };
    await until(async () => Boolean(await feedbackSpan()), 'the feedback span', 10_000);
    const span = (await feedbackSpan())!;
    expect(span.attributes['switchboard.turn.id']).toBe(turnId);
    expect(span.events).toEqual([
      expect.objectContaining({
        name: 'feedback',
        attributes: expect.objectContaining({
          'switchboard.feedback.value': 'up',
          'switchboard.feedback.changed': true,
        }),
      }),
    ]);
  });
});
