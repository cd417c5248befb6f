import type { Config } from '../config/index.js';
import type { DataPort, Tenant } from '../contract/data.js';
import { UserFacingError, type IncomingMessage } from '../contract/turn.js';
import { tenantFor } from '../data/index.js';
import type { RateLimits } from '../security/rate-limits.js';
import type { createBudgets } from './budget.js';
import { isApprovalAction } from './approval-turn.js';

/** The tenant the message's workspace maps to; a workspace with none is told how to get set up. */
export async function resolveTenant(
  data: DataPort,
  tenantMode: Config['TENANT_MODE'],
  message: IncomingMessage,
): Promise<Tenant> {
  const tenant = await tenantFor(
    data,
    tenantMode,
    message.platform,
    message.workspaceId,
    message.orgId,
    message.tenant,
  );
  if (tenant) return tenant;
  const place = message.platform === 'discord' ? 'server' : 'workspace';
  throw new UserFacingError(
    'tenant_not_configured',
    `This ${place} is not set up for Switchboard yet. Ask your Switchboard admin to add it.`,
  );
}

export interface AdmissionDeps {
  rateLimits: RateLimits;
  budgets: Pick<ReturnType<typeof createBudgets>, 'check'>;
}

/**
 * The limits a turn must pass before it takes the thread: the user's message rate, then the
 * token and cost budgets. A turn over either is refused with a `UserFacingError` saying when to retry.
 */
export async function admitTurn(
  deps: AdmissionDeps,
  message: IncomingMessage,
  tenant: Tenant,
  replay = false,
): Promise<void> {
  // A decision on a paused step (a click, POST /api/approvals/{id}, the console's y/n) or the
  // sweep's expiry is the rest of a turn admitted when it was asked, not a new message: it neither
  // counts against the user's message rate nor is refused by the budget, or a pending approval
  // could never be closed (an expiry refused here would leave its buttons up for good). Issue 43.
  if (isApprovalAction(message.action)) return;
  // Another run of a message the inbox already ran (after a crash, an outage or a lost lock) is
  // the same message: counted again, an outage would use up the user's rate and skip their next ones.
  if (replay) return deps.budgets.check(message, tenant);
  const flood = await deps.rateLimits.message({
    tenantId: tenant.id,
    platform: message.platform,
    userId: message.userId,
  });
  if (!flood.ok) {
    throw new UserFacingError(
      'rate_limited',
      `You are sending messages faster than I can answer (${flood.limit} a minute). I skipped the last ones; try again in ${flood.retryAfterSeconds} s.`,
      { resetAt: flood.resetAt, limit: flood.limit, remaining: 0, notify: flood.notify },
    );
  }
  await deps.budgets.check(message, tenant);
}
