import type { TurnEvent } from '../../contract/turn.js';
import type { Logger } from '../../telemetry/logger.js';
import type { Reply } from '../../reply/model.js';
import { AssistantStatus } from './assistant-status.js';
import { SLACK_LIMITS as L } from './limits.js';
import {
  liveMessage,
  replaceEarlier,
  ROLL_OVER_CODES,
  StreamDelivery,
  newestRunning,
  taskChunk,
  UpdateDelivery,
  type Task,
} from './live-deliveries.js';
import { streamableLength } from './inert.js';
import { MarkdownBudget } from './markdown-budget.js';
import { earlierMessages, findMarker, formatMarker, parseMarkers, type ReplayMarker } from './replay-marker.js';
import { noticeMessage, renderReply, type SlackMessage } from './render.js';
import { slackErrorCode } from './slack-errors.js';
import { isUnwritable, ThreadPoster, type ThreadTarget } from './thread-poster.js';
import { approvalOutcomeLine } from '../../reply/approval-outcome.js';
import type { DeliveryResult, WriterOptions } from './writer-options.js';

export type { ThreadTarget } from './thread-poster.js';
export type { DeliveryResult, WriterOptions } from './writer-options.js';

/** Streamed text goes out when this much is waiting (the SDK's own default), or after `streamFlushMs`. */
const STREAM_CHUNK_CHARS = 256;
const FIRST_FLUSH_MS = 300;

/**
 * Renders a turn's events into a Slack thread: the event switch and the pacing. The answer goes
 * out through Slack's chat streaming (StreamDelivery: text plus tool calls as task updates), else
 * one message updated at most once a second (UpdateDelivery), then the final Block Kit reply,
 * continuation messages and files; a replay edits what an earlier run posted (replaceEarlier).
 * The live text is kept within the message's markdown budget (MarkdownBudget). A quick answer
 * with nothing shown yet goes out as one finished message. Every Slack call goes through one
 * queue, in order.
 */
export class TurnWriter {
  private mode: DeliveryResult['mode'] | 'idle' = 'idle';
  private readonly text = new MarkdownBudget(L.markdownPerMessage);
  private readonly stream: StreamDelivery;
  private updates: UpdateDelivery | undefined;
  /** Text of the current model step (reply.text is the last step's text). */
  private segment = '';
  /** The last thing streamed was an artifact's code (generate_artifact's writer). */
  private afterCode = false;
  private breakBeforeText = false;
  private readonly tasks = new Map<string, Task>();
  private timer: NodeJS.Timeout | undefined;
  private queue: Promise<void> = Promise.resolve();
  private readonly status: AssistantStatus;
  private readonly slack: ThreadPoster;
  private readonly flushMs: number;
  private readonly updateMs: number;
  private readonly maxAgeMs: number;
  private readonly log: Logger;
  private recorded: ReplayMarker[];
  private readonly record: (id: string) => Promise<void>;
  /** Messages an earlier run of this turn left in the thread; non-empty: this run is a replay. */
  private earlier: { ts: string; stream: boolean }[];
  private intentRecorded = false;

  constructor(
    private readonly target: ThreadTarget,
    opts: WriterOptions,
  ) {
    // About one append a second per stream: smooth to read, well inside Slack's rate limits.
    this.flushMs = opts.streamFlushMs ?? 1_000;
    this.updateMs = opts.updateIntervalMs ?? 1_000;
    this.maxAgeMs = opts.streamMaxAgeMs ?? 240_000;
    this.log = opts.log.child({ channel: target.channel, thread: target.threadTs });
    this.recorded = parseMarkers(opts.recorded ?? []);
    this.record = opts.record ?? (async () => undefined);
    this.earlier = earlierMessages(this.recorded);
    this.status = new AssistantStatus(target, this.log);
    this.slack = new ThreadPoster(target, this.log, (ts) => this.remember({ kind: 'post', ts }));
    this.stream = new StreamDelivery(target, this.slack, (ts) => this.remember({ kind: 'stream', ts }));
  }

  /** What the entry's runs recorded once this one holds its thread (one still alive may have posted): to edit. */
  adopt(recorded: readonly string[]): void {
    if (this.mode !== 'idle' || this.slack.posted > 0) return;
    const markers = parseMarkers(recorded);
    if (earlierMessages(markers).length <= this.earlier.length) return;
    this.recorded = markers;
    this.earlier = earlierMessages(markers);
  }

