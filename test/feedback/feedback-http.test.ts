/**
 * Feedback on answers (issue 47) over HTTP and the console chat, through the real app on PGlite:
 * every /api/chat answer (JSON and the SSE `done` event) carries its `turnId`; `POST /api/feedback`
 * records one vote per person per answer, changeable, a thumbs-down with its comment; sending the
 * same vote again counts once (`switchboard_feedback_total`); another tenant's answer is a 404; the
 * console's `/good` and `/bad <comment>` rate the last answer. The vote sits with the turn record,
 * its voter the same keyed hash as the turn's user, and goes when the turn record is pruned.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHttpApp } from '../../src/adapters/http/app.js';
import { startHttpServer, type RunningServer } from '../../src/adapters/http/server.js';
import { createTerminalSession } from '../../src/adapters/terminal/session.js';
import { createApiToken } from '../../src/data/api-tokens.js';
import type { AdminDataPort } from '../../src/data/index.js';
import { metrics } from '../../src/telemetry/metrics.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { openPgliteTestPort } from '../helpers/db.js';
import { sqlRows } from './sql.js';
import { startHarness, type Harness } from '../helpers/harness.js';

let port: AdminDataPort;
let llm: FakeOpenAI;
let h: Harness;
let server: RunningServer;
let token: string;
let otherToken: string;
let n = 0;

beforeAll(async () => {
  port = await openPgliteTestPort();
  llm = await startFakeOpenAI();
  h = await startHarness({
    llm,
    data: port,
    env: { TURN_LOG_HASH_KEY: 'feedback-test-hash-key-0123456789abcdef', FEEDBACK: 'on' },
  });
  const app = createHttpApp({ agent: h.sb.agent, log: h.sb.log, data: port });
  server = await startHttpServer(app, 0, '127.0.0.1');
  ({ token } = await createApiToken(port, 'harbourside'));
  ({ token: otherToken } = await createApiToken(port, 'default'));
});
afterAll(async () => {
  await server?.close();
  await h?.close();
  await llm?.close();
  await port?.close();
});
beforeEach(() => llm.reset());

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON answers read field by field in assertions

const post = async (path: string, body: unknown, bearer = token, accept?: string) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${bearer}`,
      ...(accept ? { accept } : {}),
    },
    body: JSON.stringify(body),
  });
const ask = async (userId = 'alice', bearer = token) => {
  llm.script({ text: `Answer number ${++n}.` });
  const res = await post('/api/chat', { message: 'How late are you open?', userId, threadId: `fb-${n}` }, bearer);
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
};
const vote = async (body: Json, bearer = token) => {
  const res = await post('/api/feedback', body, bearer);
  return { status: res.status, body: (await res.json()) as Json };
};
const counted = async (value: 'up' | 'down') =>
  (await metrics.feedback.get()).values.find((v) => v.labels.value === value)?.value ?? 0;
const rowsOf = async (turnId: string) =>
  sqlRows<{ value: string; comment: string | null; user_hash: string; platform: string }>(
    port,
    `select value, comment, user_hash, platform from public.turn_feedback where turn_id = $1 order by id`,
    [turnId],
  );

describe('feedback over HTTP', () => {
  it('every answer carries its turnId, in JSON and in the SSE done event, and the turn record has it', async () => {
    const answer = await ask();
    expect(answer.turnId).toMatch(/^[0-9a-f-]{36}$/);
    // The vote controls are the chat platforms': an API answer's blocks do not carry them.
    expect(JSON.stringify(answer.blocks)).not.toContain('feedback');
    const [turn] = await sqlRows<{ outcome: string }>(port, `select outcome from public.turn_log where turn_id = $1`, [
      answer.turnId,
    ]);
    expect(turn?.outcome).toBe('answered');

    llm.script({ text: 'Streamed answer.' });
    const res = await post(
      '/api/chat',
      { message: 'And on Sunday?', userId: 'alice', threadId: 'fb-sse' },
      token,
      'text/event-stream',
    );
    const text = await res.text();
    const done = /event: done\ndata: (.+)\n/.exec(text)?.[1];
    const turnId = (JSON.parse(done ?? '{}') as Json).turnId as string;
    expect(turnId).toMatch(/^[0-9a-f-]{36}$/);
    expect(turnId).not.toBe(answer.turnId);
  });

  it('one vote per person per answer: a change replaces it, a repeat counts once, a comment stays with the 👎', async () => {
    const { turnId } = await ask('bob');
    const ups = await counted('up');
    const downs = await counted('down');

    const first = await vote({ turnId, value: 'up', userId: 'bob' });
    expect(first).toEqual({ status: 200, body: { turnId, value: 'up', previous: null, changed: true } });
    // The same vote again (a client's retry): recorded once, counted once.
    const again = await vote({ turnId, value: 'up', userId: 'bob' });
    expect(again.body).toMatchObject({ value: 'up', previous: 'up', changed: false });
    expect(await counted('up')).toBe(ups + 1);

    const changed = await vote({
      turnId,
      value: 'down',
      userId: 'bob',
      comment: '  The hours were for the wrong branch.  ',
    });
    expect(changed.body).toMatchObject({ value: 'down', previous: 'up', changed: true });
    expect(await counted('down')).toBe(downs + 1);
    const rows = await rowsOf(turnId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ value: 'down', comment: 'The hours were for the wrong branch.', platform: 'http' });

    // Another person's vote on the same answer is their own.
    await vote({ turnId, value: 'up', userId: 'carol' });
    expect(await rowsOf(turnId)).toHaveLength(2);

    // The voter is the turn record's keyed hash of the same person: bob's vote has bob's turn's user_hash.
    const [turn] = await sqlRows<{ user_hash: string }>(
      port,
      `select user_hash from public.turn_log where turn_id = $1`,
      [turnId],
    );
    expect(rows[0]!.user_hash).toBe(turn!.user_hash);
    expect(JSON.stringify(await rowsOf(turnId))).not.toContain('bob');

    // Back to 👍 without a comment: the 👎's comment goes with it.
    await vote({ turnId, value: 'up', userId: 'bob' });
    expect((await rowsOf(turnId))[0]).toMatchObject({ value: 'up', comment: null });
  });

  it('refuses a vote on another tenant’s answer, an unknown one, and a malformed body, saying why', async () => {
    const theirs = await ask('dave', otherToken);
    const foreign = await vote({ turnId: theirs.turnId, value: 'down', userId: 'dave' });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('unknown_turn');
    expect(await rowsOf(theirs.turnId as string)).toHaveLength(0);

    const unknown = await vote({ turnId: '00000000-0000-4000-8000-000000000000', value: 'up' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toMatch(/can’t find that answer/);

    const bad = await vote({ turnId: theirs.turnId, value: 'meh' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('"value": "up" | "down"');
  });

  it('the comment lives as long as its turn record: pruning the turn deletes its votes', async () => {
    const { turnId } = await ask('erin');
    await vote({ turnId, value: 'down', userId: 'erin', comment: 'Wrong.' });
    await port.transport.sql!.query(
      `update public.turn_log set created_at = now() - interval '100 days' where turn_id = $1`,
      [turnId],
    );
    await port.admin('prune_turn_log', { days: 90 }, z.unknown());
    expect(await rowsOf(turnId)).toHaveLength(0);
  });
});

describe('feedback in the console chat', () => {
  it('/good and /bad <comment> rate the last answer; before any answer there is nothing to rate', async () => {
    let printed = '';
    const session = createTerminalSession(h.sb.agent, { write: (t) => void (printed += t) }, { filesDir: '/tmp' });
    await session.send('/good');
    expect(printed).toContain('No answer to rate yet.');

    llm.script({ text: 'We open at nine.' });
    await session.send('When do you open?');
    expect(printed).toContain('/good, or /bad');
    const [turn] = await sqlRows<{ turn_id: string }>(
      port,
      `select turn_id from public.turn_log where platform = 'console' order by created_at desc limit 1`,
    );
    await session.send('/good');
    expect(printed).toContain('glad it helped');
    await session.send('/bad It was nine thirty.');
    expect(printed).toContain('noted');
    expect(await rowsOf(turn!.turn_id)).toEqual([
      expect.objectContaining({ value: 'down', comment: 'It was nine thirty.', platform: 'console' }),
    ]);
  });
});
