import { z } from 'zod';
import { nullableText, text, uuid } from './fields.js';

/** Pending approvals (issue 43): rows of the approval_* functions. */

export const approvalState = z.enum(['pending', 'approved', 'denied', 'expired']);

export const approvalCreatedRow = z.object({ id: uuid, call_id: text, tool: text, expires_at: text });

export const approvalDecidedRow = z.object({
  id: uuid,
  step_id: uuid,
  thread_key: text,
  asker_id: text,
  call_id: text,
  tool: text,
  arguments: z.unknown(),
  state: approvalState,
  changed: z.boolean(),
  decided_at: nullableText,
  decided_by: nullableText,
  created_at: text,
  pending_in_step: z.number().int(),
});

export const approvalRow = z.object({
  id: uuid,
  step_id: uuid,
  thread_key: text,
  platform: text,
  workspace_id: text,
  channel_id: text,
  thread_id: text,
  asker_id: text,
  call_id: text,
  tool: text,
  arguments: z.unknown(),
  approvers: z.record(z.string(), z.unknown()),
  state: approvalState,
  created_at: text,
  expires_at: text,
  decided_at: nullableText,
  decided_by: nullableText,
  message_ref: z.unknown().nullable(),
});

export const approvalStepRow = z.object({
  id: uuid,
  call_id: text,
  tool: text,
  arguments: z.unknown(),
  state: approvalState,
  decided_at: nullableText,
  decided_by: nullableText,
  created_at: text,
});

/** A step past its time that nobody decided (`approval_due`, the sweep's): its first call. */
export const approvalDueRow = z.object({
  tenant_id: uuid,
  id: uuid,
  step_id: uuid,
  thread_key: text,
  platform: text,
  workspace_id: text,
  channel_id: text,
  thread_id: text,
  asker_id: text,
  expires_at: text,
});

export const approvalCountRow = z.object({ state: approvalState, approvals: z.number().int() });
