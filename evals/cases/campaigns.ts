import { defineCases } from '../case.js';

/**
 * The campaign search tools (seed 003: semantic_search, filter_campaigns, full_text_search, and
 * aggregate_campaigns), on the demo marketing tenant's 300 campaigns (src/data/demo/campaigns.ts).
 * "Show me…" wants cards; "what are the offers of…" wants the filter, then a short list.
 */
export default defineCases('campaigns', [
  {
    id: 'campaigns/recent-cash-back-email',
    tenant: 'default',
    question: 'Show me recent cash back campaigns on email.',
    tools: {
      must: [{ tool: 'filter_campaigns', args: { channel: /email/i, value_prop: /cash ?back/i } }],
      mustNot: ['web_search'],
    },
    facts: { must: ['Northpeak', 'Harbor Rewards'] },
    maxTokens: 9_000,
    note: 'The design note’s first example: a filter by channel and value prop, answered with the recent e-mails.',
  },
  {
    id: 'campaigns/offers-of-cash-back-emails',
    tenant: 'default',
    question: 'What are the offers in the recent cash back email campaigns?',
    tools: { must: [{ tool: 'filter_campaigns', args: { value_prop: /cash ?back/i } }], mustNot: ['web_search'] },
    // The offers in the model's own short list, not only in the cards (seed 003).
    facts: { must: [/5\s?%/, /\$200/, /3\s?%/], in: 'text' },
    maxTokens: 9_000,
    note: '“What are the offers from X campaigns”: filter first, then answer from the filtered set’s offers.',
  },
  {
    id: 'campaigns/fjordlys-wind',
    tenant: 'default',
    question: 'Which campaigns talk about wind power from the Danish coast?',
    tools: { must: [{ tool: ['semantic_search', 'full_text_search'], args: { query: /wind/i } }] },
    facts: { must: ['Fjordlys'] },
    maxTokens: 9_000,
    note: 'A theme, not a dimension: search by meaning (or the words), and find the tenant’s own Fjordlys campaign.',
  },
  {
    id: 'campaigns/mentions-no-annual-fee',
    tenant: 'default',
    question: 'Which campaigns mention "no annual fee" in their copy?',
    tools: { must: [{ tool: ['full_text_search', 'filter_campaigns'], args: {} }], mustNot: ['web_search'] },
    facts: { must: [/annual fee/i] },
    maxTokens: 9_000,
    note: '“Mentions X” is a full-text search over the copy.',
  },
  {
    id: 'campaigns/count-per-channel',
    tenant: 'default',
    question: 'How many campaigns do we have per channel?',
    tools: { must: [{ tool: 'aggregate_campaigns', args: { group_by: /channel/i } }], maxCalls: 2 },
    facts: { must: ['Instagram', /\b51\b/, 'LinkedIn'] },
    maxTokens: 8_000,
    note: 'Counting is the aggregate tool’s, not a list the model counts itself (Instagram leads with 51 of 300).',
  },
  {
    id: 'campaigns/top-companies',
    tenant: 'default',
    question: 'Which companies ran the most campaigns? Give me the top 3.',
    tools: { must: [{ tool: 'aggregate_campaigns', args: { group_by: /company|brand/i } }] },
    facts: { must: ['Bluewave Mobile'] },
    maxTokens: 8_000,
    note: 'Bluewave Mobile has 18 campaigns in the demo data, the most of any company.',
  },
  {
    id: 'campaigns/tiktok-playful',
    tenant: 'default',
    question: 'List the playful TikTok campaigns.',
    tools: { must: [{ tool: 'filter_campaigns', args: { channel: /tiktok/i, sentiment: /playful/i } }] },
    facts: { mustNot: [/no (matching )?campaigns/i] },
    maxTokens: 9_000,
    note: 'Two dimensions at once, each in its own filter field.',
  },
  {
    id: 'campaigns/ev-charging-offers',
    tenant: 'default',
    question: 'What offers are energy companies making around EV charging?',
    tools: {
      must: [{ tool: ['filter_campaigns', 'semantic_search', 'full_text_search'], args: {} }],
      mustNot: ['web_search', 'lookup_competitor'],
    },
    facts: { must: [/EV charging|electric[- ]car/i] },
    maxTokens: 10_000,
    note: 'Our own campaign data, not the web and not a competitor briefing.',
  },
  {
    id: 'campaigns/follow-up-narrows',
    tenant: 'default',
    before: ['Show me cash back campaigns.'],
    question: 'Now only the ones on email.',
    tools: { must: [{ tool: ['filter_campaigns', 'semantic_search'], args: { channel: /email/i } }] },
    facts: { must: ['Northpeak'] },
    maxTokens: 10_000,
    note: 'A follow-up narrows the thread’s active filters instead of starting over.',
  },
  {
    id: 'campaigns/no-invented-campaigns',
    tenant: 'default',
    question: 'Show me our campaigns on Snapchat.',
    tools: { must: ['filter_campaigns'], mustNot: ['web_search'] },
    facts: { mustNot: [/Snapchat campaign:/i] },
    maxTokens: 8_000,
    note: 'There is no Snapchat channel in the data: the answer says so instead of inventing campaigns.',
  },
]);
