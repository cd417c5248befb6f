import type { AdminDataPort } from '../rpc-port.js';
import { tenantApprovalsListRow, tenantApprovalsRow } from '../rows.js';
import {
  approvalSettings,
  approvalSettingsSchema,
  describeApprovals,
  parsePolicyList,
  type ApprovalSettings,
} from '../../contract/approvals.js';

/** The `approvals` command's options (the rest of `npm run tenants` ignores them). */
export const APPROVALS_OPTIONS = {
  policy: { type: 'string' },
  taint: { type: 'string' },
  approvers: { type: 'string' },
  'slack-group': { type: 'string' },
  'discord-role': { type: 'string' },
} as const;

export const APPROVALS_USAGE =
  'approvals <tenant> [--policy <tool|family>=<auto|approve|off>,…|default] [--taint on|off] ' +
  '[--approvers <user ids>|none] [--slack-group <id>|none] [--discord-role <id>|none]   (or: approvals <tenant> reset)';

export interface ApprovalsOptions {
  policy?: string | undefined;
  taint?: string | undefined;
  approvers?: string | undefined;
  'slack-group'?: string | undefined;
  'discord-role'?: string | undefined;
}

/**
 * `npm run tenants -- approvals <tenant> …`: shows a tenant's approval settings, changes the parts
 * named on the command line (the rest stay), or `reset`s them to the defaults. Returns the exit code.
 */
export async function approvalsCommand(
  port: AdminDataPort,
  slug: string | undefined,
  action: string | undefined,
  options: ApprovalsOptions,
  out: (line: string) => void,
): Promise<number> {
  if (!slug || (action !== undefined && action !== 'reset')) return 2;
  const all = await port.admin('list_tenant_approvals', {}, tenantApprovalsListRow);
  const row = all.find((t) => t.slug === slug);
  if (!row) {
    out(`Error: unknown tenant ${slug}.`);
    return 1;
  }
  const changes = Object.values(options).some((v) => v !== undefined);
  if (action !== 'reset' && !changes) {
    out(`${slug}: ${describeApprovals(approvalSettings({ approvals: row.approvals }))}`);
    return 0;
  }
  let next: ApprovalSettings | null = null;
  if (action !== 'reset') {
    const merged = applyOptions(approvalSettings({ approvals: row.approvals }), options);
    if (!merged.ok) {
      out(`Cannot set the approvals of ${slug}: ${merged.error}.`);
      return 2;
    }
    next = merged.settings;
  }
  const [saved] = await port.admin('set_tenant_approvals', { tenant: slug, approvals: next }, tenantApprovalsRow);
  out(`${slug}: ${describeApprovals(approvalSettings({ approvals: saved?.approvals }))}`);
  out('Running bots see the change within 10 seconds.');
  return 0;
}

function applyOptions(
  current: ApprovalSettings,
  options: ApprovalsOptions,
): { ok: true; settings: ApprovalSettings } | { ok: false; error: string } {
  const next: ApprovalSettings = { ...current, approvers: { ...current.approvers } };
  if (options.policy !== undefined) {
    const parsed = parsePolicyList(options.policy);
    if (!parsed.ok) return parsed;
    next.policy = options.policy.trim().toLowerCase() === 'default' ? {} : { ...current.policy, ...parsed.policy };
  }
  if (options.taint !== undefined) {
    if (!['on', 'off'].includes(options.taint)) return { ok: false, error: '--taint takes on or off' };
    next.taint = options.taint === 'on';
  }
  const orNone = (v: string) => (v.trim().toLowerCase() === 'none' ? undefined : v.trim());
  const approvers = { ...next.approvers };
  if (options.approvers !== undefined) {
    const list = orNone(options.approvers)
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (list?.length) approvers.users = list;
    else delete approvers.users;
  }
  for (const [flag, key] of [
    ['slack-group', 'slackGroup'],
    ['discord-role', 'discordRole'],
  ] as const) {
    const value = options[flag];
    if (value === undefined) continue;
    const id = orNone(value);
    if (id) approvers[key] = id;
    else delete approvers[key];
  }
  next.approvers = approvers;
  if (Object.keys(approvers).length === 0) delete next.approvers;
  if (next.policy && Object.keys(next.policy).length === 0) delete next.policy;
  const checked = approvalSettingsSchema.safeParse(next);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    return { ok: false, error: `${issue?.path.join('.') || 'approvals'}: ${issue?.message ?? 'invalid'}` };
  }
  return { ok: true, settings: checked.data };
}
