import type { Config } from '../../config/index.js';
import type { ToolSet } from '../../contract/tool.js';
import { ToolError, type AnyTool } from '../../contract/tool.js';
import { createAvailabilityTool } from './availability-tool.js';
import { createBookingTools } from './booking-tools.js';
import { createCatalogueTools } from './catalogue-tools.js';
import { businessContext } from './context.js';
import { createKnowledgeTools } from './knowledge-tools.js';
import { createBusinessLookups, type LookupSettings } from './lookup.js';
import { createTakeMessageTool } from './take-message-tool.js';
import { createTenantCache } from '../tenant-cache.js';

export { TROUBLE_MESSAGE } from './lookup.js';

const REFERENCE_TTL_MS = 10 * 60_000;
const BOOKING_TTL_MS = 60_000;

export interface BusinessToolOptions {
  referenceTtlMs?: number;
  bookingTtlMs?: number;
}

/**
 * Tenant-scoped lookups of the tenant's business (services, hours, availability, policies,
 * FAQs, bookings), offered only when the tenant has a business, under the router's
 * limits: at most BUSINESS_MAX_CALLS lookups a turn, each within BUSINESS_TOOL_TIMEOUT_MS,
 * all within BUSINESS_TURN_BUDGET_MS; then the fallback ("…Would you like me to take a
 * message?") and `take_message`. The tenant and business come from the platform context; no
 * tool takes a business id from the model.
 */
export function createBusinessTools(config: Config, opts: BusinessToolOptions = {}): ToolSet {
  const settings: LookupSettings = {
    perCallMs: config.BUSINESS_TOOL_TIMEOUT_MS,
    turnBudgetMs: config.BUSINESS_TURN_BUDGET_MS,
    maxCalls: config.BUSINESS_MAX_CALLS,
  };
  const referenceTtlMs = opts.referenceTtlMs ?? REFERENCE_TTL_MS;
  const env = {
    lookups: createBusinessLookups(settings),
    perTenant: {
      hasBusiness: createTenantCache<boolean>(referenceTtlMs),
      context: createTenantCache<{ text: string | undefined; complete: boolean }>(referenceTtlMs),
    },
    referenceTtlMs,
    bookingTtlMs: opts.bookingTtlMs ?? BOOKING_TTL_MS,
    // The lookups give up first (per call and per turn), so the user gets the fallback rather than a generic timeout.
    timeoutMs: Math.min(config.TOOL_TIMEOUT_MS, settings.turnBudgetMs + 1_000),
  };
  const lookups: AnyTool[] = [
    ...createCatalogueTools(env),
    createAvailabilityTool(env),
    ...createKnowledgeTools(env),
    ...createBookingTools(env),
  ].map((tool: AnyTool, i): AnyTool => ({
    ...tool,
    // Every lookup tool's call counts against the turn's cap, here, in one place.
    async run(input: Record<string, unknown>, ctx) {
      const begun = env.lookups.begin(ctx);
      if (!begun.ok) throw new ToolError(begun.error);
      return tool.run(input, ctx);
    },
    // The business profile (services, hours, topics) reaches the system prompt once, through the first tool.
    ...(i === 0 ? { instructions: (ctx) => businessContext(env, ctx) } : {}),
  }));
  return { tools: [...lookups, createTakeMessageTool(env)], extensions: [] };
}
