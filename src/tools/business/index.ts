import type { Config } from '../../config.js';
import type { ToolSet } from '../index.js';
import { createBookingTools } from './booking-tools.js';
import { createCatalogueTools } from './catalogue-tools.js';
import { createKnowledgeTools } from './knowledge-tools.js';
import { createBusinessLookups } from './lookup.js';

export { TROUBLE_MESSAGE } from './lookup.js';

/** Reads are single indexed queries: a lookup slower than this is failing, and a chat should say so. */
const BUSINESS_TOOL_TIMEOUT_MS = 3_000;
const REFERENCE_TTL_MS = 10 * 60_000;
const BOOKING_TTL_MS = 60_000;

export interface BusinessToolOptions {
  referenceTtlMs?: number;
  bookingTtlMs?: number;
}

/**
 * Tenant-scoped, read-only lookups of the tenant's business (services, hours, policies,
 * FAQs, bookings), offered only when the tenant has a business. The tenant and business
 * come from the platform context; no tool takes a business id from the model.
 */
export function createBusinessTools(config: Config, opts: BusinessToolOptions = {}): ToolSet {
  const timeoutMs = Math.min(config.TOOL_TIMEOUT_MS, BUSINESS_TOOL_TIMEOUT_MS);
  // The lookup gives up first, so the user gets the safe message rather than a generic timeout.
  const deadlineMs = Math.max(50, timeoutMs - Math.min(500, Math.round(timeoutMs / 4)));
  const env = {
    lookups: createBusinessLookups({ deadlineMs }),
    referenceTtlMs: opts.referenceTtlMs ?? REFERENCE_TTL_MS,
    bookingTtlMs: opts.bookingTtlMs ?? BOOKING_TTL_MS,
    timeoutMs,
  };
  return {
    tools: [...createCatalogueTools(env), ...createKnowledgeTools(env), ...createBookingTools(env)],
    extensions: [],
  };
}
