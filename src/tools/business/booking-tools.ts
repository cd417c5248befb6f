import { z } from 'zod';
import { bookingRow } from '../../data/rows.js';
import type { Field } from '../../reply/model.js';
import { defineTool, ToolError, type FailureDecision, type ToolContext, type ToolOutput } from '../../contract/tool.js';
import { capitalize, formatLocal, formatMinutes, formatPrice, maskPhone, phoneDigits } from './format.js';
import { troubleOutput } from './lookup.js';
import { cacheKey, hasBusiness, scopeArgs, type BusinessEnv } from './scope.js';

type Booking = z.infer<typeof bookingRow>;

/**
 * `get_latest_booking` (by the customer's phone) and `get_booking_by_id` (by reference or id).
 *
 * Who asks decides what a lookup needs and shows (the role comes from the platform, in
 * `ctx.message.role`, never from the model): a member (staff) finds a booking by reference or
 * by phone and sees all of it; a guest finds one only by its reference together with the
 * phone number or email on it, matched in SQL (`get_booking_for_guest`), and sees it without
 * the email or notes and with the phone masked. A lookup that finds nothing counts against
 * the user's BOOKING_LOOKUP_FAILURES_PER_HOUR; past it, booking lookups pause for them.
 */
export function createBookingTools(env: BusinessEnv) {
  const latest = defineTool({
    name: 'get_latest_booking',
    title: 'Looking up a booking',
    description:
      'A customer’s latest booking, by phone number (staff only). Not by email: ask for the phone number or booking reference.',
    input: z.object({ customer_phone: z.string().trim().min(1).max(40).describe('As the user wrote it') }),
    timeoutMs: env.timeoutMs,
    offer: (ctx) => hasBusiness(env, ctx),
    async run({ customer_phone: phone }, ctx) {
      if (ctx.message.role === 'guest') {
        // A phone number alone is one fact, and anyone may know someone's number.
        return {
          content:
            'This user is a guest, not staff: a booking is shown to a guest only for its booking reference together with the phone number or email on it. ' +
            'Ask them for the booking reference, then call get_booking_by_id with booking_id and phone_or_email.',
          summary: 'Needs the booking reference',
        };
      }
      const digits = phoneDigits(phone);
      if (phone.includes('@') || digits.length < 6) {
        throw new ToolError(
          `"${phone}" is not a phone number. Bookings are found by the customer's phone number or by booking reference; lookup by email is not available, so ask the user for one of those.`,
        );
      }
      const paused = await ctx.failures.check('booking_lookup');
      if (!paused.ok) return pausedOutput(paused, ctx);
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
      if (!booking) {
        await ctx.failures.record('booking_lookup');
        return { content: `No booking found for the phone number ${phone}.`, summary: 'No booking found' };
      }
      return bookingOutput(booking, 'Latest booking', 'member');
    },
  });

  const byId = defineTool({
    name: 'get_booking_by_id',
    title: 'Looking up a booking',
    description:
      'One booking by its reference or id. For a customer (not staff), also pass the phone number or email on the booking, as they gave it.',
    input: z.object({
      booking_id: z.string().trim().min(1).max(64).describe('Reference (e.g. HP-1100) or id'),
      phone_or_email: z
        .string()
        .trim()
        .max(200)
        .optional()
        .describe('The phone number or email on the booking, from the customer; never guessed'),
    }),
    timeoutMs: env.timeoutMs,
    offer: (ctx) => hasBusiness(env, ctx),
    async run({ booking_id: id, phone_or_email: contact }, ctx) {
      const guest = ctx.message.role === 'guest';
      if (guest && !contact) {
        // Nothing is read and nothing counted: asking for the second fact reveals nothing.
        return {
          content:
            `To show booking "${id}" to this user (a guest, not staff), the phone number or email on the booking is needed too. ` +
            'Ask the customer for the phone number or email on the booking, then call get_booking_by_id again with both. Never guess it.',
          summary: 'Needs the phone number or email on the booking',
        };
      }
      const proof = guest ? contactProof(contact ?? '') : undefined;
      if (guest && !proof) {
        throw new ToolError(
          `"${contact}" is neither a phone number nor an email. Ask the customer for the phone number or email on the booking.`,
        );
      }
      const paused = await ctx.failures.check('booking_lookup');
      if (!paused.ok) return pausedOutput(paused, ctx);
      const rows = proof
        ? await env.lookups.run(ctx, ctx.now().getTime(), {
            tool: 'get_booking_by_id',
            fn: 'get_booking_for_guest',
            key: cacheKey(ctx.tenant, 'guest-booking', id.toUpperCase(), proof.key),
            ttlMs: env.bookingTtlMs,
            size: (r) => r.length,
            load: () => ctx.data.call('get_booking_for_guest', { booking_id: id, ...proof.args }, bookingRow),
          })
        : await env.lookups.run(ctx, ctx.now().getTime(), {
            tool: 'get_booking_by_id',
            fn: 'get_booking_by_id',
            key: cacheKey(ctx.tenant, 'booking', id.toUpperCase()),
            ttlMs: env.bookingTtlMs,
            size: (r) => r.length,
            load: () => ctx.data.call('get_booking_by_id', { booking_id: id }, bookingRow),
          });
      if (!rows.ok) return troubleOutput('booking');
      const [booking] = rows.value;
      if (!booking) {
        await ctx.failures.record('booking_lookup');
        // One answer for a reference that does not exist and for a phone or email that is not
        // the booking's: a guest learns nothing from a wrong guess.
        return guest
          ? {
              content: `No booking found for the reference "${id}" with that phone number or email. Ask the customer to check both; never guess them.`,
              summary: 'No booking found',
            }
          : { content: `No booking with the reference or id "${id}".`, summary: 'No booking found' };
      }
      return bookingOutput(booking, 'Booking', guest ? 'guest' : 'member');
    },
  });

  return [latest, byId];
}

