/**
 * Issue 43 over HTTP, through `serve()` (the HTTP API, the inbox and the approval sweep as `npm
 * start` wires them) on PGlite and the fake OpenAI:
 *
 * - an HTTP approval nobody decides expires on its own (the sweep, every 100 ms here): a client
 *   waiting on `GET /api/approvals/{id}` (SSE) sees `approval_decided` (expired) and the turn's
 *   final answer; a JSON caller deciding or polling afterwards gets `410` with that answer;
 * - a waiting stream also sees a decision someone POSTs;
 * - the decision and the expiry are not new messages: the per-user flood limit and the token
 *   budget that refuse the asker's next message let them through.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApiToken } from '../../src/data/api-tokens.js';
import type { AdminDataPort } from '../../src/data/index.js';
import { serve, type Serving } from '../../src/wiring/serve.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { openPgliteTestPort } from '../helpers/db.js';
import { captureLogs, serveConfig } from '../helpers/harness.js';

const TAKE = {
  name: 'take_message',
  arguments: { name: 'Expiry Test', contact: '+61 400 222 333', message: 'Please call me about the expiry.' },
};
const BUDGET = 1_000;

let port: AdminDataPort;
let llm: FakeOpenAI;
let app: Serving;
let token: string;
let n = 0;

beforeAll(async () => {
  port = await openPgliteTestPort();
  llm = await startFakeOpenAI();
  const { log } = captureLogs('info');
  app = await serve(
    serveConfig(llm.url, {
      APPROVAL_SWEEP_MS: '100',
      USER_MESSAGES_PER_MINUTE: '3',
      TOKEN_BUDGET_PER_USER_DAILY: String(BUDGET),
    }),
    log,
    { data: port },
  );
  ({ token } = await createApiToken(port, 'harbourside'));
}, 60_000);
afterAll(async () => {
  await app?.stop();
  await llm?.close();
  await port?.close();
});
beforeEach(async () => {
  llm.reset();
  await port.transport.sql!.exec(`delete from public.business_messages where name = 'Expiry Test'`);
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON answers read field by field in assertions
const post = async (path: string, body: unknown) => {
  const res = await fetch(`${app.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
};
const get = async (path: string) => {
  const res = await fetch(`${app.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as Json };
};
const ask = (userId: string) =>
  post('/api/chat', { message: 'Please pass on a message', userId, threadId: `expiry-${++n}` });
/**
 * Opens the waiting stream of an approval: `opened` once its first event (the approval as it is)
 * arrived, `text` with the whole stream once the server ends it.
 */
const waitingStream = async (id: string, userId: string) => {
  const res = await fetch(`${app.url}/api/approvals/${id}?userId=${userId}`, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
  });
  expect(res.status).toBe(200);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  let chunk = await reader.read();
  text += chunk.value ?? '';
  const rest = (async () => {
    while (!chunk.done) {
      chunk = await reader.read();
      text += chunk.value ?? '';
    }
    return text;
  })();
  return { text: rest };
};
const eventsOf = (text: string) =>
  [...text.matchAll(/event: (\w+)\ndata: (.*)\n/g)].map((m) => ({ event: m[1]!, data: JSON.parse(m[2]!) as Json }));
const expireNow = (id: string) =>
  port.transport.sql!.query(`update public.tool_approvals set expires_at = now() - interval '1 second' where id = $1`, [
    id,
  ]);
const taken = async () =>
  (await port.transport.sql!.query(`select 1 from public.business_messages where name = 'Expiry Test'`)).length;
const stateOf = async (id: string) =>
  (await port.transport.sql!.query(`select state from public.tool_approvals where id = $1`, [id]))[0]?.state;