  /** A failed record only weakens a later replay (it may post again); the answer goes on. */
  private async remember(marker: ReplayMarker): Promise<void> {
    const id = formatMarker(marker);
    await this.record(id).catch((err: unknown) =>
      this.log.warn({ err, id }, 'could not record a posted Slack message in the inbox'),
    );
  }

  /** Consumes the whole turn; never throws (failures are logged and, where useful, told to the user). */
  async deliver(events: AsyncIterable<TurnEvent>): Promise<DeliveryResult> {
    try {
      for await (const event of events) await this.handle(event);
    } catch (err) {
      this.log.error({ err }, 'slack turn delivery failed');
      this.slack.failed = true;
    } finally {
      this.clearTimer();
      await this.enqueue(() => this.closeStream());
    }
    return { mode: this.mode === 'idle' ? 'post' : this.mode, posted: this.slack.posted, failed: this.slack.failed };
  }

  private async handle(event: TurnEvent): Promise<void> {
    if (this.earlier.length) return this.handleReplay(event);
    switch (event.type) {
      case 'status':
      case 'reasoning_status':
        // Reasoning shows as the assistant status ("Reasoning…") until the answer starts; never its text.
        if (this.mode === 'idle') await this.enqueue(() => this.status.set(event.text));
        // Later, a running tool's progress (an MCP server's) is its task's output, at most once a second.
        else if (event.type === 'status') return this.showProgress(event.text);
        return;
      case 'text_delta':
        return this.addText(event.text);
      case 'tool_event':
        // An artifact's code as the writer model produces it (generate_artifact), shown live.
        if (event.name === 'artifact_delta' && typeof event.data.delta === 'string')
          return this.addText(event.data.delta, true);
        return;
      case 'tool_call_start':
        this.tasks.set(event.callId, { title: event.title, state: 'running' });
        this.segment = '';
        this.breakBeforeText = !this.text.empty;
        return this.enqueue(() => this.showTask(event.callId));
      case 'tool_result': {
        const task = this.tasks.get(event.callId) ?? { title: event.tool, state: 'running' as const };
        this.tasks.set(event.callId, { ...task, state: event.ok ? 'ok' : 'error', summary: event.summary });
        return this.enqueue(() => this.showTask(event.callId));
      }
      case 'reply':
        this.clearTimer();
        return this.enqueue(() => this.finish(event.reply));
      case 'approval_decided': {
        // The approval message says who decided and when; its buttons go (issue 43).
        const replace = this.target.replaceClicked;
        if (!replace) return;
        const by = event.outcome === 'expired' ? undefined : `<@${event.by}>`;
        const text = approvalOutcomeLine(event.outcome, event.at, by);
        return this.enqueue(async () => void (await replace({ text, blocks: [] })));
      }
      case 'error':
        this.clearTimer();
        // A flood's later refusals are not posted: the user already has the first notice.
        if (event.notify === false && this.mode === 'idle') return;
        // Said to the clicker alone (a stranger's approval click), when nothing is in the thread yet.
        if (event.private && this.mode === 'idle' && this.target.respond) {
          const respond = this.target.respond;
          return this.enqueue(async () => void (await respond(event.message)));
        }
        return this.enqueue(() => this.finishWithError(event.message));
      default:
        return;
    }
  }

  // ── text ────────────────────────────────────────────────────────────────────────────────

  /**
   * Text into the live message. `segment` is the answer of the current step (compared with the
   * reply at the end); an artifact's code streamed by its tool (`code`) is shown but is not the
   * answer, and the answer after it starts on a new paragraph.
   */
  private async addText(delta: string, code = false): Promise<void> {
    if (!code) this.segment += delta;
    let text = delta;
    // The answer after streamed code starts a paragraph of its own.
    if (!code && this.afterCode && text.trim()) this.breakBeforeText = true;
    this.afterCode = code || (this.afterCode && !text.trim());
    if (this.breakBeforeText && text.trim()) {
      text = `\n\n${text.replace(/^\s+/, '')}`;
      this.breakBeforeText = false;
    }
    this.text.append(text);
    if (this.mode === 'idle' || this.mode === 'stream') {
      if (this.text.pending.length >= STREAM_CHUNK_CHARS) await this.enqueue(() => this.flushStream());
      // The first words show soon; after that, about one append a second.
      else
        this.schedule(
          () => this.flushStream(),
          this.mode === 'idle' ? Math.min(this.flushMs, FIRST_FLUSH_MS) : this.flushMs,
        );
    } else if (this.mode === 'fallback') {
      this.scheduleUpdate();
    }
  }

