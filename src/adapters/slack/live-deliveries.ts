import type { types, webApi } from '@slack/bolt';
import type { Logger } from '../../telemetry/logger.js';
import { truncate } from '../../reply/text.js';
import { SLACK_LIMITS as L } from './limits.js';
import { contextBlock, markdownBlocks, type SlackBlock, type SlackMessage } from './render.js';
import { slackErrorCode } from './slack-errors.js';
import { escapeMrkdwn } from './text.js';
import { inertStreamAppend, inertStreamBlocks, inertStreamText } from './inert.js';
import { turnMetadata, type ThreadPoster, type ThreadTarget } from './thread-poster.js';

/** Slack refused an append because the message is full or Slack ended the stream: a continuation takes the text on. */
export const ROLL_OVER_CODES = new Set(['msg_too_long', 'message_not_in_streaming_state']);

/** A tool call as the live message shows it. */
export interface Task {
  title: string;
  state: 'running' | 'ok' | 'error';
  summary?: string;
}

/**
 * The streaming delivery: Slack's chat streaming (chat.startStream / appendStream / stopStream)
 * carrying the answer's markdown and the tool calls as task updates. `append` throws what Slack
 * threw (the writer decides between falling back and giving up); `stop` reports through the
 * ThreadPoster and returns whether it worked.
 */
export class StreamDelivery {
  private streamer: webApi.ChatStreamer | undefined;
  /** Whether the markdown streamed so far ends inside a code fence (as the renderer read it: its links are already inert). */
  private inFence = false;
  /** When the open stream was started (Date.now()). */
  private startedAt = 0;

  constructor(
    private readonly target: ThreadTarget,
    private readonly slack: ThreadPoster,
    /** Called with the stream's ts once Slack started it (the inbox records it for replays). */
    private readonly onStarted: (ts: string) => Promise<void>,
  ) {}

  /** Whether a stream is open (started, or opened and not yet stopped). */
  get open(): boolean {
    return this.streamer !== undefined;
  }

  /** One append; the first one starts the stream, which counts as a message posted in the thread. */
  async append(args: { markdown_text?: string; chunks?: types.AnyChunk[] }): Promise<void> {
    const starting = !this.streamer?.ts;
    if (!this.streamer) {
      this.inFence = false;
      this.startedAt = Date.now();
    }
    this.streamer ??= this.target.client.chatStream({
      channel: this.target.channel,
      thread_ts: this.target.threadTs,
      recipient_user_id: this.target.userId,
      ...(this.target.userTeamId ? { recipient_team_id: this.target.userTeamId } : {}),
      task_display_mode: 'timeline',
      // The writer paces the flushes; every append goes out.
      buffer_size: 1,
    });
    await this.streamer.append(this.inert(args, false));
    if (starting) {
      this.slack.posted += 1;
      if (this.streamer.ts) await this.onStarted(this.streamer.ts);
    }
  }

  /** Ends the stream with its last markdown and the reply's blocks, tagged with the turn; false when Slack refused. */
  async stop(args: { markdown_text?: string; blocks?: SlackBlock[] } = {}): Promise<boolean> {
    const streamer = this.streamer;
    this.streamer = undefined;
    if (!streamer) return false;
    const tag = this.target.turnId ? { metadata: turnMetadata(this.target.turnId) } : {};
    const { blocks, ...rest } = this.inert(args, true);
    const final = {
      ...rest,
      ...(blocks ? { blocks: inertStreamBlocks(blocks, this.target.audience) } : {}),
      ...tag,
    };
    return Boolean(
      await this.slack.call('chat.stopStream', () => streamer.stop(Object.keys(final).length ? final : undefined)),
    );
  }

  /** How long the open stream has run (0 when none is open). */
  age(now = Date.now()): number {
    return this.streamer ? now - this.startedAt : 0;
  }

  /**
   * Ends the stream so that a continuation message can take over (a rollover): its last
   * `markdown` (made inert as any last append) and the turn's tag, straight to chat.stopStream, so
   * that text of an append Slack refused (still in the SDK streamer's buffer) is not sent again.
   * Returns Slack's error code when it refused (not reported: the writer carries the text on).
   */
  async end(markdown: string): Promise<string | undefined> {
    const ts = this.streamer?.ts;
    const text = markdown ? this.inert({ markdown_text: markdown }, true).markdown_text : undefined;
    this.streamer = undefined;
    if (!ts) return undefined;
    try {
      await this.target.client.chat.stopStream({
        channel: this.target.channel,
        ts,
        ...(text ? { markdown_text: text } : {}),
        ...(this.target.turnId ? { metadata: turnMetadata(this.target.turnId) } : {}),
      });
      return undefined;
    } catch (err) {
      return slackErrorCode(err);
    }
  }

  /**
   * What a stream carries, made inert: it takes no unfurl flags, so links off the list are shown
   * as code. `last`: the markdown ends the stream, so nothing can complete what it ends inside.
   */
  private inert<A extends { markdown_text?: string; chunks?: types.AnyChunk[] }>(args: A, last: boolean): A {
    const text = (s: string) => inertStreamText(s, this.target.audience);
    const markdown = (s: string) => {
      const out = inertStreamAppend(s, this.target.audience, this.inFence, last);
      this.inFence = out.inFence;
      return out.text;
    };
    return {
      ...args,
      ...(args.markdown_text !== undefined ? { markdown_text: markdown(args.markdown_text) } : {}),
      ...(args.chunks
        ? {
            chunks: args.chunks.map((c) =>
              c.type === 'task_update'
                ? { ...c, title: text(c.title), ...(c.output !== undefined ? { output: text(c.output) } : {}) }
                : c.type === 'markdown_text'
                  ? { ...c, text: text(c.text) }
                  : c,
            ),
          }
        : {}),
    };
  }

