import { z } from 'zod';

/** One tool's per-user limit: calls per window, fewer for guests. */
export interface ToolLimit {
  guest: number;
  member: number;
  windowSeconds: number;
}

const FIVE_HOURS = 5 * 3600;
/** Seed 001's numbers per 5-hour window. */
export const DEFAULT_TOOL_LIMITS: Readonly<Record<string, ToolLimit>> = Object.freeze({
  generate_artifact: { guest: 5, member: 50, windowSeconds: FIVE_HOURS },
  generate_image: { guest: 10, member: 100, windowSeconds: FIVE_HOURS },
  web_search: { guest: 20, member: 200, windowSeconds: FIVE_HOURS },
});

const toolLimitSchema = z
  .object({
    guest: z.number().int().min(0),
    member: z.number().int().min(0),
    windowHours: z
      .number()
      .positive()
      .max(24 * 31)
      .optional(),
    windowSeconds: z
      .number()
      .int()
      .positive()
      .max(31 * 86_400)
      .optional(),
  })
  .strict()
  .nullable();

/**
 * TOOL_RATE_LIMITS: JSON merged over the defaults, e.g.
 * `{"web_search":{"guest":5,"member":50,"windowHours":1},"generate_image":null}` (null: no limit).
 * Throws a message naming the problem (the config step turns it into an exit-2 error).
 * src/security/rate-limits.ts counts against what this returns.
 */
export function parseToolLimits(json: string | undefined): Record<string, ToolLimit> {
  const out: Record<string, ToolLimit> = Object.create(null) as Record<string, ToolLimit>;
  for (const [tool, limit] of Object.entries(DEFAULT_TOOL_LIMITS)) out[tool] = { ...limit };
  if (!json?.trim()) return out;
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new Error('not valid JSON; expected e.g. {"web_search":{"guest":20,"member":200,"windowHours":5}}');
  }
  const parsed = z.record(z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'a tool name'), toolLimitSchema).safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
  }
  for (const [tool, limit] of Object.entries(parsed.data)) {
    if (limit === null) {
      delete out[tool];
      continue;
    }
    const windowSeconds =
      limit.windowSeconds ??
      (limit.windowHours
        ? Math.round(limit.windowHours * 3600)
        : (DEFAULT_TOOL_LIMITS[tool]?.windowSeconds ?? FIVE_HOURS));
    out[tool] = { guest: limit.guest, member: limit.member, windowSeconds };
  }
  return out;
}