async function until<T>(probe: () => Promise<T | undefined | false>, what: string, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('an HTTP approval nobody decides', () => {
  it('expires on its own: a waiting SSE client sees the outcome and the final answer; later callers get 410', async () => {
    llm.script({ toolCalls: [TAKE] });
    const asked = await ask('sse-alice');
    expect(asked.status).toBe(202);
    const id = asked.body.approval.id as string;

    const stream = await waitingStream(id, 'sse-alice');
    llm.script({ text: 'Nobody approved it in time, so nothing was passed on.' });
    await expireNow(id);
    const events = eventsOf(await stream.text);
    expect(events.map((e) => e.event)).toEqual(['approval', 'approval_decided', 'reply', 'done']);
    expect(events[0]!.data).toMatchObject({ id, tool: 'take_message', state: 'pending' });
    expect(events[1]!.data).toMatchObject({ outcome: 'expired' });
    expect(events[2]!.data.text).toBe('Nobody approved it in time, so nothing was passed on.');
    expect(await stateOf(id)).toBe('expired');
    expect(await taken()).toBe(0);

    // A decision after the expiry: 410, nothing run, the turn's final answer along.
    const late = await post(`/api/approvals/${id}`, { decision: 'approve', userId: 'sse-alice' });
    expect(late.status).toBe(410);
    expect(late.body.error.code).toBe('approval_expired');
    expect(late.body.error.message).toMatch(/^This approval expired at \d\d:\d\d UTC; the call was not run\.$/);
    expect(late.body.response).toBe('Nobody approved it in time, so nothing was passed on.');
    expect(late.body.approval).toMatchObject({ id, state: 'expired' });
    // A poller: the same.
    const polled = await get(`/api/approvals/${id}?userId=sse-alice`);
    expect(polled.status).toBe(410);
    expect(polled.body.response).toBe('Nobody approved it in time, so nothing was passed on.');
    expect(await taken()).toBe(0);
  });

  it('a decision that comes after the time but before the sweep: 410 with the final answer, nothing run', async () => {
    llm.script({ toolCalls: [TAKE] });
    const asked = await ask('late-alice');
    const id = asked.body.approval.id as string;
    // Past its time, and the sweep not yet there: the row moved far enough that the sweep's batch misses nothing.
    llm.script({ text: 'It expired before you decided.' });
    await expireNow(id);
    const late = await post(`/api/approvals/${id}`, { decision: 'approve', userId: 'late-alice' });
    expect(late.status).toBe(410);
    expect(late.body.error.code).toBe('approval_expired');
    // This decision's turn expired it (its answer is the body's), or the sweep got there first (the answer follows).
    const answer = await until(async () => {
      const p = await get(`/api/approvals/${id}?userId=late-alice`);
      return p.body.response as string | undefined;
    }, 'the expiry’s answer');
    expect(answer).toBe('It expired before you decided.');
    if (late.body.response !== undefined) expect(late.body.response).toBe(answer);
    expect(await stateOf(id)).toBe('expired');
    expect(await taken()).toBe(0);
  });

  it('only the asker (or a named approver) can read it', async () => {
    llm.script({ toolCalls: [TAKE] });
    const asked = await ask('reader-alice');
    const id = asked.body.approval.id as string;
    expect((await get(`/api/approvals/${id}?userId=mallory`)).status).toBe(404);
    const own = await get(`/api/approvals/${id}?userId=reader-alice`);
    expect(own.status).toBe(200);
    expect(own.body.approval).toMatchObject({ id, state: 'pending', tool: 'take_message' });
    llm.script({ text: 'Declined, nothing passed on.' });
    expect((await post(`/api/approvals/${id}`, { decision: 'deny', userId: 'reader-alice' })).status).toBe(200);
  });
});

describe('a waiting stream and a decision', () => {
  it('sees the approval someone POSTs, and the answer', async () => {
    llm.script({ toolCalls: [TAKE] });
    const asked = await ask('wait-alice');
    const id = asked.body.approval.id as string;
    const stream = await waitingStream(id, 'wait-alice');
    llm.script({ text: 'Passed on.' });
    const decided = await post(`/api/approvals/${id}`, { decision: 'approve', userId: 'wait-alice' });
    expect(decided.status).toBe(200);
    expect(decided.body.response).toBe('Passed on.');
    const events = eventsOf(await stream.text);
    expect(events.map((e) => e.event)).toEqual(['approval', 'approval_decided', 'reply', 'done']);
    expect(events[1]!.data).toMatchObject({ outcome: 'approved' });
    expect(events[2]!.data.text).toBe('Passed on.');
    expect(events[3]!.data.toolCalls).toEqual([expect.objectContaining({ tool: 'take_message', ok: true })]);
    expect(await taken()).toBe(1);
    await port.transport.sql!.exec(`delete from public.business_messages where name = 'Expiry Test'`);
  });
});

describe('a decision and an expiry are not new messages', () => {
  it('the flood limit that refuses the asker’s next message lets the decision through', async () => {
    llm.script({ toolCalls: [TAKE] }, { text: 'Hello again.' }, { text: 'Still here.' });
    const asked = await ask('flood-alice');
    expect(asked.status).toBe(202);
    for (const thread of ['flood-2', 'flood-3'])
      expect((await post('/api/chat', { message: 'hello', userId: 'flood-alice', threadId: thread })).status).toBe(200);
    const refused = await post('/api/chat', { message: 'and again', userId: 'flood-alice', threadId: 'flood-4' });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    llm.script({ text: 'Passed on.' });
    const decided = await post(`/api/approvals/${asked.body.approval.id}`, {
      decision: 'approve',
      userId: 'flood-alice',
    });
    expect(decided.status).toBe(200);
    expect(decided.body.response).toBe('Passed on.');
    expect(await taken()).toBe(1);
    await port.transport.sql!.exec(`delete from public.business_messages where name = 'Expiry Test'`);
  });

  it('the budget that refuses the asker’s next message lets a decision and the expiry through', async () => {
    llm.script({ toolCalls: [TAKE] });
    const first = await ask('budget-alice');
    // The second turn takes the asker over the daily budget.
    llm.script({ toolCalls: [TAKE], usage: { prompt_tokens: BUDGET * 5, completion_tokens: 10 } });
    const second = await ask('budget-alice');
    expect([first.status, second.status]).toEqual([202, 202]);
    await until(async () => {
      const usage = await get('/api/usage?userId=budget-alice');
      return (usage.body.promptTokens as number) >= BUDGET && usage;
    }, 'the turn’s usage in the ledger');
    const refused = await post('/api/chat', { message: 'more', userId: 'budget-alice', threadId: 'budget-3' });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('budget_exhausted');

    // A decision on the first: the rest of a turn already admitted.
    llm.script({ text: 'Passed on.' });
    const decided = await post(`/api/approvals/${first.body.approval.id}`, {
      decision: 'approve',
      userId: 'budget-alice',
    });
    expect(decided.status).toBe(200);
    expect(decided.body.response).toBe('Passed on.');
    expect(await taken()).toBe(1);

    // The expiry of the second (the sweep's entry): it expires, the model is told.
    llm.script({ text: 'Nobody approved it in time.' });
    await expireNow(second.body.approval.id);
    const polled = await until(async () => {
      const p = await get(`/api/approvals/${second.body.approval.id}?userId=budget-alice`);
      return p.status === 410 && p.body.response !== undefined && p;
    }, 'the expiry’s answer');
    expect(polled.body.response).toBe('Nobody approved it in time.');
    expect(await taken()).toBe(1);
    await port.transport.sql!.exec(`delete from public.business_messages where name = 'Expiry Test'`);
  });
});
