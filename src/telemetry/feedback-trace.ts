import { createHash } from 'node:crypto';
import { loadApi, startSpan, tracingOn } from './tracing.js';

/**
 * A vote on an answer (issue 47) as a span event on the answer's trace: a short span
 * `switchboard.feedback` in the turn's trace (its id from the turn record), carrying one
 * `feedback` event with the value. The turn's own span ended long ago (a span cannot take events
 * once ended), so this span's parent is a remote span context of that trace whose span id is
 * derived from the turn's id: backends show it in the turn's trace, under a parent they do not know.
 * Nothing with tracing off, or when the turn had no trace.
 */
export async function feedbackOnTrace(
  traceId: string | null | undefined,
  vote: { turnId: string; value: string; changed: boolean; comment: boolean; tenantId: string },
): Promise<void> {
  if (!tracingOn() || !traceId || !/^[0-9a-f]{32}$/.test(traceId)) return;
  const api = await loadApi();
  const spanId = createHash('sha256').update(vote.turnId).digest('hex').slice(0, 16);
  const parent = api.trace.setSpanContext(api.ROOT_CONTEXT, { traceId, spanId, traceFlags: 1, isRemote: true });
  const span = startSpan('switchboard.feedback', {
    parent,
    attributes: { 'switchboard.turn.id': vote.turnId, 'switchboard.tenant.id': vote.tenantId },
  });
  span.addEvent('feedback', {
    'switchboard.feedback.value': vote.value,
    'switchboard.feedback.changed': vote.changed,
    'switchboard.feedback.comment': vote.comment,
  });
  span.end();
}
