/**
 * Approvals (issue 43), through the real app with the fake Slack (signed HTTP) and the fake
 * OpenAI on loopback, the database on PGlite and, with REDIS_URL, the inbox and thread state on
 * Redis:
 *
 *   1. click → tool start: a write call waits; the time from posting the signed Approve click to
 *      the tool's run() starting (the click is recorded in the inbox, acked, leased, decided by
 *      the conditional UPDATE, and the paused exchange read back from the thread's state);
 *   2. 1,000 pending approvals: the process's heap (after GC) before and after 1,000 turns that
 *      each end waiting for a person. They live in the database and the thread store, not in
 *      closures, so the heap should not grow with them.
 *
 *   REDIS_URL=redis://127.0.0.1:6379 node --expose-gc --import tsx bench/approvals.ts [clicks=30] [pending=1000]
 *
 * Targets (issue 43): click → tool start ≤ 200 ms p50 with Redis; 1,000 pending ≤ 10 MB.
 */
import { z } from 'zod';
import { defineTool } from '../src/contract/tool.js';
import {
  eventBody,
  freshTs,
  mention,
  postEvent,
  postInteraction,
  sign,
  startSlackRig,
} from '../test/adapters/slack/setup.js';
import { collect, message } from '../test/helpers/harness.js';

const clicks = Number(process.argv[2] ?? 30);
const pendingCount = Number(process.argv[3] ?? 1000);
let started: number[] = [];
const noteTool = defineTool({
  name: 'write_note',
  title: 'Writing a note',
  description: 'Writes a note.',
  effect: 'write',
  input: z.object({ text: z.string() }),
  async run() {
    started.push(performance.now());
    return { content: 'Note written.' };
  },
});

const redis = process.env.REDIS_URL;
const rig = await startSlackRig({
  mode: 'http',
  tools: [noteTool],
  env: { LOG_LEVEL: 'warn', ...(redis ? { REDIS_URL: redis } : {}) },
});

function approveValue(thread: string): { value: string; ts: string } {
  for (const m of rig.slack.threadReplies('C0CHAN1', thread))
    for (const b of (m.blocks ?? []) as { elements?: { action_id?: string; value?: string }[] }[])
      for (const e of b.elements ?? []) if (e.action_id === 'approval.approve') return { value: e.value!, ts: m.ts };
  throw new Error('no Approve button');
}

const samples: number[] = [];
for (let i = 0; i < clicks; i++) {
  let before = rig.deliveredCount();
  rig.llm.script({ toolCalls: [{ name: 'write_note', arguments: { text: `n${i}` } }] });
  const post = mention('note please');
  await postEvent(rig.eventsUrl, eventBody(post), sign());
  await rig.delivered(before + 1, 15_000);
  const { value, ts } = approveValue(post.ts);
  before = rig.deliveredCount();
  rig.llm.script({ text: 'Done.' });
  started = [];
  const t0 = performance.now();
  const res = await postInteraction(
    rig.eventsUrl,
    {
      type: 'block_actions',
      user: { id: 'U0HUMAN1', username: 'h', name: 'h', team_id: 'T0FAKETEAM' },
      api_app_id: 'A0FAKEAPP',
      token: 'legacy-verification-token',
      container: { type: 'message', message_ts: ts, channel_id: 'C0CHAN1', is_ephemeral: false, thread_ts: post.ts },
      trigger_id: `t-${freshTs()}`,
      team: { id: 'T0FAKETEAM', domain: 'fake' },
      enterprise: null,
      is_enterprise_install: false,
      channel: { id: 'C0CHAN1', name: 'general' },
      message: { user: 'U00FAKEBOT01', type: 'message', ts, thread_ts: post.ts },
      state: { values: {} },
      response_url: rig.slack.responseUrl(),
      actions: [{ action_id: 'approval.approve', block_id: 'b', type: 'button', value, action_ts: freshTs() }],
    },
    sign(),
  );
  if (res.status !== 200) throw new Error(`click refused: ${res.status}`);
  await rig.delivered(before + 1, 15_000);
  if (started.length !== 1) throw new Error(`the tool ran ${started.length} times`);
  samples.push(started[0]! - t0);
}
samples.sort((a, b) => a - b);
const pct = (p: number) => samples[Math.min(samples.length - 1, Math.floor(p * samples.length))]!.toFixed(1);
console.log(
  `click → tool start (${redis ? 'Redis' : 'in memory'}, ${clicks} clicks): p50 ${pct(0.5)} ms, p90 ${pct(0.9)} ms, max ${samples.at(-1)!.toFixed(1)} ms`,
);

const gc = (globalThis as { gc?: () => void }).gc;
const heap = () => {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
};
if (!gc) console.log('(run with node --expose-gc for the memory figure)');
// The fake OpenAI keeps every request it saw: cleared, so the figure is the app's own.
rig.llm.reset();
const heapBefore = heap();
const rssBefore = process.memoryUsage().rss;
for (let i = 0; i < pendingCount; i++) {
  if (i % 100 === 0) rig.llm.reset();
  rig.llm.script({ toolCalls: [{ name: 'write_note', arguments: { text: `p${i}` } }] });
  await collect(rig.h.sb.agent.handle(message('note please', { threadId: `pending-${i}`, userId: 'u-bench' })));
}
rig.llm.reset();
const heapAfter = heap();
const rssAfter = process.memoryUsage().rss;
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(2);
console.log(
  `${pendingCount} pending approvals: heap ${mb(heapAfter - heapBefore)} MB more after GC (${(heapBefore / 1024 / 1024).toFixed(1)} → ${(heapAfter / 1024 / 1024).toFixed(1)} MB); ` +
    `RSS ${mb(rssAfter - rssBefore)} MB more (the allocator keeps freed pages: an upper bound)`,
);
await rig.close();
