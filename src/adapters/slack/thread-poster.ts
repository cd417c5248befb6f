import type { webApi } from '@slack/bolt';
import type { Logger } from '../../telemetry/logger.js';
import type { FileAttachment } from '../../reply/model.js';
import { SLACK_LIMITS as L } from './limits.js';
import { inertMessage, inertStreamText, inertText, type SlackAudience } from './inert.js';
import { noticeMessage, type SlackMessage } from './render.js';
import { AUTH_ERROR_CODES, explainSlackError, slackErrorCode } from './slack-errors.js';
import { truncate } from '../../reply/text.js';

/** Where one turn's answer goes. */
export interface ThreadTarget {
  client: webApi.WebClient;
  channel: string;
  threadTs: string;
  /** The asker: streams outside DMs need the recipient's user and team. */
  userId: string;
  userTeamId?: string;
  /** Show progress with `assistant.threads.setStatus` until the answer starts. */
  status: boolean;
  /** Tells the asker privately when the thread cannot be written to (slash commands, buttons). */
  respond?: (text: string) => Promise<unknown>;
  /** Replaces the clicked message (a button's response_url): an approval message once decided (issue 43). */
  replaceClicked?: (body: object) => Promise<unknown>;
  /**
   * The inbox entry this turn answers: every message it posts carries it as Slack message
   * metadata, so a replay finds what a run that died before recording it posted.
   */
  turnId?: string;
  /** Who our text may ping and which links may unfurl: every message passes through `inertMessage`. */
  audience: SlackAudience;
}

/** The metadata event type of Switchboard's answers (`event_payload.turn`: the inbox entry id). */
export const TURN_METADATA_TYPE = 'switchboard_turn';

export const turnMetadata = (turnId: string) => ({ event_type: TURN_METADATA_TYPE, event_payload: { turn: turnId } });

/**
 * Messages an earlier run of this turn posted in the thread (by their metadata), for a replay
 * whose dead run posted but did not live to record the ts. Empty when Slack returns no
 * metadata or the lookup fails (logged at warn): the replay then posts as before.
 */
export async function postsOfEarlierRun(
  target: Pick<ThreadTarget, 'client' | 'channel' | 'threadTs'>,
  turnId: string,
  log: Logger,
  /** The dead run was starting a stream at this time (unix seconds): our untagged messages from then on are its stream. */
  streamSince?: number,
): Promise<{ ts: string; stream: boolean }[]> {
  try {
    const res = await target.client.conversations.replies({
      channel: target.channel,
      ts: target.threadTs,
      include_all_metadata: true,
      limit: 200,
    });
    return (res.messages ?? []).flatMap((m): { ts: string; stream: boolean }[] => {
      if (!m.bot_id || !m.ts) return [];
      if (m.metadata?.event_type === TURN_METADATA_TYPE)
        return (m.metadata.event_payload as { turn?: unknown } | undefined)?.turn === turnId
          ? [{ ts: m.ts, stream: false }]
          : [];
      // Untagged: a stream not yet stopped. Clocks differ a little; a second of slack.
      return streamSince !== undefined && !m.metadata && Number(m.ts) >= streamSince - 1
        ? [{ ts: m.ts, stream: true }]
        : [];
    });
  } catch (err) {
    // The replay then posts again: say so, or a duplicate answer in the thread has no trace.
    log.warn(
      { code: slackErrorCode(err), method: 'conversations.replies', turn: turnId },
      "slack replay could not look for an earlier run's messages; it may post its answer again",
    );
    return [];
  }
}

/** After these, nothing more can be written to the thread this turn. */
const UNWRITABLE = new Set(['not_in_channel', 'channel_not_found', 'is_archived', ...AUTH_ERROR_CODES]);

export const isUnwritable = (code: string) => UNWRITABLE.has(code);

/**
 * Slack calls for one thread, made safe: each failure is logged with Slack's error code, told
 * once to the asker when they can act on it, and ends further writing when the thread is
 * unwritable. Calls return undefined on failure instead of throwing.
 */
export class ThreadPoster {
  /** Messages created in the thread. */
  posted = 0;
  failed = false;
  private unwritable = false;
  private explained = false;