  private async flushStream(): Promise<void> {
    if (this.mode !== 'idle' && this.mode !== 'stream') return;
    await this.rollOverIfDue();
    if (!this.streamable) return;
    await this.streamAppend({ markdown_text: this.streamable });
  }

  /** Pending text that may be streamed now: a mention or link still being written waits for its end. */
  private get streamable(): string {
    return this.text.pending.slice(0, streamableLength(this.text.pending));
  }

  // ── streaming ───────────────────────────────────────────────────────────────────────────

  /**
   * One append carrying `args`, whose markdown is the head of the pending text. A full or ended stream rolls
   * over once; other failures fall back to post + update, unless the thread is unwritable.
   */
  private async streamAppend(args: Parameters<StreamDelivery['append']>[0], again = false): Promise<void> {
    const starting = this.mode !== 'stream';
    try {
      if (starting && !this.intentRecorded) {
        this.intentRecorded = true;
        await this.remember({ kind: 'stream-intent', at: Date.now() / 1000 });
      }
      await this.stream.append(args);
      this.mode = 'stream';
      this.text.flushed(args.markdown_text ?? '');
    } catch (err) {
      const method = starting ? 'chat.startStream' : 'chat.appendStream';
      const code = slackErrorCode(err);
      // Posting would fail the same way: say so once and stop writing to this thread.
      if (isUnwritable(code)) return this.slack.failedWith(method, code);
      // Nothing of a refused append was shown: it starts the continuation message (once).
      if (!starting && !again && ROLL_OVER_CODES.has(code)) {
        await this.rollOver(code, '');
        return this.streamAppend(args, true);
      }
      this.log.warn({ code, method }, 'slack streaming unavailable; falling back to post and update');
      await this.enterFallback();
    }
  }

  /** The live stream is full or near Slack's time limit: it ends and the answer continues in a new message. */
  private async rollOverIfDue(): Promise<void> {
    const due = this.text.overflow ? 'size' : this.stream.age() >= this.maxAgeMs ? 'age' : undefined;
    if (due && this.mode === 'stream' && this.stream.open) await this.rollOver(due, this.streamable);
  }

  /** Ends the stream with `last` (the head of pending); what it did not show goes into the next message. */
  private async rollOver(reason: string, last: string): Promise<void> {
    const code = await this.stream.end(last);
    if (!code) this.text.flushed(last);
    this.text.nextMessage();
    this.log.info({ reason, ...(code ? { code } : {}) }, 'slack answer continues in a new message');
  }

  private async closeStream(): Promise<void> {
    if (this.mode !== 'stream' || !this.stream.open) return;
    await this.stream.stop(this.text.pending ? { markdown_text: this.text.pending } : undefined);
    this.text.flushAll();
  }

  private progressAt = 0;
  private showProgress(text: string): Promise<void> | undefined {
    const running = newestRunning(this.tasks);
    if (!running || Date.now() - this.progressAt < 1_000) return;
    this.progressAt = Date.now();
    this.tasks.set(running[0], { ...running[1], summary: text });
    return this.enqueue(() => this.showTask(running[0]));
  }

  private async showTask(callId: string): Promise<void> {
    const task = this.tasks.get(callId);
    if (!task) return;
    if (this.mode === 'fallback') return this.scheduleUpdate();
    await this.rollOverIfDue();
    const text = this.streamable;
    await this.streamAppend({ ...(text ? { markdown_text: text } : {}), chunks: [taskChunk(callId, task)] });
  }

  // ── fallback: one message, updated at most once a second ───────────────────────────────

  private async enterFallback(): Promise<void> {
    this.clearTimer();
    // Close what was streamed so far (best effort) and keep editing that same message.
    this.updates = new UpdateDelivery(this.slack, this.updateMs, await this.stream.abandon());
    this.text.unflush();
    this.mode = 'fallback';
    await this.updateLive();
  }

  private scheduleUpdate(): void {
    this.schedule(() => this.updateLive(), this.updates?.wait() ?? 0);
  }

