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
    { text: `\`\`\`mermaid\n${DIAGRAM}\n\`\`\``, chunkDelayMs: 5 },
    { text: 'Here is the diagram.' },
  );
  const post = mention('diagram the search flow');
  expect((await postEvent(rig.eventsUrl, eventBody(post), sign())).status).toBe(200);
  await rig.delivered(1);
  const [live] = rig.slack.threadReplies('C0CHAN1', post.ts);
  expect(live?.stream).toBeDefined();
  const markdown = live!.stream!.markdown;
  expect(markdown).toContain(DIAGRAM);
  // Appended while the writer wrote: more than one append carried a piece of the code.
  expect(
    live!.stream!.chunks.filter((c) => JSON.stringify(c).includes('flowchart') || JSON.stringify(c).includes('Search'))
      .length,
  ).toBeGreaterThanOrEqual(1);
  expect(rig.slack.callsTo('chat.appendStream').length + rig.slack.callsTo('chat.startStream').length).toBeGreaterThan(
    1,
  );
  expect(markdown.trimEnd().endsWith('```\n\nHere is the diagram.')).toBe(true);
  expect(markdown.match(/Here is the diagram\./g)).toHaveLength(1);
  expect(rig.slack.uploads).toHaveLength(1);
  expect(rig.llm.requestsTo('/chat/completions')[1]!.body.model).toBe('gpt-artifact-writer');
});
