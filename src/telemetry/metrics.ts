import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Prometheus metrics, served at `GET /metrics`. One registry per process (prom-client's own
 * pattern): the core, the inbox and the tools record into it without being handed it.
 *
 * Label values are bounded: platforms, outcomes and error codes are fixed sets, tools and
 * models come from configuration, tenants from the tenants table. No user ids or free text.
 */
export const registry = new Registry();
let defaultsOn = false;

/** Process metrics (CPU, memory, event-loop lag, GC) are collected once something serves them. */
export function enableDefaultMetrics(): void {
  if (defaultsOn) return;
  defaultsOn = true;
  collectDefaultMetrics({ register: registry });
}

const TURN_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120];
const FAST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const metrics = {
  turns: new Counter({
    name: 'switchboard_turns_total',
    help: 'Turns finished, by platform and outcome (ok or the error code).',
    labelNames: ['platform', 'outcome'],
    registers: [registry],
  }),
  feedback: new Counter({
    name: 'switchboard_feedback_total',
    help: 'Votes on answers (issue 47), by value (up or down): a new vote or a changed one; a repeated vote is not counted again.',
    labelNames: ['value'],
    registers: [registry],
  }),
  turnDuration: new Histogram({
    name: 'switchboard_turn_duration_seconds',
    help: 'Turn duration, from the core taking the message to its last event.',
    labelNames: ['platform'],
    buckets: TURN_BUCKETS,
    registers: [registry],
  }),
  llmRequests: new Counter({
    name: 'switchboard_llm_requests_total',
    help: 'Chat completion requests, by model and outcome (ok or the failure kind).',
    labelNames: ['model', 'outcome'],
    registers: [registry],
  }),
  modelRequests: new Counter({
    name: 'switchboard_model_requests_total',
    help: 'Calls to each endpoint of the model chain (model@host), by outcome: ok, the failure kind, or breaker_open (skipped, not called).',
    labelNames: ['endpoint', 'outcome'],
    registers: [registry],
  }),
  modelBreakerOpen: new Gauge({
    name: 'switchboard_model_breaker_open',
    help: 'Whether the breaker of an endpoint of the model chain is open (1) or closed / probing (0).',
    labelNames: ['endpoint'],
    registers: [registry],
  }),
  llmDuration: new Histogram({
    name: 'switchboard_llm_duration_seconds',
    help: 'Chat completion duration (whole stream).',
    labelNames: ['model'],
    buckets: TURN_BUCKETS,
    registers: [registry],
  }),
  llmTokens: new Counter({
    name: 'switchboard_llm_tokens_total',
    help: 'Tokens the LLM reported, by kind (prompt or completion), model and tenant.',
    labelNames: ['kind', 'model', 'tenant'],
    registers: [registry],
  }),
  toolCalls: new Counter({
    name: 'switchboard_tool_calls_total',
    help: 'Tool calls, by tool and outcome (ok or the error code: rate_limited, tool_timeout, validation_failed…).',
    labelNames: ['tool', 'outcome'],
    registers: [registry],
  }),
  turnFlags: new Counter({
    name: 'switchboard_turn_flags_total',
    help: 'Turns answered with a flag (prompt_injection: the message was fenced as untrusted), by platform.',
    labelNames: ['platform', 'flag'],
    registers: [registry],
  }),
  approvals: new Counter({
    name: 'switchboard_approvals_total',
    help: 'Tool calls that waited for a person (issue 43), by outcome: requested, approved, denied, expired, refused (a click by someone who may not approve).',
    labelNames: ['outcome'],
    registers: [registry],
  }),
  toolDuration: new Histogram({
    name: 'switchboard_tool_duration_seconds',
    help: 'Tool call duration.',
    labelNames: ['tool'],
    buckets: FAST_BUCKETS,
    registers: [registry],
  }),
  businessLookups: new Counter({
    name: 'switchboard_business_lookups_total',
    help: 'Business data reads by tool and result: hit (thread cache), load (database), fallback (failed or timed out; the user got the fallback message).',
    labelNames: ['tool', 'result'],
    registers: [registry],
  }),
  events: new Counter({
    name: 'switchboard_events_total',
    help: 'Platform events offered to the inbox, by platform and result: added, duplicate (dropped: a retry or twin), full (thread queue full), unavailable (not recorded, not acked).',
    labelNames: ['platform', 'result'],
    registers: [registry],
  }),
  acks: new Counter({
    name: 'switchboard_acks_total',
    help: 'Acknowledgements sent to the platform, by platform and HTTP status where there is one.',
    labelNames: ['platform', 'status'],
    registers: [registry],
  }),
  inboxPending: new Gauge({
    name: 'switchboard_inbox_pending',
    help: 'Inbox entries not yet answered (waiting and running; every replica with Redis).',
    registers: [registry],
  }),
  inboxRunning: new Gauge({
    name: 'switchboard_inbox_running',
    help: 'Inbox entries being answered now.',
    registers: [registry],
  }),
  inboxOldestAge: new Gauge({
    name: 'switchboard_inbox_oldest_age_seconds',
    help: 'Age of the oldest entry not yet answered; 0 when none.',
    registers: [registry],
  }),
  redisDataLost: new Counter({
    name: 'switchboard_redis_data_lost_total',
    help: "Times this replica found Redis empty on reconnect (the inbox's epoch key gone): acked events still waiting may be lost.",
    registers: [registry],
  }),
  usageJournalDepth: new Gauge({
    name: 'switchboard_usage_journal_depth',
    help: 'Usage rows (ledger and turn record) kept in the usage journal until the database takes them.',
    registers: [registry],
  }),
  usageJournalDropped: new Counter({
    name: 'switchboard_usage_journal_dropped_total',
    help: 'Usage rows lost: the journal was full (USAGE_JOURNAL_MAX) or its store failed while the database was away.',
    registers: [registry],
  }),
};

/** Seconds since `start` (a performance.now() reading). */
export const secondsSince = (start: number) => (performance.now() - start) / 1000;
