import { z } from 'zod';
import { bookingRow } from '../../data/rows.js';
import type { Field } from '../../reply/model.js';
import { defineTool, ToolError, type ToolOutput } from '../../contract/tool.js';
import { capitalize, formatLocal, formatMinutes, formatPrice, phoneDigits } from './format.js';
import { troubleOutput } from './lookup.js';
import { cacheKey, hasBusiness, scopeArgs, type BusinessEnv } from './scope.js';

type Booking = z.infer<typeof bookingRow>;

/** `get_latest_booking` (by the customer's phone) and `get_booking_by_id` (by reference or id). */
export function createBookingTools(env: BusinessEnv) {
  const latest = defineTool({
    name: 'get_latest_booking',
    title: 'Looking up a booking',
    description:
      'A customer’s latest booking, by phone number. Not by email: ask for the phone number or booking reference.',
    input: z.object({ customer_phone: z.string().trim().min(1).max(40).describe('As the user wrote it') }),
    timeoutMs: env.timeoutMs,
    offer: (ctx) => hasBusiness(env, ctx),
    async run({ customer_phone: phone }, ctx) {
      const digits = phoneDigits(phone);
      if (phone.includes('@') || digits.length < 6) {
        throw new ToolError(
          `"${phone}" is not a phone number. Bookings are found by the customer's phone number or by booking reference; lookup by email is not available, so ask the user for one of those.`,
        );
      }
      const rows = await env.lookups.run(ctx, ctx.now().getTime(), {
        tool: 'get_latest_booking',
        fn: 'get_latest_booking',
        // The SQL matches on the last nine digits: '+61 412 345 678' and '0412 345 678' are one customer.
        key: cacheKey(ctx.tenant, 'latest-booking', digits.slice(-9)),
        ttlMs: env.bookingTtlMs,
        size: (r) => r.length,
        load: () =>
          ctx.data.call(
            'get_latest_booking',
            { ...scopeArgs(ctx.tenant), customer_phone: phone, limit: 1 },
            bookingRow,
          ),
      });
      if (!rows.ok) return troubleOutput('booking');
      const [booking] = rows.value;
      if (!booking) return { content: `No booking found for the phone number ${phone}.`, summary: 'No booking found' };
      return bookingOutput(booking, 'Latest booking');
    },
  });

  const byId = defineTool({
    name: 'get_booking_by_id',
    title: 'Looking up a booking',
    description: 'One booking by its reference or id.',
    input: z.object({ booking_id: z.string().trim().min(1).max(64).describe('Reference (e.g. HP-1100) or id') }),
    timeoutMs: env.timeoutMs,
    offer: (ctx) => hasBusiness(env, ctx),
    async run({ booking_id: id }, ctx) {
      const rows = await env.lookups.run(ctx, ctx.now().getTime(), {
        tool: 'get_booking_by_id',
        fn: 'get_booking_by_id',
        key: cacheKey(ctx.tenant, 'booking', id.toUpperCase()),
        ttlMs: env.bookingTtlMs,
        size: (r) => r.length,
        load: () => ctx.data.call('get_booking_by_id', { booking_id: id }, bookingRow),
      });
      if (!rows.ok) return troubleOutput('booking');
      const [booking] = rows.value;
      if (!booking) return { content: `No booking with the reference or id "${id}".`, summary: 'No booking found' };
      return bookingOutput(booking, 'Booking');
    },
  });

  return [latest, byId];
}

/**
 * The model reads what it needs to answer; the customer's contact details go only to the
 * user's card, not to the model provider.
 */
function bookingOutput(b: Booking, heading: string): ToolOutput {
  const when = `${formatLocal(b.booking_local)} (${b.timezone})`;
  const content = [
    `${heading} ${b.reference}: ${b.service} for ${b.customer_name}, ${when}, ${formatMinutes(b.duration_minutes)}, status ${b.status}, price ${formatPrice(b.price)}.`,
    ...(b.customer_notes ? [`Customer notes: ${b.customer_notes}`] : []),
  ].join('\n');
  const fields: Field[] = [
    { label: 'Reference', value: b.reference },
    { label: 'Customer', value: b.customer_name },
    { label: 'Service', value: b.service },
    { label: 'When', value: when },
    { label: 'Duration', value: formatMinutes(b.duration_minutes) },
    { label: 'Status', value: capitalize(b.status.replace('_', ' ')) },
    { label: 'Price', value: formatPrice(b.price) },
    ...(b.customer_phone ? [{ label: 'Phone', value: b.customer_phone }] : []),
    ...(b.customer_email ? [{ label: 'Email', value: b.customer_email }] : []),
    ...(b.customer_notes ? [{ label: 'Notes', value: b.customer_notes }] : []),
  ];
  return {
    content,
    summary: `${heading} ${b.reference} (${b.status})`,
    blocks: [
      { type: 'header', text: `${heading} ${b.reference}` },
      { type: 'fields', fields },
    ],
    // Two bookings looked up in one turn show two cards.
    blocksKey: `booking:${b.booking_id}`,
  };
}