/** The second fact a guest gave, as the SQL function's argument, with a cache key of its own. */
function contactProof(
  contact: string,
): { args: { customer_phone: string } | { customer_email: string }; key: string } | undefined {
  const value = contact.trim();
  if (value.includes('@')) {
    return /^[^\s@]+@[^\s@]+$/.test(value)
      ? { args: { customer_email: value }, key: `email:${value.toLowerCase()}` }
      : undefined;
  }
  const digits = phoneDigits(value);
  return digits.length >= 7 ? { args: { customer_phone: value }, key: `phone:${digits}` } : undefined;
}

/** Past BOOKING_LOOKUP_FAILURES_PER_HOUR (or with its store away): the model is told to stop, the user why. */
function pausedOutput(decision: Exclude<FailureDecision, { ok: true }>, ctx: ToolContext): ToolOutput {
  if (decision.reason === 'unavailable') {
    return {
      content:
        'Error: booking lookups are paused: their limit cannot be checked right now. Do not retry; tell the user booking lookups are unavailable for a few minutes and offer to take a message (take_message).',
      summary: 'Booking lookups paused',
      blocks: [
        { type: 'context', items: ['Booking lookups are unavailable right now. Would you like me to take a message?'] },
      ],
      blocksKey: 'business:booking-paused',
    };
  }
  const at = decision.resetAt.slice(11, 16);
  ctx.log.info(
    { role: ctx.message.role, limit: decision.limit, resetAt: decision.resetAt },
    'booking lookup refused: too many failed lookups',
  );
  return {
    content:
      `Booking lookups are paused for this user: ${decision.limit} unsuccessful booking lookups within an hour. They can try again after ${at} UTC (${decision.resetAt}). ` +
      'Do not retry, and do not guess references, phone numbers or emails; tell the user, and offer to take a message (take_message).',
    summary: 'Booking lookups paused',
    blocks: [
      {
        type: 'context',
        items: [
          `🔒 Booking lookups are paused for you after ${decision.limit} unsuccessful tries in an hour. Please try again after ${at} UTC, or ask me to take a message.`,
        ],
      },
    ],
    blocksKey: 'business:booking-paused',
  };
}

/**
 * The model reads what it needs to answer; the customer's contact details go only to the
 * user's card, not to the model provider. A guest's card has no email and no notes, and the
 * phone masked; the model gets no notes for a guest either.
 */
function bookingOutput(b: Booking, heading: string, role: 'guest' | 'member'): ToolOutput {
  const member = role === 'member';
  const when = `${formatLocal(b.booking_local)} (${b.timezone})`;
  const content = [
    `${heading} ${b.reference}: ${b.service} for ${b.customer_name}, ${when}, ${formatMinutes(b.duration_minutes)}, status ${b.status}, price ${formatPrice(b.price)}.`,
    ...(member && b.customer_notes ? [`Customer notes: ${b.customer_notes}`] : []),
  ].join('\n');
  const fields: Field[] = [
    { label: 'Reference', value: b.reference },
    { label: 'Customer', value: b.customer_name },
    { label: 'Service', value: b.service },
    { label: 'When', value: when },
    { label: 'Duration', value: formatMinutes(b.duration_minutes) },
    { label: 'Status', value: capitalize(b.status.replace('_', ' ')) },
    { label: 'Price', value: formatPrice(b.price) },
    ...(b.customer_phone ? [{ label: 'Phone', value: member ? b.customer_phone : maskPhone(b.customer_phone) }] : []),
    ...(member && b.customer_email ? [{ label: 'Email', value: b.customer_email }] : []),
    ...(member && b.customer_notes ? [{ label: 'Notes', value: b.customer_notes }] : []),
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
