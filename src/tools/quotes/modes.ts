import type { ActionResult, AgentExtension, ModeDefinition, TurnScope } from '../../contract/extension.js';
import type { LoopResult } from '../../contract/extension.js';
import { UserFacingError } from '../../contract/turn.js';
import type { Config } from '../../config/index.js';
import { enterStep, leaveMode, MODE_OF, parseStep, pendingQuestions, pendingRequest, STEPS } from './mode-state.js';
import { EMIT_TOOL, modeSystemPrompt } from './prompts.js';
import { NEXT_STEP } from './render.js';
import { quoteState, type QuoteStep } from './state.js';

/**
 * The quote modes and how a thread enters them: `/quote <mode> <request>`, the next-step
 * buttons (`quotes.price`, `quotes.table`), or `start_quote` from plain conversation.
 */

const MODE_TOOLS: Record<QuoteStep, readonly string[]> = {
  calc: [EMIT_TOOL.calc],
  price: ['search_products', 'get_pricing_for_material', 'compare_suppliers', EMIT_TOOL.price],
  table: [EMIT_TOOL.table],
};

const LABEL: Record<QuoteStep, string> = { calc: 'calculation', price: 'price list', table: 'quote table' };

/** What to ask when a step starts with nothing to work on; the answer continues the mode. */
const ASK_FIRST: Record<QuoteStep, string> = {
  calc: 'What should I calculate? Describe the job, for example “3 stainless steel boxes, 700×700×400 mm, 0.8 mm thick, open top”.',
  price:
    'What should I price? Tell me the material, grade, thickness, form and quantity (for example “4 sheets of 304 stainless, ' +
    '0.9 mm, 1200 × 2400”), or run /quote calc first.',
  table:
    'There is no pricing in this thread yet. Run /quote price first, or tell me the lines (item, quantity, unit cost) to put in the table.',
};

const USAGE =
  'Use `/quote calc <what to make>`, `/quote price <material>` or `/quote table`, one after the other in a thread ' +
  '(`/quote cancel` stops a step that is waiting for your answer). ' +
  'For example: `/quote calc 3 stainless steel boxes, 700×700×400 mm, 0.8 mm thick, open top`.';

export function quoteExtension(config: Pick<Config, 'AGENT_MAX_TOOL_CALLS'>): AgentExtension {
  return {
    commands: { quote: async (options, scope) => fromCommand(options, scope) },
    actions: {
      quotes: async (action, scope) => {
        if (action.id === NEXT_STEP.cancel.actionId) return cancel(scope);
        const step = parseStep(action.id.split('.')[1]);
        if (!step)
          throw new UserFacingError(
            'bad_request',
            'That button is no longer available. Use /quote in this thread instead.',
          );
        return enter(step, action.value ?? '', scope);
      },
    },
    modes: Object.fromEntries(STEPS.map((step) => [MODE_OF[step], modeDefinition(step, config)])),
  };
}

function modeDefinition(step: QuoteStep, config: Pick<Config, 'AGENT_MAX_TOOL_CALLS'>): ModeDefinition {
  return {
    system: (scope) => modeSystemPrompt(step, scope),
    tools: MODE_TOOLS[step],
    maxSteps: 5,
    // The emit call and a corrected emit count too; PRICE also needs room for its lookups.
    maxToolCalls: Math.max(config.AGENT_MAX_TOOL_CALLS, step === 'price' ? 8 : 3),
    requireTerminal: {
      nudge: `Please call the ${EMIT_TOOL[step]} tool with your final results.`,
      giveUp: `I couldn’t finish the ${LABEL[step]} this time: no complete result came back for me to check.`,
    },
    after: (result, scope) => afterStep(step, result, scope),
  };
}

function fromCommand(options: Record<string, string>, scope: TurnScope): ActionResult {
  let { mode, request = '' } = options;
  // Platforms without command options send `/quote calc 3 boxes…` as one text.
  if (!mode && options.text) [, mode, request = ''] = /^(\S+)\s*([\s\S]*)$/.exec(options.text.trim()) ?? [];
  if (/^(cancel|stop|exit|done)$/i.test(mode?.trim() ?? '')) return cancel(scope);
  const step = parseStep(mode);
  if (!step) {
    const unknown = mode ? `I don’t know the quote mode “${mode}”. ` : '';
    return { reply: { text: `${unknown}${USAGE}`, blocks: [] } };
  }
  return enter(step, request, scope);
}

function cancel(scope: TurnScope): ActionResult {
  const active = scope.state.mode?.name.startsWith('quote_') === true;
  if (active) leaveMode(scope.state);
  const text = active
    ? 'OK, I’ve stopped the quote. What it has so far stays in this thread; use /quote to carry on.'
    : 'There is no quote step waiting in this thread.';
  return { reply: { text, blocks: [] } };
}

/** Enters the step's mode; the request becomes the turn's message. */
function enter(step: QuoteStep, request: string, scope: TurnScope): ActionResult {
  const qs = quoteState(scope.state);
  let text = request.trim();
  if (!text && step === 'price' && qs.calc) text = NEXT_STEP.price.value;
  if (!text && step === 'table' && qs.prices.length > 0) text = NEXT_STEP.table.value;
  if (!text) {
    // Asked without a model call; the user's answer runs the mode.
    enterStep(scope.state, step, '', [ASK_FIRST[step]]);
    return { reply: { text: ASK_FIRST[step], blocks: [{ type: 'buttons', buttons: [NEXT_STEP.cancel] }] } };
  }
  enterStep(scope.state, step, text);
  return { message: text };
}

/** Questions keep the mode so the answer continues it; a finished result or a failure leaves it. */
function afterStep(step: QuoteStep, result: LoopResult, scope: TurnScope): void {
  if (result.ended === 'terminal' && result.terminal?.tool === EMIT_TOOL[step]) {
    if (pendingQuestions(scope.state).length === 0) leaveMode(scope.state);
    return;
  }
  const request = pendingRequest(scope.state);
  const offers = quoteState(scope.state).offers.length;
  leaveMode(scope.state);
  scope.log.warn(
    { step, ended: result.ended, toolCalls: result.toolCalls.length },
    'quote step ended without a result',
  );
  const kept =
    step === 'price' && offers > 0 ? ` The ${offers} supplier prices I looked up are kept in this thread.` : '';
  result.text = `${result.text}${kept} Press “Try again”, or rephrase the request with /quote ${step}.`;
  result.blocks.push({
    type: 'buttons',
    buttons: [{ actionId: `quotes.${step}`, label: 'Try again', ...(request ? { value: request } : {}) }],
  });
}
