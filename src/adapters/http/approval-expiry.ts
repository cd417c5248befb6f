import { z } from 'zod';
import type { Agent } from '../../agent/agent.js';
import { expiryAction, startApprovalSweep } from '../../agent/approval-sweep.js';
import type { IncomingMessage } from '../../contract/turn.js';
import { createApprovalStore, type ApprovalStore, type DueApproval } from '../../data/approvals.js';
import { isAdminPort, type AdminDataPort } from '../../data/rpc-port.js';
import type { Inbox } from '../../inbox/index.js';
import type { KvStore } from '../../state/kv.js';
import type { Logger } from '../../telemetry/logger.js';
import { answeredStaysAnswered } from '../answered-turn.js';
import { heldForRetry } from '../retry-turn.js';
import type { Switchboard } from '../switchboard.js';
import { rememberOutcome } from './approval-outcomes.js';

/**
 * HTTP approvals nobody decides expire on their own (issue 43), like Slack's and Discord's: every
 * replica sweeps the HTTP steps past their time into the inbox (one entry per step, keyed by the
 * step, so two replicas record it once); the entry's turn expires the row (one conditional
 * UPDATE), tells the model, and its final answer is kept for the callers (`GET
 * /api/approvals/{id}`: a waiting SSE stream gets it, a JSON poller reads it).
 */

/** The inbox entry of an HTTP approval's expiry: the synthetic decision. JSON. */
interface HttpExpiryWork {
  message: IncomingMessage;
  stepId: string;
}

const PLATFORM = 'http';

/**
 * Starts the HTTP sweep when approvals are on (a database that keeps them); set up before the
 * inbox starts. Returns its stop function, or undefined.
 */
export function startHttpApprovalsOf(sb: Switchboard): (() => Promise<void>) | undefined {
  if (!isAdminPort(sb.data) || !sb.agent.handlesAction(expiryAction({ id: '' }).id)) return undefined;
  return startHttpApprovalExpiry({
    inbox: sb.inbox,
    agent: sb.agent,
    data: sb.data,
    store: createApprovalStore(sb.data),
    kv: sb.kv,
    intervalMs: sb.config.APPROVAL_SWEEP_MS,
    log: sb.log.child({ platform: 'http' }),
  });
}

export function startHttpApprovalExpiry(deps: {
  inbox: Inbox;
  agent: Agent;
  data: AdminDataPort;
  store: ApprovalStore;
  kv: KvStore;
  intervalMs: number;
  log: Logger;
}): () => Promise<void> {
  const { log } = deps;
  const slugOf = tenantSlugs(deps.data);
  deps.inbox.deliver<HttpExpiryWork>(PLATFORM, async (d) => {
    const work = d.entry.payload;
    const entryLog = log.child({ entry: d.entry.id, attempt: d.attempt });
    const turn = heldForRetry(d, (signal, options) =>
      answeredStaysAnswered(deps.agent.handle(work.message, signal, options), entryLog),
    );
    const kept = rememberOutcome(deps.kv, work.stepId, turn.events, entryLog);
    for await (const event of kept.events)
      if (event.type === 'error')
        entryLog.warn({ code: event.code, stepId: work.stepId }, 'http approval expiry turn failed');
    turn.rethrow();
    if (kept.outcome()) entryLog.info({ stepId: work.stepId }, 'http approval expired; its answer is kept for callers');
  });
  return startApprovalSweep({
    store: deps.store,
    platforms: [PLATFORM],
    intervalMs: deps.intervalMs,
    log,
    enqueue: async (due) => {
      const tenant = await slugOf(due.tenant_id);
      const work: HttpExpiryWork = { message: expiryMessage(due, tenant), stepId: due.step_id };
      return deps.inbox.add({
        id: `http:approval-expiry:${due.step_id}`,
        platform: PLATFORM,
        thread: `http:${due.workspace_id}:${due.channel_id}:${due.thread_id}`,
        payload: work,
        receivedAt: Date.now(),
      });
    },
  });
}

/** The synthetic decision of an expiry: the asker's thread, no person's action (the agent checks the time). */
function expiryMessage(due: DueApproval, tenant: string | undefined): IncomingMessage {
  return {
    platform: 'http',
    workspaceId: due.workspace_id,
    channelId: due.channel_id,
    threadId: due.thread_id,
    messageId: `approval-expiry:${due.step_id}`,
    userId: due.asker_id,
    role: 'guest', // nobody clicked: the least a person may do (an expiry runs no tool)
    isDirect: true,
    text: '',
    action: expiryAction(due),
    ...(tenant !== undefined ? { tenant } : {}),
  };
}

const tenantIds = z.object({ id: z.string(), slug: z.string() });

/** A tenant's slug by its id (an HTTP turn names its tenant by slug), read again for an id not known yet. */
function tenantSlugs(data: AdminDataPort): (id: string) => Promise<string | undefined> {
  let known = new Map<string, string>();
  return async (id) => {
    if (!known.has(id)) known = new Map((await data.admin('list_tenants', {}, tenantIds)).map((t) => [t.id, t.slug]));
    return known.get(id);
  };
}
