/**
 * The token figures the docs quote, as the blocks bench/tokens.ts writes (`--write`) and
 * test/docs-figures.test.ts compares: the campaign question's first turn (README) and the
 * competitor tool against preloading (docs/competitors.md).
 */
import { fmt } from '../lib/doc-blocks.js';
import { competitorTokenCounts, competitorTokenProse } from './competitors.js';
import { campaignQuestionTokens } from './first-turn.js';

/** README's figure: the campaign question's first-turn prompt, messages + tools as JSON text. */
export async function firstTurnBlock(): Promise<string> {
  const t = await campaignQuestionTokens();
  return `${fmt(t.messages + t.tools)} prompt tokens (messages ${fmt(t.messages)} + tools ${fmt(t.tools)} as JSON)`;
}

export async function tokenDocBlocks(
  competitors?: Awaited<ReturnType<typeof competitorTokenCounts>>,
): Promise<Record<string, Record<string, string>>> {
  return {
    'README.md': { 'tokens-first-turn': await firstTurnBlock() },
    'docs/competitors.md': {
      'tokens-competitors': competitorTokenProse(competitors ?? (await competitorTokenCounts())),
    },
  };
}
