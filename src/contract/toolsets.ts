/**
 * Tool families (README, "Tenants and toolsets"): every product tool belongs to one, and a tenant is offered the
 * families its settings name (`settings.tools`), or, without that setting, the families it has
 * data or configuration for. The tenant comes from the platform, never from the model.
 */
export const TOOL_FAMILIES = [
  'campaigns',
  'competitors',
  'quotes',
  'business',
  'web',
  'images',
  'artifacts',
  'memory',
] as const;
export type ToolFamily = (typeof TOOL_FAMILIES)[number];

/**
 * What each family does and a question that shows it, for the places that tell people what the
 * bot can do for them (Slack's App Home), in the order of TOOL_FAMILIES.
 */
export const FAMILY_GUIDE: Record<ToolFamily, { title: string; what: string; example: string }> = {
  campaigns: {
    title: 'Campaigns',
    what: 'searches, filters and compares your marketing campaigns',
    example: 'Which Instagram campaigns ran last month, and how did they do?',
  },
  competitors: {
    title: 'Competitors',
    what: 'looks up what competitors run and offer',
    example: 'What is our main competitor promoting this quarter?',
  },
  quotes: {
    title: 'Quotes',
    what: 'prices materials and drafts quotes from your product list',
    example: 'Quote 20 sheets of 3 mm aluminium, 1250 × 2500.',
  },
  business: {
    title: 'Your business',
    what: 'answers about opening hours, services, policies and bookings',
    example: 'Are you open on Saturday morning, and is there a slot at 10?',
  },
  web: {
    title: 'Web search',
    what: 'searches the web and cites its sources',
    example: 'What changed in the news about our industry this week?',
  },
  images: { title: 'Images', what: 'draws images from a description', example: 'Draw a poster for our spring sale.' },
  artifacts: {
    title: 'Files',
    what: 'writes tables and documents you can download',
    example: 'Make a CSV of last month’s campaigns with their results.',
  },
  memory: {
    title: 'Memory',
    what: 'remembers what you ask it to, and only where you said it (/memory lists it)',
    example: 'Remember that our fiscal year starts in July.',
  },
};

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
