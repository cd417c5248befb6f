import type { ActionHandler, ActionResult, AgentExtension, CommandHandler, TurnScope } from '../contract/extension.js';
import type { OfferContext, Toolsets } from '../contract/tool.js';
import { configuredFamilies, type ToolFamily } from '../contract/toolsets.js';
import { tenantDataFamilyRow } from '../data/rows.js';
import { createTenantCache } from './tenant-cache.js';

/** How long a tenant's automatic families (what it has data for) are kept before they are read again. */
export const DATA_FAMILIES_TTL_MS = 60_000;

/** Families that need no data of the tenant's: on automatically when the deployment has their tools. */
const ALWAYS_AUTOMATIC: readonly ToolFamily[] = ['web', 'images', 'artifacts', 'memory'];

/**
 * A tenant's tool families. With `settings.tools` they are the ones named (read from the tenant
 * row, which the data port caches for 10 s: a settings change is seen within that, at once on
 * the replica that made it). Without it they are the families the tenant has data for
 * (`tenant_data_families`: campaigns, competitors, products → quotes, a business), read at most
 * once a minute per tenant, plus web, images, artifacts and memory (the first three have tools only when
 * the deployment configures them: TAVILY_API_KEY, IMAGE_MODEL).
 */
export function createToolsets(opts: { ttlMs?: number } = {}): Toolsets {
  const fromData = createTenantCache<ReadonlySet<ToolFamily>>(opts.ttlMs ?? DATA_FAMILIES_TTL_MS);
  return {
    async enabled(ctx: OfferContext) {
      const named = configuredFamilies(ctx.tenant.settings);
      if (named) return new Set(named);
      return fromData.get(ctx.tenant.id, async () => {
        const rows = await ctx.data.call('tenant_data_families', {}, tenantDataFamilyRow);
        return new Set([...ALWAYS_AUTOMATIC, ...rows.map((r) => r.family as ToolFamily)]);
      });
    },
    invalidate(tenantId) {
      fromData.invalidate(tenantId);
    },
  };
}

/**
 * An extension's buttons and commands (e.g. `/quote`, a campaign card's "Show more") answer
 * only when their family is on for the turn's tenant; otherwise they say so without a model call.
 */
export function gateExtension(ext: AgentExtension, family: ToolFamily, toolsets: Toolsets): AgentExtension {
  const refused = async (scope: TurnScope, handler: string): Promise<ActionResult | undefined> => {
    if ((await toolsets.enabled(scope)).has(family)) return undefined;
    scope.log.warn({ family, handler, tenant: scope.tenant.slug ?? scope.tenant.id }, 'refused: its family is off');
    return { reply: { text: `That is not turned on for this workspace (its ${family} tools are off).`, blocks: [] } };
  };
  const actions: Record<string, ActionHandler> = {};
  for (const [name, handler] of Object.entries(ext.actions ?? {}))
    actions[name] = async (action, scope) => (await refused(scope, name)) ?? handler(action, scope);
  const commands: Record<string, CommandHandler> = {};
  for (const [name, handler] of Object.entries(ext.commands ?? {}))
    commands[name] = async (options, scope) => (await refused(scope, `/${name}`)) ?? handler(options, scope);
  const { recall } = ext;
  return {
    ...ext,
    ...(ext.actions ? { actions } : {}),
    ...(ext.commands ? { commands } : {}),
    // A family's recall (memory) runs only for tenants that have the family on.
    ...(recall
      ? {
          recall: async (scope, text, signal) =>
            (await toolsets.enabled(scope)).has(family) ? recall(scope, text, signal) : undefined,
        }
      : {}),
  };
}
