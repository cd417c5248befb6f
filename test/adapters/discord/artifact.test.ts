/** An artifact in Discord: its code shows in the progress message while it is written, then the file and the answer. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDiscordAdapter } from '../../../src/adapters/discord/index.js';
import { createArtifactTools } from '../../../src/tools/artifacts/index.js';
import { startFakeDiscord, type FakeDiscord } from '../../fakes/discord/index.js';
import { runAdapter, startHarness, type Harness } from '../../helpers/harness.js';
import { finalMessages } from './helpers.js';

const DIAGRAM = 'flowchart TD\n  Ask[User asks] --> Search[web_search]\n  Search --> Answer[Answer with citations]';
let discord: FakeDiscord;
let h: Harness;
let stop: () => Promise<void>;
beforeAll(async () => {
  discord = await startFakeDiscord();
  h = await startHarness({
    tools: createArtifactTools({ ARTIFACT_MODEL: 'gpt-artifact-writer' }).tools,
    env: discord.env(),
  });
  stop = await runAdapter(h.sb, createDiscordAdapter(h.sb, { editIntervalMs: 100 })!);
});
afterAll(async () => {
  await stop?.();
  await h?.close();
  await discord?.close();
});

it('shows the code being written in the progress message, then the answer with the file', async () => {
  h.llm.script(
    {
      toolCalls: [
        {
          name: 'generate_artifact',
          arguments: { type: 'mermaid', title: 'Search flow', request: 'The web search flow.' },
        },
      ],
    },
    { text: `\`\`\`mermaid\n${DIAGRAM}\n\`\`\``, chunkDelayMs: 60 },
    { text: 'Here is the diagram.' },
  );
  const asked = discord.say({ content: 'diagram the search flow', mention: true });
  const [answer] = await finalMessages(discord, asked.id);
  expect(answer!.content).toBe('Here is the diagram.');
  expect(answer!.attachments).toMatchObject([{ filename: 'search-flow.mmd' }]);
  // The progress edits carry the code in their content (the file itself only comes with the answer).
  const contents = discord
    .callsMatching('PATCH', new RegExp(`^/channels/${asked.id}/messages/`))
    .map((c) => String((c.body as { content?: unknown } | undefined)?.content ?? ''));
  expect(contents.some((c) => c.includes('flowchart TD') && c.includes('-# '))).toBe(true);
});
