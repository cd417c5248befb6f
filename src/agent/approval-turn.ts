import { createHmac, randomUUID } from 'node:crypto';
import type { LoopResult, PendingCall, TurnScope } from '../contract/extension.js';
import type { ChatMessage } from '../contract/llm.js';
import type { TurnEvent } from '../contract/turn.js';
import { UserFacingError } from '../contract/turn.js';
import { approvalSettings } from '../contract/approvals.js';
import { approverWords, mayNotDecide } from './approval-approvers.js';
import type { Block } from '../reply/model.js';
import { truncate } from '../reply/text.js';
import { fenceToolOutput } from '../security/fence.js';
import type { ApprovalStore, StepApproval } from '../data/approvals.js';
import { runToolCall } from './run-tool.js';
import { metrics } from '../telemetry/metrics.js';
import { startSpan, tracingOn } from '../telemetry/tracing.js';
import type { LoopInput } from './loop.js';

/** Action ids of the approval buttons: `approval.approve` / `approval.deny` (value: the approval's id), `approval.all` (value: the step's first id). */
export const APPROVAL_ACTION = 'approval';

export interface ApprovalDeps {
  store: ApprovalStore;
  /** APPROVAL_TIMEOUT in ms. */
  timeoutMs: number;
  /** The key of the approver's hash (TURN_LOG_HASH_KEY, or the process's random one). */
  hashKey: string;
}

/** Where a paused step waits in the thread's state: its tool-calling message and the results it has so far. */
export const PAUSED_STATE = 'approval';

/** Whether the thread's paused step still waits on `callId` (its result not yet in). */
export function stillPaused(state: TurnScope['state'], callId: string): boolean {
  const paused = state.tools[PAUSED_STATE] as { messages?: ChatMessage[] } | undefined;
  const messages = paused?.messages ?? [];
  const asked = messages.some((m) => m.role === 'assistant' && m.tool_calls?.some((c) => c.id === callId));
  const answered = messages.some((m) => m.role === 'tool' && m.tool_call_id === callId);
  return asked && !answered;
}

/** The verb of the sweep's entry for an approval nobody decided in time (`approval.expire`; no button has it). */
export const EXPIRE_VERB = 'expire';
/** How far the app's clock may be behind the database's when an expiry entry arrives. */
const EXPIRY_SKEW_MS = 5_000;

export function isApprovalAction(action: { id: string } | undefined): boolean {
  return action !== undefined && action.id.split('.', 1)[0] === APPROVAL_ACTION;
}

/**
 * A paused step (issue 43): its calls are recorded first (tenant-scoped rows), then the approval
 * event and the reply with its buttons go out. Nothing waits in memory: a decision is a new turn.
 */
export async function pauseForApproval(
  deps: ApprovalDeps,
  scope: TurnScope,
  threadKeyValue: string,
  pending: PendingCall[],
  emit: (e: TurnEvent) => void,
): Promise<{ text: string; blocks: Block[] }> {
  const { message, tenant, now, log } = scope;
  const settings = approvalSettings(tenant.settings);
  const approvers = settings.approvers ?? {};
  const expiresAt = new Date(now().getTime() + deps.timeoutMs);
  const stepId = randomUUID();
  const rows = await deps.store.create(tenant.id, {
    stepId,
    threadKey: threadKeyValue,
    platform: message.platform,
    workspaceId: message.workspaceId,
    channelId: message.channelId,
    threadId: message.threadId,
    askerId: message.userId,
    approvers,
    expiresAt,
    calls: pending.map((p) => ({ callId: p.callId, tool: p.tool, arguments: p.arguments })),
  });
  const byCall = new Map(rows.map((r) => [r.callId, r.id]));
  const approvals = pending.map((p) => ({
    id: byCall.get(p.callId) ?? '',
    tool: p.tool,
    title: p.title,
    arguments: p.arguments,
  }));
  const who = approverWords(approvers, message.userId);
  log.info(
    { event: 'approval_required', stepId, tools: pending.map((p) => p.tool), reasons: pending.map((p) => p.reason) },
    'tool calls wait for a person’s approval',
  );
  metrics.approvals.inc({ outcome: 'requested' }, pending.length);
  emit({
    type: 'approval_required',
    stepId,
    approvals,
    approvers: approvers.users?.length ? approvers.users : [message.userId],
    expiresAt: expiresAt.toISOString(),
  });
  const until = `${expiresAt.toISOString().slice(11, 16)} UTC`;
  const lines = approvals.map((a) => `• ${a.title} (\`${a.tool}\`): ${argumentsLine(a.arguments)}`);
  const text =
    `I need an OK before I go on:\n${lines.join('\n')}\n` +
    `${who} can approve ${approvals.length > 1 ? 'these' : 'this'}; it expires at ${until}.`;
  const buttons = approvals.flatMap((a) => [
    {
      actionId: `${APPROVAL_ACTION}.approve`,
      label: approvals.length > 1 ? `Approve ${a.tool}` : 'Approve',
      value: a.id,
    },
    { actionId: `${APPROVAL_ACTION}.deny`, label: approvals.length > 1 ? `Deny ${a.tool}` : 'Deny', value: a.id },
  ]);
  if (approvals.length > 1)
    buttons.push({ actionId: `${APPROVAL_ACTION}.all`, label: 'Approve all', value: approvals[0]?.id ?? '' });
  return { text, blocks: [{ type: 'buttons', buttons }] };
}

