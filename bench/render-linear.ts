/**
 * The renderers on adversarial model text: 100,000 characters of each pattern that used to make
 * a regex backtrack, through every render call a turn makes. Prints the slowest call per input
 * (CPU milliseconds) and how much longer it takes on twice the text: about 2x when it is linear,
 * about 4x when it is quadratic.
 *
 *   npx tsx bench/render-linear.ts
 */
import { inertMessage, inertStreamText, inertText, streamableLength } from '../src/adapters/slack/inert.js';
import { renderReply as renderSlack } from '../src/adapters/slack/render.js';
import { slackToPlain, toMrkdwn } from '../src/adapters/slack/text.js';
import { inertDiscordText } from '../src/adapters/discord/inert.js';
import { renderProgress, renderReply as renderDiscord } from '../src/adapters/discord/render.js';
import { liveMessage } from '../src/adapters/slack/live-deliveries.js';
import { renderPlainText } from '../src/reply/plain-text.js';
import { linksIn } from '../src/adapters/links.js';

const N = 100_000;
const inputs: Record<string, string> = {
  '[': '['.repeat(N),
  '<!a^': '<!a^'.repeat(N / 4),
  '<#C1|': '<#C1|'.repeat(N / 5),
  '<@U1|': '<@U1|'.repeat(N / 5),
  '](': ']('.repeat(N / 2),
  '`': '`'.repeat(N),
  '*': '*'.repeat(N),
  _: '_'.repeat(N),
  '~': '~'.repeat(N),
  'nested [': '[a'.repeat(N / 4) + '](https://x.example/)'.repeat(10) + ']'.repeat(N / 4),
  '[x](': '[x]('.repeat(N / 4),
  '[a](b(': '[a](b('.repeat(N / 6),
  '[`](`': '[`](`'.repeat(N / 5),
  '<https:': '<https://a.example/|'.repeat(N / 20),
  'https://': 'https://a.example/'.repeat(N / 18),
  '**a': '**a'.repeat(N / 3),
  '~~a': '~~a'.repeat(N / 3),
  '*a ': '*a '.repeat(N / 3),
  '```': '```\n'.repeat(N / 4),
  'CJK 漢字': '漢字テキスト、'.repeat(N / 7),
  '@everyone': '@everyone <@1> <@&2> '.repeat(N / 21),
  '![': '!['.repeat(N / 2),
};
const audience = { people: new Set(['U1']), unfurlDomains: ['docs.example.com'] };
const calls: Record<string, (s: string) => unknown> = {
  inertText: (s) => inertText(s, audience),
  inertStreamText: (s) => inertStreamText(s, audience),
  streamableLength: (s) => streamableLength(s),
  toMrkdwn: (s) => toMrkdwn(s),
  slackToPlain: (s) => slackToPlain(s, 'U0BOT'),
  'slack renderReply+inertMessage': (s) =>
    renderSlack({ text: s, blocks: [{ type: 'markdown', text: s }] }).messages.map((m) => inertMessage(m, audience)),
  'slack liveMessage+inertMessage': (s) => inertMessage(liveMessage(s, []), audience),
  'discord renderReply': (s) => renderDiscord({ text: s, blocks: [{ type: 'markdown', text: s }] }, { customIds: [] }),
  'discord renderProgress': (s) => renderProgress(s, 'working'),
  inertDiscordText: (s) => inertDiscordText(s),
  renderPlainText: (s) => renderPlainText({ text: s, blocks: [] }),
  linksIn: (s) => linksIn(s),
};
/**
 * The least CPU time (user + system) of a few runs: the cost of the call itself, not of the JIT,
 * the collector or other processes on a shared machine (wall-clock time there is mostly waiting).
 */
function time(fn: (s: string) => unknown, text: string): number {
  let ms = Infinity;
  for (let run = 0; run < 5; run++) {
    const before = process.cpuUsage();
    fn(text);
    const used = process.cpuUsage(before);
    ms = Math.min(ms, (used.user + used.system) / 1_000);
  }
  return ms;
}

// A pass any renderer must make (one native replace over the text), to read the figures against.
const baseline = time((s) => s.replace(/[<>&]/g, ' '), inputs['<@U1|']!);
console.log(`baseline: one native replace over ${N} chars: ${baseline.toFixed(2)} ms`);
let worst = 0;
let worstRatio = 0;
for (const [name, text] of Object.entries(inputs)) {
  let slowest = 0;
  let slowestCall = '';
  let ratio = 0;
  for (const [call, fn] of Object.entries(calls)) {
    const ms = time(fn, text);
    // Linear: twice the text, about twice the time (a quadratic call shows ~4).
    const double = time(fn, text + text);
    if (ms > slowest) [slowest, slowestCall] = [ms, call];
    if (ms >= 2) ratio = Math.max(ratio, double / ms);
  }
  worst = Math.max(worst, slowest);
  worstRatio = Math.max(worstRatio, ratio);
  console.log(
    `${name.padEnd(12)} slowest ${slowest.toFixed(1).padStart(6)} ms (${slowestCall}); 2x text: ${ratio ? `${ratio.toFixed(1)}x` : '-'}`,
  );
}
console.log(
  `worst call: ${worst.toFixed(1)} ms over ${Object.keys(inputs).length} inputs of ${N} chars; worst 2x-text ratio ${worstRatio.toFixed(1)}`,
);
