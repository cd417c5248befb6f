/**
 * Chaos: two real Switchboard processes (`src/main.ts`, as `npm start` runs it) on one Redis,
 * behind a "load balancer" that spreads Slack's signed events over both. Every message comes
 * as an app_mention/message twin, some are retried on the other replica; one replica is
 * killed with SIGKILL mid-run and started again, then the other is restarted gracefully
 * (SIGTERM, as a rolling deploy does). Every message must be answered exactly once, each
 * thread's answers in the order of its questions.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type RecordedRequest } from '../fakes/openai-server.js';
import { postEvent } from '../fakes/slack/signing.js';
import { startFakeSlack, type FakeMessage } from '../fakes/slack/web-api.js';
import { freePort } from '../helpers/free-port.js';

const REDIS_URL = process.env.TEST_REDIS_URL;
if (!REDIS_URL) console.warn('[chaos] TEST_REDIS_URL is not set: the replica chaos test is SKIPPED');

const SECRET = 'chaos-signing-secret';
const BOT = 'U0CHAOSBOT';
const THREADS = 25;
const PER_THREAD = 8; // 200 messages, 400+ events
const children: ChildProcess[] = [];
afterAll(() => children.forEach((c) => c.kill('SIGKILL')));

interface Replica {
  name: string;
  url: string;
  up: boolean;
  proc?: ChildProcess;
  out: string;
}

function lastUserText(req: RecordedRequest): string {
  const messages = (req.body.messages ?? []) as { role: string; content?: unknown }[];
  const user = [...messages].reverse().find((m) => m.role === 'user');
  return typeof user?.content === 'string' ? user.content : '';
}

describe.skipIf(!REDIS_URL)('two replicas, Slack retries and twins, one replica killed mid-run', () => {
  it('answers every message exactly once, in thread order', async () => {
    const llm = await startFakeOpenAI();
    // Every answer names its question; each turn takes a few hundred ms, so turns are in flight when the kill comes.
    llm.script(
      ...Array.from({ length: 2_000 }, () => (req: RecordedRequest) => ({
        text: `Answer to ${lastUserText(req)} done`,
        delayMs: 100 + randomInt(0, 150),
        chunkDelayMs: 40,
      })),
    );
    const slack = await startFakeSlack({ botUserId: BOT });
    const queue = `chaos${randomUUID().slice(0, 8)}`;

    const start = async (r: Replica): Promise<void> => {
      const from = r.out.length; // logs of every run of this replica are kept
      const port = Number(new URL(r.url).port);
      const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        env: {
          PATH: process.env.PATH ?? '',
          OPENAI_API_KEY: 'sk-chaos',
          OPENAI_BASE_URL: llm.url,
          OPENAI_MAX_RETRIES: '0',
          PORT: String(port),
          HOST: '127.0.0.1',
          PGLITE_MEMORY: '1',
          REDIS_URL: REDIS_URL!,
          INBOX_QUEUE: queue,
          INBOX_LEASE_MS: '2000',
          // Short, so the rolling restart really hands running turns back.
          SHUTDOWN_DRAIN_MS: '200',
          // One user sends every message here, far over the flood limit on purpose: this test is about delivery.
          USER_MESSAGES_PER_MINUTE: '0',
          SLACK_BOT_TOKEN: slack.options.botToken,
          SLACK_SIGNING_SECRET: SECRET,
          SLACK_API_URL: slack.url,
          LOG_LEVEL: 'info',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(proc);
      r.proc = proc;
      proc.stdout!.on('data', (d: Buffer) => (r.out += d.toString()));
      proc.stderr!.on('data', (d: Buffer) => (r.out += d.toString()));
      const deadline = Date.now() + 60_000;
      while (!r.out.slice(from).includes('Switchboard listening')) {
        if (Date.now() > deadline || proc.exitCode !== null)
          throw new Error(`${r.name} did not start:\n${r.out.slice(-2_000)}`);
        await sleep(50);
      }
      r.up = true;
    };
    const replicas: Replica[] = [];
    for (const name of ['a', 'b'])
      replicas.push({ name, url: `http://127.0.0.1:${await freePort()}`, up: false, out: '' });
    await Promise.all(replicas.map(start));

    /** What a load balancer plus Slack's retries do: try the chosen replica, on failure the other, until one acks. */
    const deliver = async (body: object, first: number, retryNum?: number): Promise<void> => {
      for (let attempt = 0; attempt < 200; attempt++) {
        const r = replicas[(first + attempt) % 2]!;
        if (r.up) {
          const res = await postEvent(`${r.url}/slack/events`, body, {
            secret: SECRET,
            ...(retryNum !== undefined || attempt > 0 ? { retryNum: (retryNum ?? 0) + attempt } : {}),
          }).catch(() => undefined);
          if (res?.status === 200) return;
        }
        await sleep(25);
      }
      throw new Error('no replica acked an event');
    };

    const base = 1_950_000_000 + randomInt(0, 10_000_000);
    const threads = Array.from({ length: THREADS }, (_, t) => ({
      channel: `C0CHAOS${t % 3}`,
      root: `${base + t}.000100`,
      questions: [] as { ts: string; text: string }[],
    }));
    let sent = 0;
    let killed = false;
    const total = THREADS * PER_THREAD;
    const sendThread = async (t: number) => {
      const thread = threads[t]!;
      for (let q = 0; q < PER_THREAD; q++) {
        const ts = q === 0 ? thread.root : `${base + t}.${String(200 + q).padStart(6, '0')}`;
        const text = `q${q} of t${t}`;
        thread.questions.push({ ts, text });
        const event = {
          user: 'U0HUMAN1',
          ts,
          event_ts: ts,
          text: `<@${BOT}> ${text}`,
          channel: thread.channel,
          team: 'T0CHAOS',
          ...(q ? { thread_ts: thread.root } : {}),
        };
        const envelope = (type: string) => ({
          token: 'x',
          team_id: 'T0CHAOS',
          api_app_id: 'A0CHAOS',
          type: 'event_callback',
          event_id: `Ev${type}${t}x${q}`,
          event_time: 1,
          event: { type, ...event, ...(type === 'message' ? { channel_type: 'channel' } : {}) },
          authorizations: [{ team_id: 'T0CHAOS', user_id: BOT, is_bot: true }],
        });
        const side = randomInt(0, 2);
        // The twins go to different replicas; every fifth message is also retried by Slack.
        await Promise.all([deliver(envelope('app_mention'), side), deliver(envelope('message'), 1 - side)]);
        if (q % 5 === 2) await deliver(envelope('app_mention'), 1 - side, 1);
        sent++;
        await sleep(randomInt(20, 120));
      }
    };
    let rolled: number | null = null;
    const kill = (async () => {
      while (sent < total * 0.3) await sleep(10);
      const a = replicas[0]!;
      a.up = false;
      a.proc!.kill('SIGKILL');
      killed = true;
      await sleep(1_000);
      await start(a);
      // A rolling deploy of the other one: the load balancer stops sending, then SIGTERM.
      while (sent < total * 0.65) await sleep(10);
      const b = replicas[1]!;
      b.up = false;
      const exited = new Promise<number | null>((resolve) => b.proc!.once('exit', (code) => resolve(code)));
      b.proc!.kill('SIGTERM');
      rolled = await exited;
      await start(b);
    })();
    await Promise.all([...threads.keys()].map(sendThread));
    await kill;
    expect(killed).toBe(true);
    expect(rolled).toBe(0); // the graceful stop exited cleanly

    const shownText = (m: FakeMessage) => (m.updates > 0 || !m.stream ? m.text : m.stream.markdown);
    const answers = () => threads.map((t) => slack.threadReplies(t.channel, t.root).map(shownText));
    const expected = threads.map((t, i) =>
      t.questions.map((q) => `Answer to ${q.text.replace(/ of t\d+$/, '')} of t${i} done`),
    );
    const complete = () =>
      answers().every((list, i) => list.filter((x) => x.endsWith('done')).length >= expected[i]!.length);
    await slack.waitFor(complete, 'every message answered', 60_000).catch(() => undefined);

    const got = answers();
    const missing = expected.flatMap((list, i) => list.filter((a) => !got[i]!.includes(a)));
    const doubled = got.flatMap((list) => list.filter((a, j) => list.indexOf(a) !== j));
    const outOfOrder = got.filter(
      (list, i) => JSON.stringify(list.filter((x) => expected[i]!.includes(x))) !== JSON.stringify(expected[i]),
    );
    const replayed = replicas.reduce((n, r) => n + (r.out.match(/"attempt":[2-9]/g)?.length ?? 0), 0);
    const count = (re: RegExp) => replicas.map((r) => `${r.name}: ${r.out.match(re)?.length ?? 0}`).join(', ');
    console.log(
      `[chaos] stalled-job recoveries ${count(/run again/g)}; turns handed back at SIGTERM ${count(/handed back at shutdown/g)}`,
    );
    console.log(
      `[chaos] ${total} messages, ${got.flat().length} answers; missing ${missing.length}, doubled ${doubled.length}, threads out of order ${outOfOrder.length}, turns replayed after the kill ${replayed}`,
    );
    // On failure: what the threads with a missing answer show, and the replicas' warnings, to see why.
    const shown = got.flatMap((list, i) =>
      expected[i]!.some((a) => !list.includes(a)) ? [`t${i}: ${list.map((x) => x.slice(0, 60)).join(' | ')}`] : [],
    );
    const warnings = replicas.flatMap((r) =>
      r.out.split('\n').flatMap((l) => (/"level":[45]0/.test(l) ? [`${r.name} ${l.slice(0, 240)}`] : [])),
    );
    expect(
      { missing, doubled, outOfOrder: outOfOrder.length },
      `threads:\n${shown.join('\n')}\nwarnings:\n${warnings.slice(0, 20).join('\n')}`,
    ).toEqual({ missing: [], doubled: [], outOfOrder: 0 });
    // Nothing but answers in the threads (no error notices, no stray messages).
    expect(got.flat()).toHaveLength(total);

    for (const r of replicas) r.proc?.kill('SIGTERM');
    await slack.close();
    // How many model calls the run makes depends on how many turns the kill cut short (each
    // replayed turn asks again): the script is a generous supply, not a count.
    llm.allowUnused();
    await llm.close();
  }, 120_000);
});