  /** Gives the stream up quietly (best effort); returns the ts of the message it streamed, if any. */
  async abandon(): Promise<string | undefined> {
    const streamer = this.streamer;
    this.streamer = undefined;
    const ts = streamer?.ts;
    if (streamer && ts) {
      await streamer
        .stop()
        .catch((err: unknown) =>
          this.slack.log.warn(
            { code: slackErrorCode(err), method: 'chat.stopStream', ts },
            'slack could not stop an abandoned stream; it stays open in the thread until Slack ends it',
          ),
        );
    }
    return ts;
  }
}

/** A task as a streaming task_update chunk. */
/** The newest task still running: a status event while it runs is its progress. */
export function newestRunning(tasks: ReadonlyMap<string, Task>): [string, Task] | undefined {
  let found: [string, Task] | undefined;
  for (const entry of tasks) if (entry[1].state === 'running') found = entry;
  return found;
}

export function taskChunk(id: string, task: Task): types.TaskUpdateChunk {
  return {
    type: 'task_update',
    id,
    title: truncate(task.title, 256),
    status: task.state === 'running' ? 'in_progress' : task.state === 'ok' ? 'complete' : 'error',
    ...(task.summary ? { output: truncate(task.summary, 256) } : {}),
  };
}

/**
 * The update delivery, where streaming is unavailable: one message posted, then updated with the
 * whole live text and task list, at most once per `intervalMs`.
 */
export class UpdateDelivery {
  private lastUpdate = 0;

  constructor(
    private readonly slack: ThreadPoster,
    private readonly intervalMs: number,
    /** A streamed message to keep editing (the stream broke after it started). */
    private ts?: string,
  ) {}

  get posted(): boolean {
    return this.ts !== undefined;
  }

  /** How long the next update has to wait. */
  wait(now = Date.now()): number {
    return Math.max(0, this.lastUpdate + this.intervalMs - now);
  }

  async show(message: SlackMessage): Promise<void> {
    this.lastUpdate = Date.now();
    try {
      if (this.ts) await this.slack.update(this.ts, message);
      else this.ts = (await this.slack.post(message))?.ts;
    } finally {
      // The interval runs from when Slack took the call: a slow one is not followed by a quick one.
      this.lastUpdate = Date.now();
    }
  }

  /** The live message is done with `message` as its final content; the next `show` posts a new one. */
  async seal(message: SlackMessage): Promise<void> {
    await this.replace(message);
    this.ts = undefined;
  }

  /** The final content: the live message edited, or posted anew when it cannot be. */
  async replace(message: SlackMessage): Promise<void> {
    if (this.ts && (await this.slack.update(this.ts, message))) return;
    await this.slack.postAll([message]);
  }
}

/** The live message of the update delivery: the text so far, the task list, and `extra` blocks. */
export function liveMessage(text: string, tasks: Iterable<Task>, extra: SlackBlock[] = []): SlackMessage {
  const blocks: SlackBlock[] = text.trim() ? markdownBlocks(text) : [];
  const lines = [...tasks].map(
    (t) => `${t.state === 'running' ? '⏳' : t.state === 'ok' ? '✅' : '⚠️'} ${escapeMrkdwn(t.title)}`,
  );
  if (lines.length) blocks.push(contextBlock([truncate(lines.join('\n'), L.contextText)]));
  if (!blocks.length && !extra.length) blocks.push(contextBlock(['_Working on it…_']));
  return { text: truncate(text.trim() || 'Working on it…', L.fallbackText), blocks: [...blocks, ...extra] };
}

/**
 * The replay delivery: an earlier run of this turn died after posting; its messages are edited
 * into the final answer (a stream it left open is stopped first), extra ones removed, and only
 * what goes beyond them posted.
 */
export async function replaceEarlier(
  target: ThreadTarget,
  slack: ThreadPoster,
  log: Logger,
  earlier: readonly { ts: string; stream: boolean }[],
  messages: SlackMessage[],
): Promise<void> {
  for (const m of earlier.filter((e) => e.stream)) {
    await target.client
      .apiCall('chat.stopStream', { channel: target.channel, ts: m.ts })
      .catch((err: unknown) =>
        log.warn(
          { code: slackErrorCode(err), method: 'chat.stopStream', ts: m.ts },
          'slack replay could not stop the stream an earlier run left open',
        ),
      );
  }
  const shown = messages.filter((m) => m.blocks.length);
  for (const [i, message] of shown.entries()) {
    const before = earlier[i];
    if (!(before && (await slack.update(before.ts, message)))) await slack.postAll([message]);
  }
  for (const extra of earlier.slice(shown.length)) await slack.remove(extra.ts);
  log.info(
    { edited: Math.min(shown.length, earlier.length), posted: slack.posted },
    'slack replay edited the earlier run’s messages',
  );
}
