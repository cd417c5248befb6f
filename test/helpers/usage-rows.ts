import { randomUUID } from 'node:crypto';
import type { UsageRow } from '../../src/contract/data.js';

/** One turn's usage row with its turn record and a fresh turn id (usage-journal tests). */
export function usageRow(tenantId: string, over: Partial<UsageRow> = {}): UsageRow {
  return {
    tenantId,
    platform: 'http',
    channelId: 'api',
    threadId: 't-1',
    userId: 'u-1',
    model: 'gpt-test',
    promptTokens: 100,
    completionTokens: 50,
    toolCalls: 0,
    costUsd: 0.01,
    turn: {
      id: randomUUID(),
      outcome: 'answered',
      flags: [],
      tools: [],
      durationMs: 12,
      threadHash: 'th',
      userHash: 'uh',
    },
    ...over,
  };
}