  private async updateLive(): Promise<void> {
    if ((this.updates?.wait() ?? 0) > 0) return this.scheduleUpdate(); // timed while the last update was on its way
    // The live message is full: it keeps its text and a new message continues the answer.
    if (this.text.overflow && this.updates?.posted) {
      await this.updates.seal(liveMessage(this.text.live, []));
      this.text.flushAll();
      this.text.nextMessage();
    }
    await this.updates?.show(liveMessage(this.text.live, this.tasks.values()));
  }

  // ── the end of the turn ─────────────────────────────────────────────────────────────────

  private async finish(reply: Reply): Promise<void> {
    // What the model streamed for its last step, then whatever the final text adds (a length
    // note, a terminal tool's text): the thread shows the same answer the reply carries.
    const streamed = this.segment.trim();
    const rest = reply.text.startsWith(streamed)
      ? reply.text.slice(streamed.length)
      : `${this.text.empty ? '' : '\n\n'}${reply.text}`;

    if (this.mode === 'idle') {
      // Nothing visible yet: a quick answer goes out as one finished message (no stream needed).
      this.text.pending = '';
      await this.slack.postAll(renderReply(reply).messages);
    } else if (this.mode === 'stream') {
      this.text.append(rest);
      // All the text goes out in appends (a full, old or ended stream rolls over); the stop carries the blocks.
      do {
        await this.rollOverIfDue();
        if (this.text.pending) await this.streamAppend({ markdown_text: this.text.pending });
      } while (this.text.overflow && this.mode === 'stream');
      const rendered = renderReply(
        { text: this.text.overflow, blocks: reply.blocks },
        { firstMessageMarkdownUsed: this.text.used },
      );
      const [first, ...more] = rendered.messages;
      const stopped =
        this.stream.open &&
        (await this.stream.stop({
          ...(this.text.pending ? { markdown_text: this.text.pending } : {}),
          ...(first?.blocks.length ? { blocks: first.blocks } : {}),
        }));
      if (!stopped && first?.blocks.length) more.unshift(first);
      this.text.flushAll();
      await this.slack.postAll(more);
    } else if (this.mode === 'fallback') {
      const full = `${this.text.live}${this.text.overflow}${rest}`;
      const [first, ...more] = renderReply({ text: full, blocks: reply.blocks }).messages;
      if (first) await this.updates!.replace(first);
      await this.slack.postAll(more);
    }
    await this.uploadFiles(reply);
  }

  private async uploadFiles(reply: Reply): Promise<void> {
    const files = reply.blocks.flatMap((b) => (b.type === 'file' ? [b.file] : []));
    if (!files.length || findMarker(this.recorded, 'files')) return;
    await this.slack.uploadFiles(files);
    await this.remember({ kind: 'files' });
  }

  // ── a replay: an earlier run died after posting; its messages get the final answer ──────

  private async handleReplay(event: TurnEvent): Promise<void> {
    const replay = async (messages: SlackMessage[], reply?: Reply) => {
      this.mode = 'post';
      await replaceEarlier(this.target, this.slack, this.log, this.earlier, messages);
      if (reply) await this.uploadFiles(reply);
    };
    if (event.type === 'reply') return this.enqueue(() => replay(renderReply(event.reply).messages, event.reply));
    if (event.type === 'error' && event.notify !== false)
      return this.enqueue(() => replay([noticeMessage(event.message)]));
  }

  private async finishWithError(message: string): Promise<void> {
    const notice = noticeMessage(message);
    if (this.mode === 'stream' && this.stream.open) {
      const text = `${this.text.pending}${this.text.empty ? '' : '\n\n'}⚠️ ${message}`;
      if (await this.stream.stop({ markdown_text: text })) return;
    } else if (this.mode === 'fallback' && this.updates?.posted) {
      return this.updates.replace(liveMessage(this.text.live, this.tasks.values(), notice.blocks));
    }
    await this.slack.postAll([notice]);
  }

  // ── plumbing ────────────────────────────────────────────────────────────────────────────

  private enqueue(fn: () => Promise<void>): Promise<void> {
    const run = this.queue.then(fn);
    this.queue = run.catch((err: unknown) => this.log.error({ err }, 'slack writer step failed'));
    return this.queue;
  }

  private schedule(fn: () => Promise<void>, ms: number): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.enqueue(fn);
    }, ms);
  }

  private clearTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
