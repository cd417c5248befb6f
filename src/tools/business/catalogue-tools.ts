import { z } from 'zod';
import { defineTool, type ToolContext } from '../../contract/tool.js';
import { formatMinutes, formatPrice, hoursByDay } from './format.js';
import { troubleOutput, type LookupResult } from './lookup.js';
import { hasBusiness, loadHours, loadProfile, loadServices, type BusinessEnv } from './scope.js';

/** `get_business_services` and `get_working_hours`: what the business offers and when it is open. */
export function createCatalogueTools(env: BusinessEnv) {
  const services = defineTool({
    name: 'get_business_services',
    title: 'Looking up services',
    description: 'The business’s services with duration, price and description.',
    input: z.object({}),
    timeoutMs: env.timeoutMs,
    offer: (ctx) => hasBusiness(env, ctx),
    async run(_input, ctx) {
      const { rows, businessName } = await withProfile(env, ctx, 'get_business_services', loadServices);
      if (!rows.ok) return troubleOutput('services');
      const name = businessName ?? 'the business';
      if (rows.value.length === 0) return { content: `No services are listed for ${name}.` };
      const count = `${rows.value.length} ${rows.value.length === 1 ? 'service' : 'services'}`;
      const lines = rows.value.map(
        (s) =>
          `- ${s.name}${s.category ? ` (${s.category})` : ''}: ${formatMinutes(s.duration_minutes)}, price ${formatPrice(s.price)}${s.description ? `. ${s.description}` : ''}`,
      );
      return {
        content: [`${count} at ${name} (prices as listed, no currency given):`, ...lines].join('\n'),
        summary: count,
        blocks: [
          {
            type: 'table',
            caption: `Services at ${name}`,
            columns: ['Service', 'Duration', 'Price', 'Details'],
            rows: rows.value.map((s) => [
              s.name,
              formatMinutes(s.duration_minutes),
              formatPrice(s.price),
              s.description ?? '',
            ]),
          },
        ],
      };
    },
  });

  const hours = defineTool({
    name: 'get_working_hours',
    title: 'Looking up opening hours',
    description: 'The business’s opening hours for each day of the week, in its own time zone.',
    input: z.object({}),
    timeoutMs: env.timeoutMs,
    offer: (ctx) => hasBusiness(env, ctx),
    async run(_input, ctx) {
      const { rows, businessName } = await withProfile(env, ctx, 'get_working_hours', loadHours);
      if (!rows.ok) return troubleOutput('opening hours');
      const week = hoursByDay(rows.value);
      if (week.length === 0) return { content: 'No opening hours are on file for this business.' };
      const timezone = rows.value[0]?.timezone ?? '';
      const name = businessName ?? 'The business';
      return {
        content: [`Opening hours of ${name} (${timezone}):`, ...week.map((d) => `${d.day}: ${d.hours}`)].join('\n'),
        summary: 'Opening hours',
        blocks: [
          { type: 'fields', fields: week.map((d) => ({ label: d.day, value: d.hours })) },
          { type: 'context', items: [`${name} · times in ${timezone}`] },
        ],
      };
    },
  });

  return [services, hours];
}

/** A reference read (cached per thread like all business reads) and the business's name, fetched together. */
async function withProfile<T>(
  env: BusinessEnv,
  ctx: ToolContext,
  tool: string,
  read: (env: BusinessEnv, ctx: ToolContext, now: number, tool: string) => Promise<LookupResult<T[]>>,
): Promise<{ rows: LookupResult<T[]>; businessName?: string }> {
  const now = ctx.now().getTime();
  const [rows, profile] = await Promise.all([read(env, ctx, now, tool), loadProfile(env, ctx, now, tool)]);
  return { rows, businessName: profile.ok && profile.value ? profile.value.name : undefined };
}
