/**
 * Tool families (issue 28): every product tool belongs to one, and a tenant is offered the
 * families its settings name (`settings.tools`), or, without that setting, the families it has
 * data or configuration for. The tenant comes from the platform, never from the model.
 */
export const TOOL_FAMILIES = ['campaigns', 'competitors', 'quotes', 'business', 'web', 'images', 'artifacts'] as const;
export type ToolFamily = (typeof TOOL_FAMILIES)[number];

export function isToolFamily(name: string): name is ToolFamily {
  return (TOOL_FAMILIES as readonly string[]).includes(name);
}

/**
 * The families a tenant's settings name, or `undefined` when it has no (valid) `tools`
 * setting: then the families are chosen automatically. Unknown names are dropped, so a typo in
 * an import never breaks a turn (the CLI and the admin API refuse them up front).
 */
export function configuredFamilies(settings: Record<string, unknown> | undefined): ToolFamily[] | undefined {
  const raw = settings?.tools;
  if (!Array.isArray(raw)) return undefined;
  return raw.filter((f): f is ToolFamily => typeof f === 'string' && isToolFamily(f));
}

/**
 * Parses a families argument: `auto` (→ null, the automatic toolset), `none` (→ []), or a
 * comma list of family names. Returns an error message for unknown names.
 */
export function parseFamilies(
  text: string,
): { ok: true; families: ToolFamily[] | null } | { ok: false; error: string } {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === 'auto') return { ok: true, families: null };
  if (trimmed === 'none') return { ok: true, families: [] };
  const names = trimmed
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !isToolFamily(n));
  if (unknown.length || names.length === 0)
    return {
      ok: false,
      error: `unknown tool famil${unknown.length === 1 ? 'y' : 'ies'} ${unknown.join(', ') || '(none given)'}; use auto, none or a comma list of ${TOOL_FAMILIES.join(', ')}`,
    };
  return { ok: true, families: [...new Set(names as ToolFamily[])].sort() };
}
