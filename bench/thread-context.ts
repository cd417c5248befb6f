/**
 * The thread before a mention (issue 42), through the real app over signed HTTP with the fake
 * Slack and the fake OpenAI on loopback: for a top-level mention (nothing before it), a mention
 * in a thread of 50 earlier messages, and the next turn of that thread with nothing new, the
 * Slack Web API calls the turn made and the time from posting the event to the model request.
 *
 *   npx tsx bench/thread-context.ts [turns=30]
 *
 * Targets (issue 42): the thread turn makes one platform call more than the top-level one and
 * adds ≤ 30 ms p50 before the model request; the next turn with nothing new makes none more.
 * Authors' names are resolved once (users.info, cached): the first thread turn also looks up
 * each new author, later ones find them cached; both are printed.
 */
import { eventBody, freshTs, mention, postEvent, sign, startSlackRig } from '../test/adapters/slack/setup.js';
import { BOT_USER } from '../test/adapters/slack/setup.js';

const turns = Number(process.argv[2] ?? 30);
const rig = await startSlackRig({ mode: 'http', env: { LOG_LEVEL: 'warn' } });
const PEOPLE = ['U0P1', 'U0P2', 'U0P3', 'U0P4', 'U0P5'];
for (const [i, id] of PEOPLE.entries()) rig.slack.setUser(id, { profile: { display_name: `Person ${i + 1}` } });

interface Sample {
  ms: number;
  calls: Record<string, number>;
}

/** Posts one mention (in `threadTs`, or top-level) and waits for the turn; the time to its model request and the calls it made. */
async function turn(channel: string, threadTs?: string): Promise<Sample> {
  const ts = freshTs();
  if (threadTs) rig.slack.post({ channel, thread_ts: threadTs, ts, user: 'U0ASKER', text: `<@${BOT_USER}> summarise` });
  rig.llm.script({ text: 'Summary.' });
  const callsBefore = rig.slack.calls.length;
  const requestsBefore = rig.llm.requestsTo('/chat/completions').length;
  const delivered = rig.deliveredCount();
  const body = eventBody(
    mention('summarise', { ts, channel, user: 'U0ASKER', ...(threadTs ? { thread_ts: threadTs } : {}) }),
  );
  const started = performance.now();
  const res = await postEvent(rig.eventsUrl, body, sign());
  if (res.status !== 200) throw new Error(`event refused: ${res.status}`);
  await rig.delivered(delivered + 1, 15_000);
  const request = rig.llm.requestsTo('/chat/completions')[requestsBefore];
  if (!request) throw new Error('no model request');
  const calls: Record<string, number> = {};
  for (const c of rig.slack.calls.slice(callsBefore)) calls[c.method] = (calls[c.method] ?? 0) + 1;
  return { ms: request.at - started, calls };
}

function seed(channel: string, count: number): string {
  const root = freshTs();
  rig.slack.post({ channel, ts: root, user: PEOPLE[0]!, text: 'Kick-off: Q3 numbers' });
  for (let i = 1; i < count; i++)
    rig.slack.post({
      channel,
      thread_ts: root,
      ts: freshTs(),
      user: PEOPLE[i % PEOPLE.length]!,
      text: `point ${i}: revenue ${i * 3}k`,
    });
  return root;
}

const top: Sample[] = [];
const thread: Sample[] = [];
const again: Sample[] = [];
let firstThread: Sample | undefined;
for (let i = 0; i < turns + 3; i++) {
  const channel = `C0BENCH${i}`;
  const a = await turn(channel);
  const root = seed(channel, 50);
  const b = await turn(channel, root);
  const c = await turn(channel, root);
  firstThread ??= b;
  if (i < 3) continue; // warm-up
  top.push(a);
  thread.push(b);
  again.push(c);
}

const p50 = (s: Sample[]) => [...s.map((x) => x.ms)].sort((x, y) => x - y)[Math.floor(s.length / 2)]!;
const total = (c: Record<string, number>) => Object.values(c).reduce((x, y) => x + y, 0);
const show = (c: Record<string, number>) =>
  Object.entries(c)
    .sort()
    .map(([m, n]) => `${m}×${n}`)
    .join(' ');
const median = (s: Sample[]) => s[Math.floor(s.length / 2)]!;
console.log(`thread context over ${turns} turns of each kind (fake Slack and OpenAI on loopback, memory state)`);
for (const [name, s] of [
  ['top-level mention', top],
  ['mention after 50 messages', thread],
  ['next turn, nothing new', again],
] as const)
  console.log(
    `${name.padEnd(28)} p50 ${p50(s).toFixed(1)} ms to the model request   Slack calls ${total(median(s).calls)} (${show(median(s).calls)})`,
  );
console.log(
  `added before the model request (p50): ${(p50(thread) - p50(top)).toFixed(1)} ms; ` +
    `calls more than a top-level mention: ${total(median(thread).calls) - total(median(top).calls)} (names cached), ` +
    `${total(firstThread!.calls) - total(median(top).calls)} on the first thread (5 authors looked up); ` +
    `next turn with nothing new: ${total(median(again).calls) - total(median(top).calls)}`,
);
await rig.close();
