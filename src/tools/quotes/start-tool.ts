import { z } from 'zod';
import { defineTool, type OfferContext } from '../../contract/tool.js';
import { enterStep } from './mode-state.js';

/**
 * Enters a quote mode from plain conversation. It ends the main loop (terminal); the
 * agent then continues the same turn in the mode with the user's message, so one
 * message gets the quote step's result.
 */
export const createStartQuoteTool = (hasCatalogue: (ctx: OfferContext) => Promise<boolean>) =>
  defineTool({
    name: 'start_quote',
    title: 'Starting a quote',
    description:
      'Quotes and material prices (/quote). calc: items and flat patterns; price: supplier prices for materials or the ' +
      'last calc; table: the quote table. Runs next: do not answer it yourself.',
    input: z.object({
      mode: z.enum(['calc', 'price', 'table']),
      request: z.string().trim().min(1).max(2000).describe('The request, in the user’s words'),
    }),
    terminal: true,
    // Offered to tenants with a product catalogue; /quote works for everyone.
    offer: async (ctx) => !ctx.state.mode && (await hasCatalogue(ctx)),
    async run({ mode, request }, ctx) {
      enterStep(ctx.state, mode, request);
      return {
        content: `Quote step "${mode}" started; it runs next.`,
        text: `I’ve started the quote (${mode}). Send any extra details, or “go”, and I’ll work it out.`,
      };
    },
  });
