import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { ThreadState } from '../../contract/thread-state.js';
import { campaignRow } from '../../data/rows.js';
import type { CampaignFilters } from './filters.js';
import type { Campaign } from './result.js';

/**
 * What a thread remembers of its campaign searches, under `state.tools.campaigns`:
 * the active filters (applied to follow-ups until cleared) and the last result set
 * (for "Show more" without a model call). Thread state outlives deployments (Redis),
 * so what is read back is validated; anything unreadable starts afresh.
 */
export interface CampaignThreadState {
  filters: CampaignFilters;
  last?: LastResult;
  /** The turn (message id) of the latest search, and whether any search in it found campaigns. */
  turn?: { messageId: string; found: boolean };
}

export interface LastResult {
  /** Names this result set in its buttons, so a click on an older message is recognised. */
  id: string;
  tool: string;
  campaigns: Campaign[];
  /** The filters as they were for this search (the context line under each page). */
  filterLabels: string[];
}

const FAMILY = 'campaigns';

const stateSchema = z.object({
  filters: z.object({
    channels: z.array(z.string()).optional(),
    value_props: z.array(z.string()).optional(),
    sentiments: z.array(z.string()).optional(),
    visual_styles: z.array(z.string()).optional(),
    companies: z.array(z.string()).optional(),
    date_range: z.string().optional(),
    has_offer: z.boolean().optional(),
  }),
  last: z
    .object({
      id: z.string(),
      tool: z.string(),
      campaigns: z.array(
        campaignRow.extend({
          similarity: z.number().optional(),
          rank: z.number().optional(),
          snippet: z.string().optional(),
        }),
      ),
      filterLabels: z.array(z.string()),
    })
    .optional(),
  turn: z.object({ messageId: z.string(), found: z.boolean() }).optional(),
});

export function readCampaignState(state: ThreadState): CampaignThreadState {
  const parsed = stateSchema.safeParse(state.tools[FAMILY]);
  return parsed.success ? parsed.data : { filters: {} };
}

export function writeCampaignState(state: ThreadState, value: CampaignThreadState): void {
  state.tools[FAMILY] = value;
}

export function newResultId(): string {
  return randomBytes(6).toString('base64url');
}
