/**
 * Recall by meaning (issue 45) on PGlite, which has pgvector: with EMBEDDING_MODEL set, a saved
 * note gets the campaigns' embedding, and a message that shares no word with it still recalls it
 * when their embeddings are close; one whose embedding is far recalls nothing (and costs one
 * embedding call, only because the turn can see a note at all).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AdminDataPort } from '../../../src/data/index.js';
import { MEMORY_NOTE_HEAD } from '../../../src/tools/memory/index.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.js';
import { openPgliteTestPort, TEST_DIMENSIONS } from '../../helpers/db.js';
import { collect, message, sentMessages, startHarness, type Harness } from '../../helpers/harness.js';

/** Money-year words point one way, everything else another: "close in meaning" without shared words. */
function topicEmbedding(text: string, dims: number): number[] {
  const money = /fiscal|financial|accounting|budget/i.test(text);
  return Array.from({ length: dims }, (_, i) => (money ? (i === 0 ? 1 : 0.01) : i === 1 ? 1 : 0.01));
}

let port: AdminDataPort;
let llm: FakeOpenAI;
let h: Harness;
beforeAll(async () => {
  port = await openPgliteTestPort();
  llm = await startFakeOpenAI({ embed: topicEmbedding });
  await port.admin(
    'set_tenant_tools',
    { tenant: 'default', tools: ['artifacts', 'campaigns', 'competitors', 'memory', 'quotes', 'web'] },
    z.unknown(),
  );
  h = await startHarness({
    llm,
    data: port,
    env: { EMBEDDING_MODEL: 'text-embedding-3-small', EMBEDDING_DIMENSIONS: String(TEST_DIMENSIONS) },
  });
}, 120_000);
afterAll(async () => {
  await h?.close();
  await llm?.close();
  await port?.close();
});

const dm = (text: string) =>
  message(text, {
    platform: 'slack',
    workspaceId: 'T-A',
    channelId: 'D1',
    threadId: `v-${Math.random()}`,
    userId: 'U1',
  });

describe('recall by meaning', () => {
  it('recalls a note whose embedding is close though no word is shared; a far one stays out', async () => {
    expect(port.vectorsAvailable).toBe(true);
    llm.script(
      { toolCalls: [{ name: 'remember', arguments: { scope: 'team', text: 'Our fiscal year starts in July' } }] },
      { text: 'Noted.' },
    );
    await collect(h.sb.agent.handle(dm('Remember that our fiscal year starts in July')));
    expect(llm.requestsTo('/embeddings')).toHaveLength(1); // the note's vector

    llm.script({ text: 'In July.' });
    await collect(h.sb.agent.handle(dm('When does the accounting period begin?')));
    const sent = sentMessages(llm.lastRequest('/chat/completions')!.body);
    const note = sent.find((m) => typeof m.content === 'string' && m.content.startsWith(MEMORY_NOTE_HEAD));
    expect(note?.content).toContain('<memory scope="team">Our fiscal year starts in July</memory>');

    llm.script({ text: 'Sunny.' });
    await collect(h.sb.agent.handle(dm('How is the weather in Oslo?')));
    expect(JSON.stringify(llm.lastRequest('/chat/completions')!.body)).not.toContain('fiscal');
    expect(llm.requestsTo('/embeddings')).toHaveLength(3);
  });
});
