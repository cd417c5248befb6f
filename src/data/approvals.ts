import { z } from 'zod';
import type { AdminDataPort } from './rpc-port.js';
import { approvalCreatedRow, approvalDecidedRow, approvalDueRow, approvalRow, approvalStepRow } from './rows.js';
import type { Approvers } from '../contract/approvals.js';

export type ApprovalRow = z.infer<typeof approvalRow>;
export type DecidedApproval = z.infer<typeof approvalDecidedRow>;
export type StepApproval = z.infer<typeof approvalStepRow>;
export type DueApproval = z.infer<typeof approvalDueRow>;
export type Decision = 'approved' | 'denied' | 'expired';

/** Where a paused turn resumes: the thread and who asked. */
export interface ApprovalThread {
  threadKey: string;
  platform: string;
  workspaceId: string;
  channelId: string;
  threadId: string;
  askerId: string;
}

/**
 * Pending approvals (issue 43) in the tenant-scoped `tool_approvals` table: written before the
 * approval message is posted, decided once by a conditional UPDATE. Nothing is kept in memory,
 * so a restart or another replica can take the decision.
 */
export interface ApprovalStore {
  create(
    tenantId: string,
    input: ApprovalThread & {
      stepId: string;
      approvers: Approvers;
      expiresAt: Date;
      calls: { callId: string; tool: string; arguments: Record<string, unknown> }[];
    },
  ): Promise<{ id: string; callId: string; tool: string; expiresAt: string }[]>;
  get(tenantId: string, id: string): Promise<ApprovalRow | undefined>;
  /** Decides a pending approval (once); undefined for an unknown id or another tenant's. */
  decide(tenantId: string, id: string, decision: Decision, decidedBy?: string): Promise<DecidedApproval | undefined>;
  /** The calls of one paused step, in the order they were asked. */
  step(tenantId: string, stepId: string): Promise<StepApproval[]>;
  /** Where the approval message was posted (so a decision can update it). */
  setMessage(tenantId: string, stepId: string, ref: Record<string, unknown>): Promise<void>;
  /**
   * Steps of these platforms, every tenant's, still pending past their expiry (one row each: its
   * first call), oldest first. Reads only: the sweep hands each to the inbox, whose entry decides it.
   */
  due(platforms: string[], limit?: number): Promise<DueApproval[]>;
}

export function createApprovalStore(port: AdminDataPort): ApprovalStore {
  return {
    async create(tenantId, input) {
      const rows = await port.admin(
        'approval_create',
        {
          tenant_id: tenantId,
          step_id: input.stepId,
          thread_key: input.threadKey,
          platform: input.platform,
          workspace_id: input.workspaceId,
          channel_id: input.channelId,
          thread_id: input.threadId,
          asker_id: input.askerId,
          approvers: input.approvers,
          expires_at: input.expiresAt.toISOString(),
          items: input.calls.map((c) => ({ call_id: c.callId, tool: c.tool, arguments: c.arguments })),
        },
        approvalCreatedRow,
      );
      return rows.map((r) => ({ id: r.id, callId: r.call_id, tool: r.tool, expiresAt: r.expires_at }));
    },
    async get(tenantId, id) {
      if (!UUID.test(id)) return undefined;
      const [row] = await port.admin('approval_get', { tenant_id: tenantId, id }, approvalRow);
      return row;
    },
    async decide(tenantId, id, decision, decidedBy) {
      if (!UUID.test(id)) return undefined;
      const [row] = await port.admin(
        'approval_decide',
        { tenant_id: tenantId, id, decision, ...(decidedBy ? { decided_by: decidedBy } : {}) },
        approvalDecidedRow,
      );
      return row;
    },
    async step(tenantId, stepId) {
      return port.admin('approval_step', { tenant_id: tenantId, step_id: stepId }, approvalStepRow);
    },
    async setMessage(tenantId, stepId, ref) {
      await port.admin('approval_set_message', { tenant_id: tenantId, step_id: stepId, message_ref: ref }, zUpdated);
    },
    async due(platforms, limit = 100) {
      return port.admin('approval_due', { platforms, limit }, approvalDueRow);
    },
  };
}

const zUpdated = z.object({ updated: z.number().int() });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
