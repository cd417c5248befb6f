import type { OfferContext } from '../../contract/tool.js';
import { formatMinutes, hoursByDay } from './format.js';
import { hasBusiness, loadHours, loadProfile, loadServices, tenantKey, type BusinessEnv } from './scope.js';

/** Seed 004's suggested policy and FAQ topics, unless the tenant's ai_config lists its own. */
export const DEFAULT_TOPICS = [
  'cancellation',
  'reschedule',
  'late arrival',
  'deposits',
  'refunds',
  'pricing',
  'hours',
  'location',
  'parking',
];
const MAX_SERVICES_LISTED = 12;

/**
 * The tenant part of the system prompt (docs/business.md): which business the bot answers for, a
 * services summary, an hours summary, the topics to ask policies and FAQs about, and the
 * lookup rules. Built once per tenant and `referenceTtlMs` from the same reads as the tools; a
 * failed read leaves its line out, and that incomplete context is not kept.
 */
export async function businessContext(env: BusinessEnv, ctx: OfferContext): Promise<string | undefined> {
  const key = tenantKey(ctx.tenant);
  const built = await env.perTenant.context.get(key, () => buildContext(env, ctx));
  if (!built.complete) env.perTenant.context.invalidate(key);
  return built.text;
}

async function buildContext(
  env: BusinessEnv,
  ctx: OfferContext,
): Promise<{ text: string | undefined; complete: boolean }> {
  if (!(await hasBusiness(env, ctx))) return { text: undefined, complete: true };
  const now = Date.now();
  const [profile, services, hours] = await Promise.all([
    loadProfile(env, ctx, now, 'context'),
    loadServices(env, ctx, now, 'context'),
    loadHours(env, ctx, now, 'context'),
  ]);
  const complete = profile.ok && services.ok && hours.ok;
  const name = profile.ok && profile.value ? profile.value.name : 'the business';
  const lines = [`You answer questions about ${name} for its team and customers.`];
  if (services.ok && services.value.length) {
    const listed = services.value
      .slice(0, MAX_SERVICES_LISTED)
      .map((s) => `${s.name}${s.duration_minutes ? ` (${formatMinutes(s.duration_minutes)})` : ''}`);
    const more = services.value.length - listed.length;
    lines.push(`Services: ${listed.join(', ')}${more > 0 ? ` and ${more} more` : ''}.`);
  }
  if (hours.ok && hours.value.length) {
    lines.push(
      `Working hours (${hours.value[0]?.timezone ?? 'local time'}): ${hoursByDay(hours.value)
        .map((d) => `${d.day} ${d.hours}`)
        .join('; ')}.`,
    );
  }
  const topics = aiTopics(ctx.tenant.settings) ?? DEFAULT_TOPICS;
  lines.push(
    `Policy and FAQ lookups need a topic, e.g. ${topics.join(', ')}.`,
    `At most ${env.lookups.settings.maxCalls} business lookups per message. If a lookup fails, say “I’m having trouble pulling that up right now. Would you like me to take a message?” and, if they want, take it with take_message.`,
  );
  return { text: lines.join('\n'), complete };
}

function aiTopics(settings: Record<string, unknown>): string[] | undefined {
  const config = settings.ai_config;
  if (!config || typeof config !== 'object') return undefined;
  const topics = (config as { topics?: unknown }).topics;
  if (!Array.isArray(topics)) return undefined;
  const clean = topics
    .filter((t): t is string => typeof t === 'string' && t.trim().length > 0 && t.length <= 40)
    .slice(0, 20);
  return clean.length ? clean : undefined;
}
