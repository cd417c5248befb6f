import { z } from 'zod';
import { availabilityRow } from '../../data/rows.js';
import { defineTool, ToolError } from '../../contract/tool.js';
import { formatMinutes } from './format.js';
import { troubleOutput } from './lookup.js';
import { cacheKey, hasBusiness, loadServices, scopeArgs, type BusinessEnv } from './scope.js';

const SHOWN = 12;

/**
 * `get_availability` (docs/business.md): free start times for a service on a date, from the
 * working hours minus pending and confirmed bookings, in the business's time zone. Read-only:
 * it does not book.
 */
export function createAvailabilityTool(env: BusinessEnv) {
  return defineTool({
    name: 'get_availability',
    title: 'Checking availability',
    description:
      'Free appointment times on one date, for a service (its duration) or a plain 30-minute slot. Read-only: it cannot book.',
    input: z.object({
      date: z.iso.date().describe('YYYY-MM-DD, in the business’s time zone'),
      service: z.string().trim().min(1).max(200).optional().describe('Service name, for its duration'),
    }),
    timeoutMs: env.timeoutMs,
    offer: (ctx) => hasBusiness(env, ctx),
    async run({ date, service }, ctx) {
      const now = ctx.now();
      let minutes = 30;
      let serviceName: string | undefined;
      if (service) {
        const services = await loadServices(env, ctx, now.getTime(), 'get_availability');
        if (!services.ok) return troubleOutput('availability');
        const wanted = service.toLowerCase();
        const match =
          services.value.find((s) => s.name.toLowerCase() === wanted) ??
          services.value.find((s) => s.name.toLowerCase().includes(wanted));
        if (!match)
          throw new ToolError(
            `No service called "${service}". Services: ${services.value.map((s) => s.name).join(', ') || 'none listed'}.`,
          );
        serviceName = match.name;
        minutes = match.duration_minutes ?? 30;
      }
      const slots = await env.lookups.run(ctx, now.getTime(), {
        tool: 'get_availability',
        fn: 'get_availability',
        key: cacheKey(ctx.tenant, 'availability', date, String(minutes)),
        ttlMs: env.bookingTtlMs,
        size: (r) => r.length,
        load: () =>
          ctx.data.call(
            'get_availability',
            { ...scopeArgs(ctx.tenant), date, duration_minutes: minutes, after: now.toISOString(), limit: 200 },
            availabilityRow,
          ),
      });
      if (!slots.ok) return troubleOutput('availability');
      const what = serviceName
        ? `${serviceName} (${formatMinutes(minutes)})`
        : `a ${formatMinutes(minutes)} appointment`;
      if (slots.value.length === 0)
        return {
          content: `No free times for ${what} on ${date} (closed, fully booked or already past).`,
          summary: 'No free times',
        };
      const timezone = slots.value[0]?.timezone ?? '';
      const times = slots.value.map((s) => s.slot_local.slice(11, 16));
      return {
        content: `${times.length} free start time${times.length === 1 ? '' : 's'} for ${what} on ${date} (${timezone}): ${times.join(', ')}. Availability only: booking is done by the business.`,
        summary: `${times.length} free time${times.length === 1 ? '' : 's'}`,
        blocks: [
          {
            type: 'fields',
            fields: [
              {
                label: `Free on ${date}`,
                value: `${times.slice(0, SHOWN).join(', ')}${times.length > SHOWN ? ` and ${times.length - SHOWN} more` : ''}`,
              },
            ],
          },
          { type: 'context', items: [`${what} · times in ${timezone}`] },
        ],
        data: {
          availability: {
            date,
            service: serviceName ?? null,
            durationMinutes: minutes,
            timezone,
            slots: slots.value.map((s) => ({ start: s.slot_start, local: s.slot_local })),
          },
        },
      };
    },
  });
}
