import type { Logger } from '../../telemetry/logger.js';
import { renderProgress, type OutgoingMessage } from './render.js';
import type { MessageRef, ReplySink } from './sinks.js';

export interface LiveReplyOptions {
  /** The least time between two writes to the live message (Discord: 5 edits / 5 s a channel). */
  minIntervalMs: number;
  log: Logger;
  now?: () => number;
}

export interface LiveReply {
  /** Updates the progress shown: the answer's text so far and/or the status line. */
  update(progress: { text?: string; status?: string }): void;
  /** Replaces the progress with the final messages; returns where each went. */
  finish(messages: OutgoingMessage[]): Promise<MessageRef[]>;
  /** Shows an error: in place of the progress, or after the answer if it was (partly) posted. */
  fail(text: string): Promise<void>;
  /** Stops writing (the turn was handed back): nothing more is posted; waits for a write in flight. */
  stop(): Promise<void>;
  readonly done: boolean;
}

/**
 * The reply of one turn as it is written: posted as soon as there is anything to show,
 * then edited at most once per `minIntervalMs`, coalescing whatever arrived meanwhile.
 * Progress writes that fail are logged and skipped; the final write is the caller's to handle.
 */
export function createLiveReply(sink: ReplySink, opts: LiveReplyOptions): LiveReply {
  const now = opts.now ?? (() => performance.now());
  let text = '';
  let status: string | undefined;
  let ref: MessageRef | undefined;
  let lastWriteAt = -Infinity;
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> | undefined;
  let dirty = false;
  let done = false;
  let answered = false;

  const progressMessage = (): OutgoingMessage => ({
    content: renderProgress(text, status),
    embeds: [],
    components: [],
    files: [],
  });

  function schedule(): void {
    if (done || timer || writing) return;
    const wait = Math.max(0, lastWriteAt + opts.minIntervalMs - now());
    timer = setTimeout(() => {
      timer = undefined;
      writing = writeProgress().finally(() => {
        writing = undefined;
        if (dirty) schedule();
      });
    }, wait);
  }

  async function writeProgress(): Promise<void> {
    if (done || !dirty) return;
    dirty = false;
    try {
      if (ref) await sink.edit(ref, progressMessage());
      else ref = await sink.open(progressMessage());
    } catch (err) {
      opts.log.warn({ err, code: (err as { code?: unknown }).code }, 'could not update the progress message');
    } finally {
      // Counted from when Discord answered, so two writes never reach it closer than the interval.
      lastWriteAt = now();
    }
  }

  /** Stops progress writes and waits for one in flight, then for the edit interval to pass. */
  async function settle(): Promise<void> {
    done = true;
    clearTimeout(timer);
    timer = undefined;
    await writing;
    const wait = lastWriteAt + opts.minIntervalMs - now();
    if (ref && wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }

  return {
    update(progress) {
      if (done) return;
      if (progress.text !== undefined) text = progress.text;
      if (progress.status !== undefined) status = progress.status;
      dirty = true;
      schedule();
    },
    async finish(messages) {
      await settle();
      const [first, ...rest] = messages;
      if (!first) return ref ? [ref] : [];
      if (ref) await sink.edit(ref, first);
      else ref = await sink.open(first);
      answered = true;
      const refs = [ref];
      for (const m of rest) refs.push(await sink.send(m));
      return refs;
    },
    async fail(message) {
      await settle();
      if (answered) await sink.notice(message);
      else await sink.fail(message, ref);
    },
    async stop() {
      done = true;
      clearTimeout(timer);
      timer = undefined;
      await writing;
    },
    get done() {
      return done;
    },
  };
}
