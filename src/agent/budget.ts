import type { Config } from '../config/index.js';
import type { DataPort, Tenant } from '../contract/data.js';
import type { Logger } from '../telemetry/logger.js';
import { UserFacingError, type IncomingMessage } from '../contract/turn.js';
import type { UsageJournal } from './usage-journal.js';

export type BudgetConfig = Pick<
  Config,
  'TOKEN_BUDGET_PER_USER_DAILY' | 'TOKEN_BUDGET_PER_TENANT_MONTHLY' | 'BUDGET_USD_PER_TENANT_MONTHLY'
>;

/**
 * Token budgets, checked by the core before a turn starts (every adapter's turns pass there):
 * a user's tokens in the current UTC day, a tenant's in the current UTC month, summed from the
 * token ledger, and a tenant's cost in USD in the current UTC month (the ledger's priced turns;
 * a turn with no known price adds nothing). A turn that would start over budget is refused with
 * `budget_exhausted` and the reset time. Unset budgets cost nothing (no query).
 *
 * Spend kept in the usage journal (turns whose rows wait for the database) counts too: it is
 * added to the ledger's totals, and while the ledger cannot be read it is checked alone (a turn
 * over budget on the journal's spend alone is refused). Otherwise, if the ledger cannot be read,
 * the turn runs (fail open) and a warning is logged: a budget caps spend over a day or a month,
 * and a short database outage should not silence the bot.
 */
export function createBudgets(
  data: DataPort,
  config: Partial<BudgetConfig>,
  log: Logger,
  now: () => Date,
  journal?: Pick<UsageJournal, 'held'>,
) {
  /**
   * The ledger's totals plus what the journal holds; the journal's alone when the ledger cannot be
   * read (then `read.err` says why).
   */
  async function spent(read: { err?: unknown }, tenantId: string, from: Date, to: Date, userId?: string) {
    const held = journal?.held({ tenantId, from, to, ...(userId ? { userId } : {}) }) ?? { tokens: 0, costUsd: 0 };
    try {
      const used = await data.usageTotals({ tenant: tenantId, from, to, ...(userId ? { userId } : {}) });
      if (!used) return undefined;
      return { tokens: used.promptTokens + used.completionTokens + held.tokens, costUsd: used.costUsd + held.costUsd };
    } catch (err) {
      read.err ??= err;
      return held;
    }
  }
  return {
    async check(message: IncomingMessage, tenant: Tenant): Promise<void> {
      const perUser = config.TOKEN_BUDGET_PER_USER_DAILY;
      const perTenant = config.TOKEN_BUDGET_PER_TENANT_MONTHLY;
      const usdPerTenant = config.BUDGET_USD_PER_TENANT_MONTHLY;
      if (!perUser && !perTenant && !usdPerTenant) return;
      const at = now();
      const read: { err?: unknown } = {};
      try {
        if (perUser) {
          const from = startOfUtcDay(at);
          const to = new Date(from.getTime() + 86_400_000);
          const used = await spent(read, tenant.id, from, to, message.userId);
          if (used && used.tokens >= perUser) {
            throw new UserFacingError(
              'budget_exhausted',
              `You have used today’s token budget (${perUser.toLocaleString('en-US')} tokens). It resets at 00:00 UTC (${hoursUntil(at, to)}).`,
              { resetAt: to.toISOString() },
            );
          }
        }
        if (perTenant || usdPerTenant) {
          const from = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
          const to = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
          const used = await spent(read, tenant.id, from, to);
          const overTokens = !!perTenant && !!used && used.tokens >= perTenant;
          const overUsd = !!usdPerTenant && !!used && used.costUsd >= usdPerTenant;
          if (overTokens || overUsd) {
            log.info(
              { tenant: tenant.id, budget: overUsd ? 'usd_per_tenant_monthly' : 'tokens_per_tenant_monthly' },
              'turn refused: the tenant is over its monthly budget',
            );
            const place = message.platform === 'discord' ? 'server' : 'workspace';
            throw new UserFacingError(
              'budget_exhausted',
              `This ${place} has used its monthly ${overUsd ? 'spending' : 'token'} budget. It resets on ${to.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', timeZone: 'UTC' })} at 00:00 UTC.`,
              { resetAt: to.toISOString() },
            );
          }
        }
      } catch (err) {
        if (err instanceof UserFacingError) throw err;
        read.err ??= err;
      }
      if (read.err !== undefined)
        log.warn(
          { err: read.err, tenant: tenant.id },
          'token budget not checked: the ledger could not be read; the turn runs',
        );
    },
  };
}

function startOfUtcDay(d: Date): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
}

function hoursUntil(from: Date, to: Date): string {
  const minutes = Math.max(1, Math.ceil((to.getTime() - from.getTime()) / 60_000));
  return minutes < 60 ? `in ${minutes} min` : `in about ${Math.round(minutes / 60)} h`;
}
