/**
 * Prompt-token figures (o200k tokenizer, as `countTokens` counts them):
 * 1. a first turn with every tool a first turn is offered (target ≤ 2,000): system prompt,
 *    user message and the tools array exactly as sent to the LLM (captured by the loopback
 *    fake), counted both as JSON text (the upper bound) and as OpenAI renders tools into the
 *    prompt (tokens/openai-render.ts, checked against OpenAI's recorded counts);
 * 2. campaign results (bench/tokens/campaigns.ts, target ≤ 1,500 for 20 hits);
 * 3. competitor tokens with the lazy tool versus preloading (bench/tokens/competitors.ts,
 *    target ratio ≤ 0.1);
 * 4. the first-turn prompt (messages + tools as JSON text) of five typical questions per demo
 *    tenant (`default`, the marketing team; `harbourside`, the clinic), target ≤ 1,500 for the
 *    marketing team's campaign question (issue 28).
 *
 *   npx tsx bench/tokens.ts [--write]
 *
 * Token counts do not depend on the machine, so the docs quote them from generated blocks:
 * `--write` updates README's `bench:tokens-first-turn` and docs/competitors.md's
 * `bench:tokens-competitors`; without it the bench says whether they still match
 * (test/docs-figures.test.ts checks the same).
 */
import { campaignTokenFigures } from './tokens/campaigns.js';
import { competitorTokenCounts, competitorTokenLines } from './tokens/competitors.js';
import { firstTurnFigures } from './tokens/first-turn.js';
import { tokenDocBlocks } from './tokens/doc-blocks.js';
import { writeOrCheck } from './lib/doc-blocks.js';

for (const section of [firstTurnFigures, campaignTokenFigures]) {
  for (const line of await section()) console.log(line);
  console.log('');
}
const competitors = await competitorTokenCounts();
for (const line of competitorTokenLines(competitors)) console.log(line);
console.log('');
console.log(writeOrCheck(await tokenDocBlocks(competitors), 'npx tsx bench/tokens.ts'));