/** The outcome of a click, before the turn goes on. */
export type Decided =
  /** The clicker may not decide: said to them alone where the platform can; nothing changes. */
  | { kind: 'refused'; text: string }
  /** Nothing more to do: the reply says why (already decided, waiting for the step's other calls). */
  | { kind: 'answered'; text: string }
  /** Nothing to say: an expiry entry (the sweep's) for a step someone or something already decided. */
  | { kind: 'quiet' }
  /** Every call of the step is decided: these tool messages close it, then the loop goes on. */
  | { kind: 'resume'; results: ChatMessage[]; toolCalls: LoopResult['toolCalls'] };

/**
 * A click on an approval button (or `POST /api/approvals/{id}`, or the console's y/n): checks the
 * clicker may decide, decides once (the database's conditional UPDATE), and once the step's last
 * call is decided runs the approved calls and returns their results for the loop to go on with.
 */
export async function decideApproval(
  deps: ApprovalDeps,
  scope: TurnScope,
  threadKeyValue: string,
  loop: Pick<LoopInput, 'registry' | 'ctx' | 'limits' | 'rateLimits' | 'log'>,
  signal: AbortSignal,
  emit: (e: TurnEvent) => void,
): Promise<Decided> {
  const { message, tenant, log } = scope;
  const action = message.action ?? { id: '' };
  const verb = action.id.slice(APPROVAL_ACTION.length + 1);
  const id = action.value ?? '';
  const row = await deps.store.get(tenant.id, id);
  const expiry = verb === EXPIRE_VERB;
  if (!row || row.thread_key !== threadKeyValue) {
    if (expiry) return { kind: 'quiet' };
    throw new UserFacingError('bad_request', 'That approval is not known in this thread.');
  }
  const approvers = approvalSettings({ approvals: { approvers: row.approvers } }).approvers ?? {};
  if (expiry) {
    // The sweep's entry (no person): it may only expire what is past its time (a few seconds of clock skew allowed).
    if (Date.parse(row.expires_at) > scope.now().getTime() + EXPIRY_SKEW_MS) {
      log.warn({ event: 'approval_expiry_early', approvalId: id }, 'an expiry entry came before the approval expired');
      return { kind: 'quiet' };
    }
  } else {
    const refusal = await mayNotDecide(approvers, row.asker_id, message, log, id);
    if (refusal) return refusal;
  }
  const ids = verb === 'all' || expiry ? (await deps.store.step(tenant.id, row.step_id)).map((s) => s.id) : [id];
  const decision = expiry ? 'expired' : verb === 'deny' ? 'denied' : 'approved';
  // The same keyed hash as the turn record's user hash: the console can tell "the same person", not who.
  const by = createHmac('sha256', deps.hashKey)
    .update(`${message.platform}:${tenant.id}:${message.userId}`)
    .digest('hex')
    .slice(0, 24);
  let changed = false;
  let left = 0;
  for (const one of ids) {
    const d = await deps.store.decide(tenant.id, one, decision, by);
    if (d?.changed) changed = true;
    left = d?.pending_in_step ?? left;
  }
  const decidedNow = await deps.store.get(tenant.id, id);
  if (!changed) {
    // Decided before, but the thread still waits on the call: the run that decided it died before
    // saving (its entry is replayed here, on any replica); the turn resumes now, once.
    const replayed = decidedNow?.state !== 'pending' && left === 0 && stillPaused(scope.state, row.call_id);
    // The sweep's entry for a step a click (or an earlier expiry) already closed: nothing to say.
    if (!replayed && expiry) return { kind: 'quiet' };
    if (!replayed)
      return { kind: 'answered', text: `This was already decided (${stateWords(decidedNow?.state ?? 'pending')}).` };
  }
  const outcome = decidedNow?.state === 'expired' ? 'expired' : decision;
  // A replayed expiry updates the approval message too (the run that expired it died before it could).
  if (changed || (expiry && outcome === 'expired'))
    emit({
      type: 'approval_decided',
      outcome,
      by: expiry ? '' : message.userId,
      at: decidedNow?.decided_at ?? new Date().toISOString(),
    });
  if (left > 0) return { kind: 'answered', text: 'Noted. Waiting for the other decisions of this request.' };

  const step = await deps.store.step(tenant.id, row.step_id);
  for (const s of step) waited(s, tenant.id);
  // Replayed after the calls already ran (a retried click): the history holds their results.
  const answered = new Set(
    scope.state.history.flatMap((m) => (m.role === 'tool' && 'tool_call_id' in m ? [m.tool_call_id] : [])),
  );
  const toolbox = await loop.registry.offered(loop.ctx);
  const results: ChatMessage[] = [];
  const toolCalls: LoopResult['toolCalls'] = [];
  for (const call of step) {
    if (answered.has(call.call_id)) continue;
    const before = toolCalls.length;
    const content = await outcomeOf(call, toolbox, loop, signal, emit, toolCalls);
    const record = {
      outcome: call.state as 'approved' | 'denied' | 'expired',
      ...(call.decided_by ? { approverHash: call.decided_by } : {}),
      waitMs: Math.max(0, Date.parse(call.decided_at ?? call.created_at) - Date.parse(call.created_at)),
    };
    if (toolCalls.length === before)
      toolCalls.push({
        id: call.call_id,
        tool: call.tool,
        arguments: call.arguments,
        ok: false,
        summary: call.state === 'denied' ? 'declined by a person' : 'approval expired',
        latencyMs: 0,
        approval: record,
      });
    else toolCalls[before]!.approval = record;
    results.push({ role: 'tool', tool_call_id: call.call_id, content });
  }
  log.info(
    { event: 'approval_decided', stepId: row.step_id, states: step.map((s) => s.state) },
    'approval decided; the turn resumes',
  );
  return { kind: 'resume', results, toolCalls };
}

