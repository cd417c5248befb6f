import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminDataPort } from '../../../src/data/index.js';
import { importRows } from '../../../src/data/import/run.js';
import { startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../../fakes/openai-server.js';
import { invalidBlockPayloads } from '../../fakes/slack/block-kit.js';
import { startFakeSlack, type FakeSlack } from '../../fakes/slack/web-api.js';
import { inboxIdle } from '../../helpers/inbox-idle.js';
import {
  BOT_USER,
  eventBody,
  fixture,
  freshTs,
  mention,
  postEvent,
  sign,
  startSlackRig,
  type SlackRig,
} from './setup.js';

const REDIS_URL = process.env.TEST_REDIS_URL;

// One embedded database for the file: the replicas below share it with this rig.
let rig: SlackRig;

describe('Slack workspaces map to tenants (TENANT_MODE=strict)', () => {
  beforeAll(async () => {
    rig = await startSlackRig({ mode: 'http', env: { TENANT_MODE: 'strict' } });
    // The recorded multi-workspace mention comes from team T0A8YAUUGMU: map it through the data layer.
    const data = rig.h.sb.data as AdminDataPort;
    const tenant = await data.defaultTenant();
    await importRows(data, 'tenant_workspaces', tenant.id, [{ platform: 'slack', workspace_id: 'T0A8YAUUGMU' }]);
  });
  it('answers a mapped workspace and tells an unmapped one it is not set up, using no tenant’s data', async () => {
    const { mention: mapped } = fixture('slack-multi-workspace.team1.json');
    rig.llm.script({ text: 'Mapped and answered.' });
    await postEvent(rig.eventsUrl, mapped!, sign());
    await rig.delivered(1);
    const mappedTs = (mapped!.event as { ts: string }).ts;
    expect(rig.slack.threadReplies('C0A9D9RTBMF', mappedTs).map((m) => m.text)).toEqual(['Mapped and answered.']);

    const stranger = mention('who are you?');
    await postEvent(rig.eventsUrl, eventBody(stranger, { team: 'T0STRANGER' }), sign());
    await rig.delivered(2);
    const [notice] = rig.slack.threadReplies('C0CHAN1', stranger.ts);
    expect(notice!.text).toMatch(/workspace is not set up/);
    expect(rig.llm.requestsTo('/chat/completions')).toHaveLength(1);
    expect(rig.h.logs.lines.some((l) => l.msg === 'turn failed' && l.code === 'tenant_not_configured')).toBe(true);
    expect(invalidBlockPayloads(rig.slack)).toEqual([]);
  });
});

describe.skipIf(!REDIS_URL)('two replicas sharing Redis', () => {
  let llm: FakeOpenAI;
  let slack: FakeSlack;
  let a: SlackRig;
  let b: SlackRig;
  beforeAll(async () => {
    llm = await startFakeOpenAI();
    slack = await startFakeSlack({ botUserId: BOT_USER });
    a = await startSlackRig({ mode: 'http', llm, slack, data: rig.h.sb.data, env: { REDIS_URL: REDIS_URL! } });
    b = await startSlackRig({ mode: 'http', llm, slack, data: rig.h.sb.data, env: { REDIS_URL: REDIS_URL! } });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await slack?.close();
    await llm?.close();
  });

  it('replies once when a retry and the twin event land on different replicas', async () => {
    llm.script({ text: 'One answer.' }); // strict: a second answer would be a call past the script
    const post = mention('replicas?');
    const first = eventBody(post);
    await Promise.all([
      postEvent(a.eventsUrl, first, sign()),
      postEvent(b.eventsUrl, first, sign({ retryNum: 1 })),
      postEvent(b.eventsUrl, eventBody({ ...post, type: 'message', channel_type: 'channel' }), sign()),
    ]);
    await slack.waitFor(() => a.deliveredCount() + b.deliveredCount() >= 1, 'one delivered turn');
    await Promise.all([inboxIdle(a.h.sb.inbox), inboxIdle(b.h.sb.inbox)]);
    expect(a.deliveredCount() + b.deliveredCount()).toBe(1);
    expect(slack.threadReplies('C0CHAN1', post.ts).map((m) => m.text)).toEqual(['One answer.']);
    expect(invalidBlockPayloads(slack)).toEqual([]);
  });
});

/** The question numbers in a model request's user messages, in the order the model sees them. */
const questionsSeen = (req: RecordedRequest): number[] =>
  ((req.body.messages ?? []) as { role: string; content?: unknown }[])
    .filter((m) => m.role === 'user')
    .flatMap((m) => [...JSON.stringify(m.content ?? '').matchAll(/question (\d+)/g)].map((x) => Number(x[1])));

/** Pairs run in the opposite order of their timestamps. */
const inversions = (order: number[]): number =>
  order.reduce((n, x, i) => n + order.slice(i + 1).filter((y) => y < x).length, 0);

describe.skipIf(!REDIS_URL)('two replicas sharing Redis: the order of one thread', () => {
  let llm: FakeOpenAI;
  let slack: FakeSlack;
  let a: SlackRig;
  let b: SlackRig;
  beforeAll(async () => {
    llm = await startFakeOpenAI();
    slack = await startFakeSlack({ botUserId: BOT_USER });
    const env = { REDIS_URL: REDIS_URL!, INBOX_QUEUE: `order${freshTs().replace('.', '')}` };
    a = await startSlackRig({ mode: 'http', llm, slack, data: rig.h.sb.data, env });
    b = await startSlackRig({ mode: 'http', llm, slack, data: rig.h.sb.data, env });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await slack?.close();
    await llm?.close();
  });

  it.each([
    ['no delay', 0],
    ['12 ms on every third', 12],
  ])(
    'answers 10 mentions sent 5 ms apart to alternating replicas (network jitter: %s) in the order of their ts, and stores them in that order',
    async (_jitter, lateMs) => {
      const n = 10;
      const earlier = llm.requestsTo('/chat/completions').length;
      // Each answer takes 300 ms, so the rest of the thread waits while the first runs.
      llm.script(
        ...Array.from({ length: n }, () => (req: RecordedRequest) => ({
          text: `Answer to question ${questionsSeen(req).at(-1)}.`,
          delayMs: 300,
        })),
      );
      const root = mention('question 0', { user: 'U0ASKER0' });
      const posts = [root];
      for (let i = 1; i < n; i++) {
        // One after another in the thread (ts rising), from different people.
        const [sec, micro] = root.ts.split('.').map(Number) as [number, number];
        const at = micro + i * 5_000; // 5 ms later each, carried into the seconds
        const ts = `${sec + Math.floor(at / 1_000_000)}.${String(at % 1_000_000).padStart(6, '0')}`;
        posts.push(mention(`question ${i}`, { user: `U0ASKER${i}`, ts, thread_ts: root.ts }));
      }
      const sent: Promise<unknown>[] = [];
      for (const [i, post] of posts.entries()) {
        // Slack's own jitter: with it, messages 1, 4 and 7 reach us after the one sent after them.
        const late = i % 3 === 1 ? lateMs : 0;
        sent.push(sleep(late).then(() => postEvent((i % 2 ? b : a).eventsUrl, eventBody(post), sign())));
        await sleep(5);
      }
      const acks = (await Promise.all(sent)) as Response[];
      expect(acks.map((r) => r.status)).toEqual(Array(n).fill(200));
      await slack.waitFor(() => a.deliveredCount() + b.deliveredCount() >= n, `${n} delivered turns`, 20_000);
      await Promise.all([inboxIdle(a.h.sb.inbox), inboxIdle(b.h.sb.inbox)]);

      const requests = llm.requestsTo('/chat/completions').slice(earlier);
      const runOrder = requests.map((r) => questionsSeen(r).at(-1)!);
      console.log(
        `[order] slack (jitter ${lateMs} ms) run order [${runOrder.join(', ')}]; inversions ${inversions(runOrder)}`,
      );
      expect(runOrder).toEqual([...Array(n).keys()]);
      // The thread's answers, and what the model saw as the conversation, are in the same order.
      const replies = slack.threadReplies('C0CHAN1', root.ts).map((m) => m.text);
      expect(replies).toEqual(posts.map((_, i) => `Answer to question ${i}.`));
      expect(questionsSeen(requests.at(-1)!)).toEqual([...Array(n).keys()]);
    },
    40_000,
  );
});

afterAll(() => rig?.close());

if (!REDIS_URL) console.warn('TEST_REDIS_URL is not set: skipping the Slack two-replica dedup test');
