/**
 * What an application built on a peer framework adds per turn to keep what Switchboard keeps:
 * the thread's history loaded from the same keyv store and saved back (its last 14 turns, about
 * what Switchboard's 6,000-token budget holds here), and the turn's row in the same token ledger
 * through the same data port. Used by the "same work" rows of bench/peers/compare.ts, so the
 * comparison can be read both ways: the frameworks bare, and the frameworks doing the durable
 * work Switchboard's turn does. (No lock, rate limit or budget check is added: those cost
 * Switchboard little; see docs/performance.md.)
 */
import type { Switchboard } from '../../src/wiring/app.js';

export const KEEP_TURNS = 14;

export interface AppWork {
  /** The thread's earlier turns, each a list of the framework's own messages. */
  load(thread: string): Promise<unknown[][]>;
  save(thread: string, turns: unknown[][]): Promise<void>;
  record(thread: string, usage: { promptTokens: number; completionTokens: number; toolCalls: number }): Promise<void>;
}

export async function appWork(sb: Switchboard, framework: string): Promise<AppWork> {
  const tenant = await sb.data.defaultTenant();
  const key = (thread: string) => `peer:${framework}:${thread}`;
  return {
    async load(thread) {
      return (await sb.kv.get<unknown[][]>(key(thread))) ?? [];
    },
    async save(thread, turns) {
      await sb.kv.set(key(thread), turns.slice(-KEEP_TURNS), 30 * 86_400_000);
    },
    async record(thread, usage) {
      await sb.data.recordUsage({
        tenantId: tenant.id,
        platform: 'http',
        channelId: 'bench',
        threadId: thread,
        userId: 'u',
        model: framework,
        ...usage,
      });
    },
  };
}
