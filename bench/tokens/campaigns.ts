/**
 * Prompt tokens of the campaign tools (o200k tokenizer, as `countTokens` counts them):
 * - a 20-hit result of each tool on the demo data, as the tool message the model reads
 *   (target ≤ 1,500), plus a worst case of 20 campaigns with oversized fields;
 * - the three tools' schemas and descriptions as sent on every request (JSON, strict
 *   OpenAI dialect and Gemini dialect).
 *
 *   npx tsx bench/tokens/campaigns.ts
 */
import { pathToFileURL } from 'node:url';
import { hashEmbedder } from '../generate-campaigns.js';
import { countMessageTokens, countTokens } from '../../src/contract/tokens.js';
import type { LlmClient } from '../../src/contract/llm.js';
import { newThreadState } from '../../src/contract/thread-state.js';
import { embedMissing } from '../../src/data/embed.js';
import { silentLogger } from '../../src/telemetry/logger.js';
import { createCampaignTools } from '../../src/tools/campaigns/index.js';
import { campaignToolResult, type Campaign } from '../../src/tools/campaigns/result.js';
import { toolSpec } from '../../src/agent/registry.js';
import type { AnyTool, ToolContext } from '../../src/contract/tool.js';
import { openPgliteTestPort, TEST_DIMENSIONS } from '../../test/helpers/db.js';
import { renderedDefinitionTokens } from './openai-render.js';

const TARGET_RESULT = 1_500;

export async function campaignTokenFigures(): Promise<string[]> {
  const lines: string[] = [];
  const { tools } = createCampaignTools({ EMBEDDING_MODEL: 'bench-hash-embedding' });
  const byName = (name: string) => tools.find((t) => t.name === name) as AnyTool;

  let schemaTotal = 0;
  let geminiTotal = 0;
  let renderedTotal = 0;
  for (const tool of tools) {
    const spec = toolSpec(tool, tool.input, 'openai');
    const strict = countTokens(JSON.stringify(spec));
    const gemini = countTokens(JSON.stringify(toolSpec(tool, tool.input, 'gemini')));
    const rendered = spec.type === 'function' ? renderedDefinitionTokens(spec.function) : 0;
    schemaTotal += strict;
    geminiTotal += gemini;
    renderedTotal += rendered;
    lines.push(
      `schema ${tool.name}: ${strict} tokens as JSON (openai strict; description ${countTokens(tool.description)}), ` +
        `${gemini} (gemini JSON), ~${rendered} as OpenAI renders tools into the prompt`,
    );
  }
  lines.push(
    `schema all three campaign tools: ${schemaTotal} tokens as JSON (openai strict), ${geminiTotal} (gemini JSON), ~${renderedTotal} rendered`,
  );

  const port = await openPgliteTestPort();
  try {
    const embed = hashEmbedder(TEST_DIMENSIONS);
    await embedMissing(port, embed);
    const tenant = await port.defaultTenant();
    const llm: LlmClient = {
      model: 'bench',
      complete: () => Promise.reject(new Error('not used')),
      embed: (texts) => embed(texts),
    };
    const calls: [string, Record<string, unknown>][] = [
      ['filter_campaigns', { limit: 20 }],
      ['full_text_search', { query: 'annual fee', limit: 20 }],
      ['semantic_search', { query: 'travel benefits for families', limit: 20 }],
    ];
    for (const [name, args] of calls) {
      const ctx: ToolContext = {
        tenant,
        state: newThreadState(`bench:${name}`),
        data: port.forTenant(tenant),
        log: silentLogger(),
        message: {
          platform: 'console',
          workspaceId: 'default',
          channelId: 'bench',
          threadId: name,
          messageId: name,
          userId: 'bench',
          role: 'member' as const,
          isDirect: true,
          text: '',
        },
        llm,
        signal: new AbortController().signal,
        now: () => new Date(),
        emit: () => {},
        // The campaign tools count no failures.
        failures: { check: async () => ({ ok: true }), record: async () => undefined },
      };
      const tool = byName(name);
      const output = await tool.run(tool.input.parse(args), ctx);
      const hits = (output.data?.campaigns as Campaign[] | undefined)?.length ?? 0;
      const message = countMessageTokens([
        { role: 'tool', tool_call_id: 'call_0123456789abcdefghijklmn', content: output.content },
      ]);
      lines.push(
        `result ${name} (${hits} hits, demo data): ${countTokens(output.content)} tokens of content, ${message} as a tool message (target ≤ ${TARGET_RESULT})`,
      );
    }
  } finally {
    await port.close();
  }

  const huge = 'An unusually long field that an import could carry, with many uncommon words: Zwischenraum, Quixotic. ';
  const worst = Array.from({ length: 20 }, (_, i): Campaign => ({
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    company: huge.repeat(3),
    brand: huge.repeat(3),
    channel: huge,
    offer: huge.repeat(5),
    key_value_props: Array<string>(10).fill(huge),
    imagery_sentiment: huge,
    imagery_visual_style: huge,
    capture_date: '2026-10-12',
    campaign_text: huge.repeat(20),
    full_campaign_text: huge.repeat(50),
  }));
  const { content, result } = campaignToolResult(worst, {
    order: 'newest first',
    limitReached: true,
    filters: [huge],
    notes: [huge],
    shownAsCards: true,
  });
  const listed = result.summary_for_llm.split('\n').filter((l) => /^\d+\. /.test(l)).length;
  lines.push(
    `result worst case (20 campaigns with oversized fields): ${countTokens(content)} tokens of content, ${listed} listed (target ≤ ${TARGET_RESULT})`,
  );
  return lines;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const line of await campaignTokenFigures()) console.log(line);
}
