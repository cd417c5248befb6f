import { DataError, type DataPort, type TurnRecord, type UsageRow } from '../contract/data.js';
import type { LlmClient, ModelPricing } from '../contract/llm.js';
import type { IncomingMessage, Usage } from '../contract/turn.js';
import type { Logger } from '../telemetry/logger.js';
import { createTurnRecorder, type TurnRecorderOptions, type TurnSummary } from './turn-record.js';
import type { UsageJournal } from './usage-journal.js';

export interface TurnLedgerDeps extends TurnRecorderOptions {
  data: DataPort;
  llm: LlmClient;
  log: Logger;
  /** Prices each turn (none: every turn's cost is null). */
  pricing?: ModelPricing;
  /** Keeps the rows the database cannot take now and writes them later (none: such a row is only logged). */
  journal?: UsageJournal;
}

/** What the turn says about itself in the record: its outcome, flags and tools. */
export type TurnOutcome = Pick<TurnRecord, 'outcome' | 'errorCode' | 'flags' | 'tools'>;

export interface TurnLedger {
  /**
   * Writes the turn's record and its ledger row (with its tokens and cost), in one statement,
   * and marks `seen` recorded. A failed write never fails the turn: the rows go to the usage
   * journal (written once the database is back), or, refused for their input, are logged.
   */
  record(
    message: IncomingMessage,
    tenantId: string,
    seen: TurnSummary,
    outcome: TurnOutcome,
    usage: Usage,
    toolCalls: number,
    /** The model that answered (a fallback's after a failover); the deployment's main model when not given. */
    model?: string,
  ): Promise<void>;
}

export function createTurnLedger(deps: TurnLedgerDeps): TurnLedger {
  const { data, llm, log } = deps;
  const turnRecord = createTurnRecorder({
    ...(deps.hashKey ? { hashKey: deps.hashKey } : {}),
    ...(deps.traceId ? { traceId: deps.traceId } : {}),
  });

  return {
    async record(message, tenantId, seen, outcome, usage, toolCalls, answeredBy) {
      const turn = turnRecord(message, tenantId, seen, outcome);
      seen.recorded = true;
      // Priced at the model that answered; a turn that failed over mid-way is priced at its last step's.
      const model = answeredBy ?? llm.model;
      let costUsd: number | null = null;
      try {
        if (usage.promptTokens + usage.completionTokens > 0) costUsd = deps.pricing?.cost(model, usage) ?? null;
      } catch (err) {
        log.warn({ err, model }, 'could not price a turn; its ledger row has no cost');
      }
      const row: UsageRow = {
        turn,
        tenantId,
        platform: message.platform,
        channelId: message.channelId,
        threadId: message.threadId,
        userId: message.userId,
        model,
        promptTokens: usage.promptTokens,
        completionTokens: usage.completionTokens,
        cachedPromptTokens: usage.cachedPromptTokens ?? 0,
        reasoningTokens: usage.reasoningTokens ?? 0,
        costUsd,
        toolCalls,
      };
      try {
        await data.recordUsage(row);
        deps.journal?.written();
      } catch (err) {
        // A row the database refuses for its input (its tenant deleted meanwhile) would be refused again.
        if (deps.journal && !(err instanceof DataError && err.code === 'invalid_input'))
          await deps.journal.keep(row, err);
        else log.warn({ err, tenant: tenantId }, 'could not write the token ledger row for a turn');
      }
    },
  };
}
