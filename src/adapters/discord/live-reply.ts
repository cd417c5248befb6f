import type { Logger } from '../../telemetry/logger.js';
import { cutAt, truncate } from '../../reply/text.js';
import { inertDiscordText } from './inert.js';
import { LIMITS, MAX_MESSAGES_PER_REPLY } from './limits.js';
import { renderProgress, type OutgoingMessage } from './render.js';
import type { MessageRef, ReplySink } from './sinks.js';

/**
 * The most text one live message shows before its start is sealed in it and the answer goes on
 * in a new message: under Discord's 2,000 characters, with room for what inert text adds.
 */
export const LIVE_PIECE = 1_600;
/** The first line of a message that continues the one before it. */
export const CONTINUED = '-# ↳ continued';

export interface LiveReplyOptions {
  /** The least time between two writes to the live message (Discord: 5 edits / 5 s a channel). */
  minIntervalMs: number;
  log: Logger;
  now?: () => number;
}

/** The final messages, and whether they continue the sealed ones. */
export interface Final {
  messages: OutgoingMessage[];
  continuing: boolean;
}

export interface LiveReply {
  /**
   * Updates the progress shown: the answer's text so far and/or the status line. The text grows
   * by appending, or starts again from a shorter one ('' at a new step).
   */
  update(progress: { text?: string; status?: string }): void;
  /**
   * Replaces the progress with the final messages; returns where each went. A function is given,
   * once the last progress write is done, the head of the text that earlier messages hold for good
   * (`sealed`; undefined when none do, or they hold text the answer moved away from, an earlier
   * step's). It answers `continuing` when its messages are the answer after that head, which stays
   * where it is; else the messages replace every message this reply wrote, in order (paced), and
   * the ones left over are removed.
   */
  finish(messages: OutgoingMessage[] | ((sealed: string | undefined) => Final)): Promise<MessageRef[]>;
  /** Shows an error: in place of the progress, or after the answer if it was (partly) posted. */
  fail(text: string): Promise<void>;
  /** Stops writing (the turn was handed back): nothing more is posted; waits for a write in flight. */
  stop(): Promise<void>;
  readonly done: boolean;
}

const plain = (content: string): OutgoingMessage => ({ content, embeds: [], components: [], files: [] });

/**
 * The reply of one turn as it is written: posted as soon as there is anything to show, then
 * edited at most once per `minIntervalMs`, coalescing whatever arrived meanwhile. Text longer
 * than one message is sealed a piece at a time (LIVE_PIECE) in the message showing it, and the
 * progress goes on in a new message at the next write: one write per interval either way.
 * Progress writes that fail are logged and skipped; the final write is the caller's to handle.
 */
export function createLiveReply(sink: ReplySink, opts: LiveReplyOptions): LiveReply {
  const now = opts.now ?? (() => performance.now());
  let text = '';
  let status: string | undefined;
  let ref: MessageRef | undefined;
  /** Earlier messages of this reply, finished; `sealedText` is the head of `text` they hold. */
  const sealed: MessageRef[] = [];
  let sealedText = '';
  let stale = false;
  let lastWriteAt = -Infinity;
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> | undefined;
  let dirty = false;
  let done = false;
  let answered = false;

  const lead = () => (sealed.length ? CONTINUED : '');
  const progressMessage = (): OutgoingMessage => plain(renderProgress(text.slice(sealedText.length), status, lead()));

  /** The head of the unsealed text to seal now, cut after a space or line end where there is one. */
  function pieceToSeal(): string | undefined {
    const rest = text.slice(sealedText.length);
    if (rest.length <= LIVE_PIECE || sealed.length >= MAX_MESSAGES_PER_REPLY - 1) return undefined;
    const window = rest.slice(0, LIVE_PIECE);
    const at = Math.max(window.lastIndexOf('\n'), window.lastIndexOf(' '));
    return at > LIVE_PIECE / 2 ? rest.slice(0, at + 1) : cutAt(rest, LIVE_PIECE);
  }

  async function write(message: OutgoingMessage): Promise<void> {
    if (ref) await sink.edit(ref, message);
    else ref = sealed.length ? await sink.send(message) : await sink.open(message);
  }

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
      const piece = pieceToSeal();
      if (piece === undefined) return await write(progressMessage());
      // The live message keeps this piece for good; the rest goes on in a new message at the next write.
      const body = truncate(inertDiscordText(piece.trim()), LIMITS.content - CONTINUED.length - 1);
      await write(plain([lead(), body].filter(Boolean).join('\n')));
      sealed.push(ref!);
      ref = undefined;
      sealedText += piece;
      dirty = true;
    } catch (err) {
      opts.log.warn({ err, code: (err as { code?: unknown }).code }, 'could not update the progress message');
    } finally {
      // Counted from when Discord answered, so two writes never reach it closer than the interval.
      lastWriteAt = now();
    }
  }

  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /** Stops progress writes and waits for one in flight, then for the edit interval to pass. */
  async function settle(): Promise<void> {
    done = true;
    clearTimeout(timer);
    timer = undefined;
    await writing;
    const wait = lastWriteAt + opts.minIntervalMs - now();
    if ((ref || sealed.length) && wait > 0) await pause(wait);
  }

  /** The final messages over every message of this reply, in order, one edit per interval; leftovers removed. */
  async function replaceAll(messages: OutgoingMessage[]): Promise<MessageRef[]> {
    const targets = [...sealed, ...(ref ? [ref] : [])];
    const refs: MessageRef[] = [];
    for (const [i, m] of messages.entries()) {
      const target = targets[i];
      if (target && i > 0) await pause(opts.minIntervalMs);
      if (target) await sink.edit(target, m);
      refs.push(target ?? (i === 0 ? (ref = await sink.open(m)) : await sink.send(m)));
      answered = true;
    }
    for (const extra of targets.slice(messages.length)) {
      await sink
        .remove?.(extra)
        .catch((err: unknown) => opts.log.warn({ err, ref: extra.id }, 'could not remove a live message left over'));
    }
    return refs;
  }

  return {
    update(progress) {
      if (done) return;
      if (progress.text !== undefined) {
        // The text grows by appending or starts again (a new step), and only a restart is shorter:
        // its content is not read here, where a comparison per delta would copy the whole answer
        // every time (a 100,000-character answer held the loop ~70 ms).
        const restarted = progress.text.length < text.length;
        text = progress.text;
        // What is sealed is no longer the head of a text that started again.
        if (restarted && !text.startsWith(sealedText)) [stale, sealedText] = [stale || sealed.length > 0, ''];
      }
      if (progress.status !== undefined) status = progress.status;
      dirty = true;
      schedule();
    },
    async finish(render) {
      await settle();
      const { messages, continuing } = Array.isArray(render)
        ? { messages: render, continuing: false }
        : render(sealed.length && !stale ? sealedText : undefined);
      const [first, ...rest] = messages;
      if (!first) return [...sealed, ...(ref ? [ref] : [])];
      if (!continuing || !sealed.length || stale) return replaceAll(messages);
      // The sealed messages stay as they are: no edit spent on them.
      await write({ ...first, content: [CONTINUED, first.content].filter(Boolean).join('\n') });
      answered = true;
      const refs = [...sealed, ref!];
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
