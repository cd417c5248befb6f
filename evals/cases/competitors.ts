import { defineCases } from '../case.js';

/**
 * The lazy competitor lookup (seed 000): the tool is offered while competitors are unfetched, the
 * model calls it when a competitor is mentioned, and the briefing (src/data/demo/competitor-profiles.ts)
 * lands in the thread's context instead of every prompt.
 */
export default defineCases('competitors', [
  {
    id: 'competitors/norlys-positioning',
    tenant: 'default',
    question: 'A customer says they are staying with Norlys. How should I position us against them?',
    tools: { must: [{ tool: 'lookup_competitor', args: { competitor_id: 'norlys' } }], mustNot: ['web_search'] },
    facts: { must: [/bundl/i], mustNot: [/Norlys is (a )?(bad|terrible|scam)/i], in: 'text' },
    maxTokens: 10_000,
    note: 'The design note’s example: a mention of Norlys loads its briefing; the answer uses the bundle angle.',
  },
  {
    id: 'competitors/ewii-weakness',
    tenant: 'default',
    question: 'What are EWII’s weak spots?',
    tools: { must: [{ tool: 'lookup_competitor', args: { competitor_id: 'ewii' } }] },
    facts: { must: [/home region|southern Jutland|awareness|time-limited/i], in: 'text' },
    maxTokens: 9_000,
  },
  {
    id: 'competitors/nordvind-phone-support',
    tenant: 'default',
    question: 'Does Nordvind El offer phone support?',
    tools: { must: [{ tool: 'lookup_competitor', args: { competitor_id: 'nordvind' } }], maxCalls: 1 },
    facts: { must: [/chat only|no phone|not offer phone|doesn.t offer phone|does not offer phone/i], in: 'text' },
    maxTokens: 8_000,
  },
  {
    id: 'competitors/vestkraft-fixed-price',
    tenant: 'default',
    question: 'A caller is comparing us with Vestkraft’s fixed price. What do I say?',
    tools: { must: [{ tool: 'lookup_competitor', args: { competitor_id: 'vestkraft' } }] },
    facts: { must: [/fixed/i], mustNot: [/\b\d+[.,]\d+ ?kr\/kWh\b.*Vestkraft/i], in: 'text' },
    maxTokens: 9_000,
    note: 'The briefing says never to quote their prices as current facts.',
  },
  {
    id: 'competitors/two-at-once',
    tenant: 'default',
    question: 'Compare Norlys and EWII for me in two short paragraphs.',
    tools: {
      must: [
        { tool: 'lookup_competitor', args: { competitor_id: 'norlys' } },
        { tool: 'lookup_competitor', args: { competitor_id: 'ewii' } },
      ],
    },
    facts: { must: ['Norlys', 'EWII'], in: 'text' },
    maxTokens: 12_000,
  },
  {
    id: 'competitors/no-lookup-without-mention',
    tenant: 'default',
    question: 'Write a two-sentence intro for our green electricity product.',
    tools: { mustNot: ['lookup_competitor', 'web_search'] },
    maxTokens: 5_000,
    note: 'No competitor is mentioned: the tool is offered but must not be called (no briefing in the prompt).',
  },
  {
    id: 'competitors/already-fetched',
    tenant: 'default',
    before: ['What is Norlys known for?'],
    question: 'And what do their customers usually say when they are asked about price?',
    tools: { mustNot: ['lookup_competitor'] },
    facts: { must: [/price/i], in: 'text' },
    maxTokens: 9_000,
    note: 'The briefing is already in the thread: a follow-up uses it without fetching again.',
  },
  {
    id: 'competitors/unknown-competitor',
    tenant: 'default',
    question: 'What do we know about Ørsted as a competitor?',
    tools: { mustNot: ['web_search'] },
    facts: { mustNot: [/Ørsted: competitor briefing/i] },
    maxTokens: 8_000,
    note: 'Not in the directory: the answer says there is no briefing rather than inventing one.',
  },
]);
