import { getHeapStatistics } from 'node:v8';
import type { Logger } from '../../telemetry/logger.js';

/**
 * How many `/api/chat` turns (and `/mcp` tool calls, turns without a model: mcp-route.ts) one
 * process runs at once. Slack and Discord turns wait in the inbox
 * (`INBOX_CONCURRENCY` at a time); an HTTP caller's turn starts when its request arrives, and a
 * turn in flight holds 70–160 KB of heap (docs/performance.md, Memory). Past what the heap holds,
 * V8 does not slow down: the process dies of "heap out of memory" and takes every turn with it
 * (a 128 MB heap, what a 256 MB container gets, died under 1,000). So past the limit a request is
 * refused at once with 503 and Retry-After, which a client can retry.
 */

/** The heap a process needs before any turn (core, tokenizer, caches), with room to spare. */
const BASE_HEAP_BYTES = 96 * 1024 * 1024;
/** Heap one turn in flight may take, garbage included: the high end of what was measured. */
const HEAP_PER_TURN_BYTES = 160 * 1024;
/** Below this the limit would refuse ordinary traffic; a heap that small is not a setting we support. */
const MIN_TURNS = 16;

/** The default limit: what this process's heap limit holds (Node sizes it from a container's memory). */
export function turnsTheHeapHolds(heapLimitBytes = getHeapStatistics().heap_size_limit): number {
  return Math.max(MIN_TURNS, Math.floor((heapLimitBytes - BASE_HEAP_BYTES) / HEAP_PER_TURN_BYTES));
}

/** `/api/chat`'s turns and `/mcp`'s tool calls share one (app.ts): both hold the same heap. */
export interface TurnGate {
  enter(): (() => void) | null;
}

/**
 * Counts turns in flight against `max`: `enter()` gives a release function, or null when full
 * (and says so at warn, one line every 10 s at most while the limit holds).
 */
export function turnGate(max: number, log: Pick<Logger, 'warn'>): TurnGate {
  let inFlight = 0;
  let refusalLoggedAt = 0;
  return {
    enter() {
      if (inFlight >= max) {
        if (Date.now() - refusalLoggedAt >= 10_000) {
          refusalLoggedAt = Date.now();
          log.warn(
            { code: 'overloaded', inFlight, limit: max },
            'refusing /api/chat turns and /mcp tool calls: API_MAX_TURNS_IN_FLIGHT reached',
          );
        }
        return null;
      }
      inFlight++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        inFlight--;
      };
    },
  };
}
