import type { ThreadState } from '../../contract/thread-state.js';
import type { QuoteStep } from './state.js';

/**
 * Which quote step the thread is in: `state.mode` holds the mode's name, the request it
 * started with and the questions the last result asked (an answer continues the mode).
 */

export const STEPS: readonly QuoteStep[] = ['calc', 'price', 'table'];

export const MODE_OF: Record<QuoteStep, string> = {
  calc: 'quote_calc',
  price: 'quote_price',
  table: 'quote_table',
};

/** `calc`, `Calculate`, `PRICE`, `pricing`, `tables` → the step; anything else → undefined. */
export function parseStep(word: string | undefined): QuoteStep | undefined {
  const w = word?.trim().toLowerCase() ?? '';
  if (/^calc/.test(w)) return 'calc';
  if (/^pric/.test(w)) return 'price';
  if (/^tab/.test(w)) return 'table';
  return undefined;
}

export function enterStep(state: ThreadState, step: QuoteStep, request: string, questions: string[] = []): void {
  state.mode = { name: MODE_OF[step], data: { request, questions } };
}

export function leaveMode(state: ThreadState): void {
  delete state.mode;
}

export function pendingRequest(state: ThreadState): string | undefined {
  const request = state.mode?.data?.request;
  return typeof request === 'string' && request.trim() ? request : undefined;
}

export function pendingQuestions(state: ThreadState): string[] {
  const questions = state.mode?.data?.questions;
  return Array.isArray(questions) ? questions.filter((q): q is string => typeof q === 'string') : [];
}
