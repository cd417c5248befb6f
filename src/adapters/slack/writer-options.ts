/** What the Slack turn writer (turn-writer.ts) takes and what it answers. */
import type { Logger } from '../../telemetry/logger.js';

export interface WriterOptions {
  log: Logger;
  /** How often streamed text is flushed to Slack. */
  streamFlushMs?: number;
  /** Fallback (no streaming): the live message is updated at most this often. */
  updateIntervalMs?: number;
  /** A stream older than this ends and the answer continues in a new one (Slack ends streams after about 5 minutes). */
  streamMaxAgeMs?: number;
  /**
   * What an earlier run of this turn recorded (replay markers, see replay-marker.ts): when it
   * names messages, this run edits them with the final answer instead of posting again.
   */
  recorded?: readonly string[];
  /** Records each message's ts (and the files' upload) as soon as Slack has it. */
  record?: (id: string) => Promise<void>;
}

export interface DeliveryResult {
  mode: 'post' | 'stream' | 'fallback';
  /** Messages we created in the thread (streamed, posted, continuation). */
  posted: number;
  failed: boolean;
}
