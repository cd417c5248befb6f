import type { DataPort, TurnRecord } from '../contract/data.js';
import type { LlmClient, ModelPricing } from '../contract/llm.js';
import type { IncomingMessage, Usage } from '../contract/turn.js';
import type { Logger } from '../telemetry/logger.js';
import { createTurnRecorder, type TurnRecorderOptions, type TurnSummary } from './turn-record.js';

export interface TurnLedgerDeps extends TurnRecorderOptions {
  data: DataPort;
  llm: LlmClient;
  log: Logger;
  /** Prices each turn (none: every turn's cost is null). */
  pricing?: ModelPricing;
}

/** What the turn says about itself in the record: its outcome, flags and tools. */
export type TurnOutcome = Pick<TurnRecord, 'outcome' | 'errorCode' | 'flags' | 'tools'>;

export interface TurnLedger {
  /**
   * Writes the turn's record and its ledger row (with its tokens and cost), in one statement,
   * and marks `seen` recorded. A failed write is logged and never fails the turn.
   */
  record(
    message: IncomingMessage,
    tenantId: string,
    seen: TurnSummary,
    outcome: TurnOutcome,
    usage: Usage,
    toolCalls: number,
  ): Promise<void>;
}

export function createTurnLedger(deps: TurnLedgerDeps): TurnLedger {
  const { data, llm, log } = deps;
  const turnRecord = createTurnRecorder({
    ...(deps.hashKey ? { hashKey: deps.hashKey } : {}),
    ...(deps.traceId ? { traceId: deps.traceId } : {}),
  });

  return {
    async record(message, tenantId, seen, outcome, usage, toolCalls) {
      const turn = turnRecord(message, tenantId, seen, outcome);
      seen.recorded = true;
      let costUsd: number | null = null;
      try {
        if (usage.promptTokens + usage.completionTokens > 0) costUsd = deps.pricing?.cost(llm.model, usage) ?? null;
      } catch (err) {
        log.warn({ err, model: llm.model }, 'could not price a turn; its ledger row has no cost');
      }
      await data
        .recordUsage({
          turn,
          tenantId,
          platform: message.platform,
          channelId: message.channelId,
          threadId: message.threadId,
          userId: message.userId,
          model: llm.model,
          promptTokens: usage.promptTokens,
          completionTokens: usage.completionTokens,
          cachedPromptTokens: usage.cachedPromptTokens ?? 0,
          reasoningTokens: usage.reasoningTokens ?? 0,
          costUsd,
          toolCalls,
        })
        .catch((err: unknown) =>
          log.warn({ err, tenant: tenantId }, 'could not write the token ledger row for a turn'),
        );
    },
  };
}
