import type { ThreadState } from '../../contract/thread-state.js';
import { defineTool, ToolError, type OfferContext, type ToolContext, type ToolOutput } from '../../contract/tool.js';
import { checkCalc, checkPrice, checkTable, statedMarkup } from './check.js';
import { MODE_OF, pendingRequest } from './mode-state.js';
import { EMIT_TOOL } from './prompts.js';
import { renderCalc, renderPrice, renderTable, type QuoteView } from './render.js';
import { calcResult, priceResult, tableResult } from './schemas.js';
import { quoteState, saveCalc, savePrice, saveTable, type QuoteStep } from './state.js';

/**
 * The terminal tools of the quote modes. The loop has already validated the arguments
 * against the schema; here the server checks what a schema cannot (arithmetic, prices
 * against the catalogue), keeps the result as the thread's draft and renders the reply.
 */

const inMode = (step: QuoteStep) => (ctx: OfferContext) => ctx.state.mode?.name === MODE_OF[step];

export const emitCalcTool = defineTool({
  name: EMIT_TOOL.calc,
  title: 'Checking the calculation',
  description:
    'Emit the final calculation results in structured format: items with quantities, assumptions, and questions (at most 3).',
  input: calcResult,
  terminal: true,
  offer: inMode('calc'),
  async run(input, ctx) {
    if (input.results.items.length === 0 && input.questions.length === 0) {
      throw new ToolError('results.items is empty: list the items, or ask what you need to know in questions.');
    }
    const { items, corrections } = checkCalc(input);
    const draft = {
      request: requestOf(ctx, input.inputs.raw_input),
      items,
      assumptions: input.results.assumptions,
      questions: input.questions,
      corrections,
      at: ctx.now().toISOString(),
    };
    // A reply that only asks questions keeps the previous calculation.
    if (items.length > 0) saveCalc(ctx.state, draft);
    setPending(ctx.state, draft.questions);
    return output(
      ctx,
      renderCalc(draft),
      'calc',
      draft,
      `Calculation recorded: ${items.length} items`,
      corrections,
      draft.questions,
    );
  },
});

export const emitPriceTool = defineTool({
  name: EMIT_TOOL.price,
  title: 'Checking the prices',
  description:
    'Emit the final pricing results in structured format: the normalized material, supplier candidates copied from the ' +
    'pricing tools (null price when none was found), and questions (at most 3).',
  input: priceResult,
  terminal: true,
  offer: inMode('price'),
  async run(input, ctx) {
    if (input.candidates.length > 0 && !input.normalized) {
      throw new ToolError(
        'normalized is required when you list candidates: give family, grade, thickness_mm and form.',
      );
    }
    const qs = quoteState(ctx.state);
    const check = checkPrice(input, qs.offers, qs.calc !== undefined);
    const draft = { request: requestOf(ctx), ...check, at: ctx.now().toISOString() };
    savePrice(ctx.state, draft);
    setPending(ctx.state, draft.questions);
    const priced = check.candidates.filter((c) => c.price_per_uom !== undefined).length;
    return output(
      ctx,
      renderPrice(draft),
      'price',
      draft,
      `Pricing recorded: ${priced} priced candidates`,
      [...check.corrections, ...check.missing],
      draft.questions,
    );
  },
});

export const emitTableTool = defineTool({
  name: EMIT_TOOL.table,
  title: 'Checking the quote table',
  description:
    'Emit the final table results in structured format: rows, totals (with grand total ex GST), the table as markdown, ' +
    'and questions (at most 1).',
  input: tableResult,
  terminal: true,
  offer: inMode('table'),
  async run(input, ctx) {
    if (input.rows.length === 0 && input.questions.length === 0) {
      throw new ToolError('rows is empty: add the priced materials as rows, or ask what you need in questions.');
    }
    const qs = quoteState(ctx.state);
    const known = [
      ...qs.prices.flatMap((p) => p.candidates.flatMap((c) => c.price_per_uom ?? [])),
      ...qs.offers.map((o) => o.price_per_uom),
    ];
    const request = requestOf(ctx);
    const check = checkTable(input, known, statedMarkup(`${request}\n${ctx.message.text}`));
    const draft = { request, ...check, questions: input.questions, at: ctx.now().toISOString() };
    if (check.rows.length > 0) saveTable(ctx.state, draft);
    setPending(ctx.state, draft.questions);
    return output(
      ctx,
      renderTable(draft),
      'table',
      draft,
      `Quote table recorded: grand total ex GST ${check.totals.grand_total_ex_gst}`,
      [...check.corrections, ...check.missing],
      draft.questions,
    );
  },
});

export const emitTools = [emitCalcTool, emitPriceTool, emitTableTool];

/** The model reads a short record; the user reads the rendered view; API clients get the draft. */
function output(
  ctx: ToolContext,
  view: QuoteView,
  step: QuoteStep,
  draft: object,
  recorded: string,
  notes: string[],
  questions: string[],
): ToolOutput {
  // How often the server had to correct the model is worth watching per model.
  ctx.log.debug({ step, notes: notes.length, questions: questions.length }, 'quote result checked');
  const content = [
    `${recorded} and shown to the user.`,
    ...(notes.length ? [`Server checks: ${notes.join(' ')}`] : []),
    ...(questions.length ? [`Asked the user: ${questions.join(' | ')}`] : []),
  ].join('\n');
  return { content, text: view.text, blocks: view.blocks, blocksKey: 'quote', data: { quote: { step, ...draft } } };
}

function requestOf(ctx: ToolContext, fallback = ''): string {
  return pendingRequest(ctx.state) ?? (ctx.message.text.trim() || fallback);
}

/** Questions keep the mode open (see the modes' `after`); none close it. */
function setPending(state: ThreadState, questions: string[]): void {
  if (state.mode) state.mode = { ...state.mode, data: { ...state.mode.data, questions } };
}