async function outcomeOf(
  call: StepApproval,
  toolbox: Awaited<ReturnType<LoopInput['registry']['offered']>>,
  loop: Pick<LoopInput, 'ctx' | 'limits' | 'rateLimits' | 'log'>,
  signal: AbortSignal,
  emit: (e: TurnEvent) => void,
  toolCalls: LoopResult['toolCalls'],
): Promise<string> {
  if (call.state === 'denied')
    return fenceToolOutput(
      call.tool,
      'Error: the person declined this call; it was not run. Do not call it again; answer without it.',
      'error',
    );
  if (call.state !== 'approved')
    return fenceToolOutput(
      call.tool,
      'Error: no one approved this call in time (the approval expired); it was not run. Tell the user.',
      'error',
    );
  const entry = toolbox.get(call.tool);
  emit({ type: 'tool_call_start', callId: call.call_id, tool: call.tool, title: entry?.tool.title ?? call.tool });
  const run = await runToolCall(
    { id: call.call_id, name: call.tool, arguments: JSON.stringify(call.arguments) },
    toolbox,
    { ...loop.ctx, signal, emit: (e) => emit(e) },
    loop.limits.toolTimeoutMs,
    loop.log,
    loop.rateLimits,
  );
  const summary = run.ok ? (run.output.summary ?? run.output.content.split('\n', 1)[0] ?? '') : run.error;
  emit({ type: 'tool_result', callId: call.call_id, tool: call.tool, ok: run.ok, summary });
  toolCalls.push({
    id: call.call_id,
    tool: call.tool,
    arguments: run.args,
    ok: run.ok,
    summary,
    latencyMs: run.latencyMs,
    ...(run.ok ? {} : { error: run.code }),
  });
  return run.ok
    ? fenceToolOutput(call.tool, run.output.content)
    : fenceToolOutput(call.tool, `Error: ${run.error}`, 'error');
}

function stateWords(state: string): string {
  return state === 'approved' ? 'approved' : state === 'denied' ? 'denied' : state === 'expired' ? 'expired' : state;
}

/** The call's arguments on one line, cut: the approver sees what runs, inert (no mentions reach the platform). */
function argumentsLine(args: Record<string, unknown>): string {
  return Object.entries(args)
    .map(([k, v]) => `${k}: ${truncate(typeof v === 'string' ? v : JSON.stringify(v), 120)}`)
    .join('; ');
}

/** One decided call: its outcome counted, and (tracing on) a span for the wait, from the ask to the decision. */
function waited(call: StepApproval, tenantId: string): void {
  metrics.approvals.inc({ outcome: call.state });
  if (!tracingOn()) return;
  const end = call.decided_at ? Date.parse(call.decided_at) : Date.now();
  const span = startSpan('approval wait', {
    startTime: Date.parse(call.created_at),
    attributes: {
      'switchboard.tool': call.tool,
      'switchboard.approval.outcome': call.state,
      'switchboard.approval.wait_ms': Math.max(0, end - Date.parse(call.created_at)),
      // Whether a person decided (the approver's keyed hash, as in the turn record) or the clock did.
      'switchboard.approval.decided_by_person': call.decided_by !== null,
      'switchboard.tenant': tenantId,
    },
  });
  span.end(end);
}