  constructor(
    readonly target: ThreadTarget,
    readonly log: Logger,
    /** Called with each message's ts as soon as Slack created it (the inbox records it for replays). */
    private readonly onPosted: (ts: string) => Promise<void> = async () => undefined,
  ) {}

  get client(): webApi.WebClient {
    return this.target.client;
  }

  async call<T>(method: string, fn: () => Promise<T>): Promise<T | undefined> {
    if (this.unwritable) return undefined;
    try {
      return await fn();
    } catch (err) {
      await this.failedWith(method, slackErrorCode(err));
      return undefined;
    }
  }

  /** Records a failed call: logs its code, tells the asker when they can act. */
  async failedWith(method: string, code: string): Promise<void> {
    this.failed = true;
    this.unwritable ||= UNWRITABLE.has(code);
    this.log.warn({ code, method }, `slack ${method} failed: ${code}`);
    await this.explain(code);
  }

  /** Posts in the thread; undefined when it failed. */
  async post(message: SlackMessage): Promise<{ ts?: string } | undefined> {
    const metadata = this.target.turnId ? { metadata: turnMetadata(this.target.turnId) } : {};
    const res = await this.call('chat.postMessage', () =>
      this.client.chat.postMessage({
        channel: this.target.channel,
        thread_ts: this.target.threadTs,
        ...inertMessage(message, this.target.audience),
        ...metadata,
      }),
    );
    if (res) this.posted += 1;
    if (res?.ts) await this.onPosted(res.ts);
    return res;
  }

  async postAll(messages: SlackMessage[]): Promise<void> {
    for (const message of messages) {
      if (message.blocks.length && !(await this.post(message))) return;
    }
  }

  /** Removes a message of ours (a replay's leftover); false when it failed. */
  async remove(ts: string): Promise<boolean> {
    return Boolean(await this.call('chat.delete', () => this.client.chat.delete({ channel: this.target.channel, ts })));
  }

  /**
   * Edits a message of ours. The unfurl flags go along although chat.update does not document
   * them (Slack ignores arguments it does not know): an edit that adds a link then still asks
   * for no preview wherever Slack reads them.
   */
  async update(ts: string, message: SlackMessage): Promise<boolean> {
    return Boolean(
      await this.call('chat.update', () =>
        this.client.chat.update({ channel: this.target.channel, ts, ...inertMessage(message, this.target.audience) }),
      ),
    );
  }

  /** Files into the thread with Slack's upload flow (getUploadURLExternal → upload → completeUploadExternal). */
  async uploadFiles(files: FileAttachment[]): Promise<void> {
    if (!files.length) return;
    const preview = files.length === 1 ? files[0]?.preview : undefined;
    const ok = await this.call('files.uploadV2', () =>
      this.client.filesUploadV2({
        channel_id: this.target.channel,
        thread_ts: this.target.threadTs,
        // The upload takes no unfurl flags: the comment's links are shown as a stream's are.
        ...(preview
          ? { initial_comment: inertStreamText(truncate(preview, L.sectionText), this.target.audience) }
          : {}),
        file_uploads: files.map((f) => ({
          file: Buffer.from(f.data),
          filename: f.name,
          title: inertText(f.title ?? f.name, this.target.audience),
        })),
      }),
    );
    if (!ok)
      await this.postAll([noticeMessage(`I couldn’t attach ${files.map((f) => f.name).join(', ')} to this thread.`)]);
  }

  /** Privately when we can (slash commands, buttons), else in the thread if it is still writable. */
  private async explain(code: string): Promise<void> {
    const explanation = explainSlackError(code);
    if (!explanation || this.explained) return;
    this.explained = true;
    try {
      if (this.target.respond) await this.target.respond(explanation);
      else if (!this.unwritable)
        await this.client.chat.postMessage({
          channel: this.target.channel,
          thread_ts: this.target.threadTs,
          ...inertMessage(noticeMessage(explanation), this.target.audience),
        });
    } catch (err) {
      this.log.warn({ code: slackErrorCode(err) }, 'could not tell the user why the reply failed');
    }
  }
}
