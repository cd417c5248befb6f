/** An artifact in Slack: its code streams into the thread as the writer model produces it, then the file and the answer. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createArtifactTools } from '../../../src/tools/artifacts/index.js';
import { eventBody, mention, postEvent, sign, startSlackRig, type SlackRig } from './setup.js';

const DIAGRAM = 'flowchart TD\n  Ask[User asks] --> Search[web_search]\n  Search --> Answer[Answer with citations]';
let rig: SlackRig;
beforeAll(async () => {
  rig = await startSlackRig({
    mode: 'http',
    tools: createArtifactTools({ ARTIFACT_MODEL: 'gpt-artifact-writer' }).tools,
  });
});
afterAll(() => rig.close());

it('streams the artifact’s code into the thread while it is written, then uploads the file, with the answer once after the code', async () => {
  rig.llm.script(
    {
      toolCalls: [
        {
          name: 'generate_artifact',
          arguments: { type: 'mermaid', title: 'Search flow', request: 'The web search flow.' },
        },
      ],
    },
    // About 0.6 s of writing (a word every 40 ms) against the rig's 50 ms stream flushes.
    { text: `\`\`\`mermaid\n${DIAGRAM}\n\`\`\``, chunkDelayMs: 40 },
    { text: 'Here is the diagram.' },
  );
  const post = mention('diagram the search flow');
  expect((await postEvent(rig.eventsUrl, eventBody(post), sign())).status).toBe(200);
  await rig.delivered(1);
  const [live] = rig.slack.threadReplies('C0CHAN1', post.ts);
  expect(live?.stream).toBeDefined();
  const markdown = live!.stream!.markdown;
  expect(markdown).toContain(DIAGRAM);
  // Streamed while it was written: several appends, each carrying a piece of the code, reached
  // Slack before the writer model had finished the artifact.
  const writer = rig.llm.requestsTo('/chat/completions')[1]!;
  expect(writer.body.model).toBe('gpt-artifact-writer');
  const pieces = DIAGRAM.split(/\s+/).filter((w) => w.length > 2);
  const whileWritten = [...rig.slack.callsTo('chat.startStream'), ...rig.slack.callsTo('chat.appendStream')].filter(
    (call) => {
      const sent = JSON.stringify(call.args);
      return call.at < writer.endedAt! && pieces.some((piece) => sent.includes(JSON.stringify(piece).slice(1, -1)));
    },
  );
  expect(whileWritten.length).toBeGreaterThanOrEqual(3);
  expect(markdown.trimEnd().endsWith('```\n\nHere is the diagram.')).toBe(true);
  expect(markdown.match(/Here is the diagram\./g)).toHaveLength(1);
  expect(rig.slack.uploads).toHaveLength(1);
  expect(rig.llm.requestsTo('/chat/completions')[1]!.body.model).toBe('gpt-artifact-writer');
});
