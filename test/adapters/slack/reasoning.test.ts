/** A reasoning model in Slack: its thinking shows as the assistant status, never in the thread. */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventBody, mention, postEvent, sign, startSlackRig, type SlackRig } from './setup.js';

const recording = readFileSync(
  new URL('../../fixtures/provider-streams/mistral-reasoning.chunks.txt', import.meta.url),
  'utf8',
)
  .split('\n')
  .filter((l) => l.trim());

let rig: SlackRig;
beforeAll(async () => {
  rig = await startSlackRig({ mode: 'http' });
});
afterAll(() => rig.close());

it('shows “Reasoning…” as the status while a recorded Magistral stream thinks, then only the answer', async () => {
  rig.llm.script({ sse: `${recording.map((l) => `data: ${l}\n\n`).join('')}data: [DONE]\n\n` });
  const post = mention('what is 2+2?');
  expect((await postEvent(rig.eventsUrl, eventBody(post), sign())).status).toBe(200);
  await rig.delivered(1);
  const statuses = rig.slack.callsTo('assistant.threads.setStatus').map((c) => c.args.loading_messages);
  expect(JSON.stringify(statuses)).toContain('Reasoning…');
  const replies = rig.slack.threadReplies('C0CHAN1', post.ts);
  expect(replies.map((m) => m.text)).toEqual(['2 + 2 = 4']);
  expect(JSON.stringify(rig.slack.calls)).not.toContain('basic arithmetic');
});
