import { z } from 'zod';
import type { UserRole } from './turn.js';

/**
 * Acting with a person's OK (issue 43). A tool declares what it does (`effect`); a tenant's
 * policy per tool or family says whether a call runs (`auto`), waits for a person (`approve`)
 * or is never offered (`off`); a tainted turn (other people's words reached the model) makes
 * every `write` and `spend` call wait, whatever the policy, unless the tenant turned that off.
 */

/** `read` changes nothing; `write` changes something outside the turn; `spend` costs money beyond the model's tokens. */
export const TOOL_EFFECTS = ['read', 'write', 'spend'] as const;
export type ToolEffect = (typeof TOOL_EFFECTS)[number];

export const APPROVAL_POLICIES = ['auto', 'approve', 'off'] as const;
export type ApprovalPolicy = (typeof APPROVAL_POLICIES)[number];

/** A key of the policy map: a tool's name or a family's name (the tool's own entry wins). */
const policyKey = z.string().regex(/^[a-z0-9_-]{1,64}$/, 'a tool or family name (a-z, 0-9, _ and -)');

/** Who may approve, besides nobody else: empty means the asker alone, never anyone. */
export const approversSchema = z.strictObject({
  /** Platform user ids (Slack `U…`, Discord snowflakes, HTTP/console user ids). */
  users: z.array(z.string().trim().min(1).max(64)).max(50).optional(),
  /** A Slack user group (`S…`) whose members may approve. */
  slackGroup: z.string().trim().min(1).max(64).optional(),
  /** A Discord role id whose holders may approve. */
  discordRole: z.string().trim().min(1).max(64).optional(),
});
export type Approvers = z.infer<typeof approversSchema>;

/** `settings.approvals` of a tenant, as the CLI, the admin API and the console write it. */
export const approvalSettingsSchema = z.strictObject({
  policy: z.record(policyKey, z.enum(APPROVAL_POLICIES)).optional(),
  /** Whether a tainted turn's write and spend calls wait for a person (default true). */
  taint: z.boolean().optional(),
  approvers: approversSchema.optional(),
});
export type ApprovalSettings = z.infer<typeof approvalSettingsSchema>;

/**
 * A tenant's approval settings from its `settings` (lenient: a bad stored value falls back to the
 * defaults of the parts it spoils, so a hand-edited row never opens a gate nor breaks a turn).
 */
export function approvalSettings(settings: Record<string, unknown> | undefined): ApprovalSettings {
  const raw = settings?.approvals;
  if (!raw || typeof raw !== 'object') return {};
  const parsed = approvalSettingsSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const r = raw as Record<string, unknown>;
  const out: ApprovalSettings = {};
  const policy = z.record(policyKey, z.enum(APPROVAL_POLICIES)).safeParse(r.policy);
  if (policy.success) out.policy = policy.data;
  if (typeof r.taint === 'boolean') out.taint = r.taint;
  const approvers = approversSchema.safeParse(r.approvers);
  if (approvers.success) out.approvers = approvers.data;
  return out;
}

/** The default policy of an effect: read runs, write waits, spend waits for guests only. */
export function defaultPolicy(effect: ToolEffect, role: UserRole): ApprovalPolicy {
  if (effect === 'read') return 'auto';
  if (effect === 'write') return 'approve';
  return role === 'guest' ? 'approve' : 'auto';
}

export interface CallGate {
  /** `run` now, wait for a person (`approve`), or never (`off`). */
  gate: 'run' | 'approve' | 'off';
  /** Why: the policy that applied, or the taint that raised it. */
  reason: 'policy' | 'default' | 'taint';
}

/**
 * Whether one call of `tool` runs now. The tool's own policy entry wins over its family's, which
 * wins over the effect's default; a tainted turn raises `auto` to `approve` for write and spend
 * (unless the tenant set `taint: false`). `off` stays off.
 */
export function gateCall(
  tool: {
    name: string;
    family?: string | undefined;
    effect?: ToolEffect | undefined;
    selfService?: boolean | undefined;
  },
  turn: { role: UserRole; tainted?: boolean | undefined },
  settings: ApprovalSettings,
): CallGate {
  const effect = tool.effect ?? 'read';
  const set = settings.policy?.[tool.name] ?? (tool.family ? settings.policy?.[tool.family] : undefined);
  // A self-service write (a person's own memory; a guest's reaches their own notes only) runs unless the tenant says otherwise.
  const policy = set ?? (tool.selfService ? 'auto' : defaultPolicy(effect, turn.role));
  const reason = set ? 'policy' : 'default';
  if (policy === 'off') return { gate: 'off', reason };
  if (policy === 'approve') return { gate: 'approve', reason };
  if (effect !== 'read' && turn.tainted && settings.taint !== false) return { gate: 'approve', reason: 'taint' };
  return { gate: 'run', reason };
}

/**
 * Parses a CLI policy list: `take_message=auto,images=approve` (a tool or family name, `=`, a
 * policy), or `default` (→ no entries: every tool follows its effect's default).
 */
export function parsePolicyList(
  text: string,
): { ok: true; policy: Record<string, ApprovalPolicy> } | { ok: false; error: string } {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === 'default') return { ok: true, policy: {} };
  const policy: Record<string, ApprovalPolicy> = {};
  for (const part of trimmed.split(',').map((s) => s.trim())) {
    if (!part) continue;
    const [key = '', value = ''] = part.split('=', 2).map((s) => s.trim());
    if (!policyKey.safeParse(key).success || !(APPROVAL_POLICIES as readonly string[]).includes(value))
      return {
        ok: false,
        error: `“${part}” is not <tool or family>=<${APPROVAL_POLICIES.join('|')}>; use e.g. take_message=auto,images=approve, or default`,
      };
    policy[key] = value as ApprovalPolicy;
  }
  if (Object.keys(policy).length === 0) return { ok: false, error: 'no policy given; use e.g. take_message=auto' };
  return { ok: true, policy };
}

/** One line describing a tenant's approval settings, for `npm run tenants -- list` and the console. */
export function describeApprovals(settings: ApprovalSettings): string {
  const policy = Object.entries(settings.policy ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  const who = settings.approvers ?? {};
  const approvers = [
    ...(who.users ?? []),
    ...(who.slackGroup ? [`slack group ${who.slackGroup}`] : []),
    ...(who.discordRole ? [`discord role ${who.discordRole}`] : []),
  ];
  return [
    policy ? `policy ${policy}` : 'policy default',
    settings.taint === false ? 'taint off' : 'taint on',
    approvers.length ? `approvers ${approvers.join(', ')}` : 'approvers: the asker',
  ].join('; ');
}
