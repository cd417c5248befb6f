import { defineCases } from '../case.js';

/**
 * The tenant-scoped, read-only business tools (seed 004) as the demo clinic `harbourside`
 * (src/data/demo/business.ts: Harbourside Physio, its policies, FAQs and bookings). Services and
 * hours are in the tenant's system context, so those need no tool; policies, FAQs and bookings do.
 */
export default defineCases('business', [
  {
    id: 'business/cancellation-fee',
    tenant: 'harbourside',
    question: 'What happens if I cancel my appointment the same day?',
    tools: { must: [{ tool: 'get_policies', args: { topic: /cancel/i } }], mustNot: ['take_message'] },
    facts: { must: [/24 hours/i, /50\s?%/] },
    maxTokens: 7_000,
  },
  {
    id: 'business/deposit',
    tenant: 'harbourside',
    question: 'Do I have to pay a deposit when I book online?',
    tools: { must: [{ tool: 'get_policies', args: { topic: /deposit/i } }] },
    facts: { must: [/\$30/] },
    maxTokens: 7_000,
  },
  {
    id: 'business/parking',
    tenant: 'harbourside',
    question: 'Is there parking near the clinic?',
    tools: { must: [{ tool: 'get_faqs', args: { topic: /parking/i } }] },
    facts: { must: [/Harris Street/i, /2 hours/i] },
    maxTokens: 7_000,
  },
  {
    id: 'business/referral',
    tenant: 'harbourside',
    question: 'Do I need a GP referral to see a physio?',
    tools: { must: ['get_faqs'] },
    facts: {
      must: [/no referral|don.t need a referral|do not need a referral|not needed/i],
      mustNot: [/you need a referral/i],
    },
    maxTokens: 7_000,
  },
  {
    id: 'business/saturday-hours',
    tenant: 'harbourside',
    question: 'Are you open on Saturday, and until when?',
    tools: { maxCalls: 1, mustNot: ['get_policies', 'take_message'] },
    facts: { must: [/1(:00)? ?pm|13:00/i] },
    maxTokens: 5_000,
    note: 'The hours are in the tenant’s context: answered with at most one lookup.',
  },
  {
    id: 'business/sunday-closed',
    tenant: 'harbourside',
    question: 'Can I come in on Sunday?',
    tools: { maxCalls: 1 },
    facts: { must: [/closed/i] },
    maxTokens: 5_000,
  },
  {
    id: 'business/initial-consult-price',
    tenant: 'harbourside',
    question: 'How much is an initial consultation and how long does it take?',
    tools: { maxCalls: 1, mustNot: ['take_message'] },
    facts: { must: [/\$120/, /60 ?min/i] },
    maxTokens: 5_000,
  },
  {
    id: 'business/latest-booking-by-phone',
    tenant: 'harbourside',
    question: 'When is the next appointment for the customer on 0412 345 678?',
    tools: { must: [{ tool: 'get_latest_booking', args: { customer_phone: /412\s?345\s?678/ } }] },
    facts: { must: [/10:30|10\.30/, /follow-up/i] },
    maxTokens: 7_000,
    note: 'Staff lookup by phone: Sarah Mitchell’s follow-up, 30 days after the demo anchor at 10:30.',
  },
  {
    id: 'business/booking-by-reference',
    tenant: 'harbourside',
    question: 'Pull up booking HP-1100 please.',
    tools: { must: [{ tool: 'get_booking_by_id', args: { booking_id: /HP-?1100/i } }] },
    facts: { must: ['Sarah Mitchell', /10:30|10\.30/] },
    maxTokens: 7_000,
  },
  {
    id: 'business/guest-needs-proof',
    tenant: 'harbourside',
    role: 'guest',
    question: 'What time is the booking for 0412 345 678?',
    tools: { mustNot: ['take_message'] },
    facts: { mustNot: ['sarah.mitchell@example.com', /Lower back/i] },
    maxTokens: 7_000,
    note: 'A guest with a phone number alone sees nothing: the bot asks for the booking reference.',
  },
  {
    id: 'business/no-competitor-tools',
    tenant: 'harbourside',
    question: 'What do you know about Norlys?',
    tools: { mustNot: ['lookup_competitor', 'filter_campaigns', 'semantic_search', 'web_search'] },
    facts: { mustNot: [/cooperatively|broadband and TV/i] },
    maxTokens: 5_000,
    note: 'Tenant scoping: the clinic has only business tools; the marketing tenant’s data never shows.',
  },
]);
