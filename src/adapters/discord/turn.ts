import type { Agent } from '../../agent/agent.js';
import type { IncomingMessage, TurnEvent } from '../../contract/turn.js';
import type { Logger } from '../../telemetry/logger.js';
import { replyButtons } from '../../reply/plain-text.js';
import { RetryLaterError, untilAborted } from '../../inbox/index.js';
import type { ActionStore } from './custom-id.js';
import { createLiveReply } from './live-reply.js';
import { renderReply, type OutgoingMessage } from './render.js';
import { plain, warning, type MessageRef, type ReplySink } from './sinks.js';

export interface TurnDeps {
  agent: Agent;
  actions: ActionStore;
  log: Logger;
  editIntervalMs: number;
  /** Called with the message that carries the reply's buttons, so a click finds its conversation. */
  onButtons?: (ref: MessageRef, message: IncomingMessage) => Promise<void>;
}

/** One run of one inbox entry: how it is stopped, and what it and earlier runs posted. */
export interface TurnRun {
  /** Aborts when the replica stops mid-turn: the turn ends quietly (the entry is handed back). */
  signal?: AbortSignal;
  /**
   * Messages an earlier run of this turn posted, in order. Non-empty: this run is a replay; it
   * shows no progress and edits them with the final answer instead of posting it again.
   */
  earlier?: MessageRef[];
  /** Records each message's ref as soon as it exists (see `MESSAGE_MARK`). */
  record?: (id: string) => Promise<void>;
}

/** Recorded for every message a turn posts: `msg:<ref id>` ('@original' for a deferred reply). */
export const MESSAGE_MARK = 'msg:';

/** Discord shows "typing" for ten seconds; renewing it a bit sooner keeps it steady. */
const TYPING_EVERY_MS = 8_000;

/** Runs one turn of the core and renders its events into `sink`. Never throws. */
export async function runTurn(
  deps: TurnDeps,
  message: IncomingMessage,
  target: ReplySink,
  run: TurnRun = {},
): Promise<void> {
  const log = deps.log.child({ platform: 'discord', messageId: message.messageId, threadId: message.threadId });
  const signal = run.signal ?? new AbortController().signal;
  const sink = recording(target, run.record, log);
  const events = untilAborted(deps.agent.handle(message, signal), signal);
  const stopTyping = keepTyping(sink, log);
  try {
    if (run.earlier?.length) await replay(deps, message, sink, run.earlier, events, signal, log);
    else await live(deps, message, sink, events, signal, stopTyping, log);
  } finally {
    stopTyping();
  }
  // A turn that runs again later (Redis or Postgres away) ends the same quiet way.
  if (signal.aborted && !(signal.reason instanceof RetryLaterError)) log.info('discord turn handed back at shutdown');
}

async function live(
  deps: TurnDeps,
  message: IncomingMessage,
  sink: ReplySink,
  events: AsyncIterable<TurnEvent>,
  signal: AbortSignal,
  stopTyping: () => void,
  log: Logger,
): Promise<void> {
  const live = createLiveReply(sink, { minIntervalMs: deps.editIntervalMs, log });
  let streamed = '';
  try {
    for await (const event of events) {
      switch (event.type) {
        case 'status':
        case 'reasoning_status':
          live.update({ status: `⏳ ${event.text}` });
          break;
        case 'text_delta':
          streamed += event.text;
          live.update({ text: streamed });
          break;
        case 'tool_event':
          // An artifact's code as its writer produces it (generate_artifact): shown in the progress message.
          if (event.name === 'artifact_delta' && typeof event.data.delta === 'string') {
            streamed += event.data.delta;
            live.update({ text: streamed });
          }
          break;
        case 'tool_call_start':
          // Text before a tool call is the model thinking aloud; the answer comes after.
          streamed = '';
          live.update({ text: '', status: `⏳ ${event.title}…` });
          break;
        case 'tool_result':
          live.update({ status: `${event.ok ? '✓' : '✗'} ${event.summary}` });
          break;
        case 'reply': {
          stopTyping();
          const buttons = replyButtons(event.reply);
          const customIds = await deps.actions.encode(buttons);
          // Text already sealed in earlier messages stays there: the final messages carry the rest.
          const refs = await live.finish((sealed) => {
            const continuing = sealed !== undefined && event.reply.text.startsWith(sealed);
            const reply = continuing ? { ...event.reply, text: event.reply.text.slice(sealed.length) } : event.reply;
            return { messages: renderReply(reply, { customIds }), continuing };
          });
          const last = refs.at(-1);
          if (buttons.length > 0 && last) await deps.onButtons?.(last, message);
          break;
        }
        case 'error':
          stopTyping();
          // A flood's later refusals stay quiet (the first one was posted); an interaction is always answered.
          if (quiet(event, message)) await live.stop();
          else await live.fail(event.message);
          break;
        default:
          break;
      }
    }
    if (signal.aborted) return void (await live.stop());
    if (!live.done) await live.fail('I could not finish that answer. Please try again.');
  } catch (err) {
    if (signal.aborted) return void (await live.stop());
    log.error({ err, code: (err as { code?: unknown }).code }, 'could not post the answer to Discord');
    await live.fail('I could not post my answer here. The error has been logged.').catch((failErr: unknown) => {
      log.warn({ err: failErr }, 'could not tell the user about the failure either');
    });
  }
}

/** A replay: no progress; the final messages (or the error) replace what the earlier run posted. */
async function replay(
  deps: TurnDeps,
  message: IncomingMessage,
  sink: ReplySink,
  earlier: MessageRef[],
  events: AsyncIterable<TurnEvent>,
  signal: AbortSignal,
  log: Logger,
): Promise<void> {
  let done = false;
  try {
    for await (const event of events) {
      if (event.type === 'reply') {
        const buttons = replyButtons(event.reply);
        const refs = await replaceEarlier(
          sink,
          earlier,
          renderReply(event.reply, { customIds: await deps.actions.encode(buttons) }),
          log,
        );
        done = true;
        const last = refs.at(-1);
        if (buttons.length > 0 && last) await deps.onButtons?.(last, message);
      } else if (event.type === 'error') {
        if (!quiet(event, message)) await replaceEarlier(sink, earlier, [plain(warning(event.message))], log);
        done = true;
      }
    }
    if (!done && !signal.aborted)
      await replaceEarlier(sink, earlier, [plain(warning('I could not finish that answer. Please try again.'))], log);
  } catch (err) {
    if (signal.aborted) return;
    log.error({ err, code: (err as { code?: unknown }).code }, 'could not post the replayed answer to Discord');
    if (!done) {
      await replaceEarlier(
        sink,
        earlier,
        [plain(warning('I could not post my answer here. The error has been logged.'))],
        log,
      ).catch((failErr: unknown) => {
        log.warn({ err: failErr }, 'could not tell the user about the failure either');
      });
    }
  }
}

/** Edits the earlier messages in order, posts only the messages beyond them and deletes leftovers. */
async function replaceEarlier(
  sink: ReplySink,
  earlier: MessageRef[],
  messages: OutgoingMessage[],
  log: Logger,
): Promise<MessageRef[]> {
  const refs: MessageRef[] = [];
  for (const [i, m] of messages.entries()) {
    const old = earlier[i];
    if (old) {
      try {
        refs.push((await sink.edit(old, m)) ?? old);
        continue;
      } catch (err) {
        // Deleted meanwhile, or no longer editable: the answer must still be seen.
        log.warn(
          { err, code: (err as { code?: unknown }).code, ref: old.id },
          'could not edit the earlier run’s message; posting it',
        );
      }
    }
    refs.push(await sink.send(m));
  }
  for (const extra of earlier.slice(messages.length)) {
    await sink
      .remove?.(extra)
      .catch((err: unknown) => log.warn({ err, ref: extra.id }, 'could not remove the earlier run’s extra message'));
  }
  log.info(
    { edited: Math.min(messages.length, earlier.length), posted: Math.max(0, messages.length - earlier.length) },
    'discord replay edited the earlier run’s messages',
  );
  return refs;
}

/** Records every message the sink creates as soon as Discord has it; a failed record only weakens a replay. */
function recording(sink: ReplySink, record: TurnRun['record'], log: Logger): ReplySink {
  if (!record) return sink;
  const remember = async (ref: MessageRef) => {
    await record(`${MESSAGE_MARK}${ref.id}`).catch((err: unknown) =>
      log.warn({ err, ref: ref.id }, 'could not record a posted Discord message in the inbox'),
    );
    return ref;
  };
  return {
    ...sink,
    open: async (m) => remember(await sink.open(m)),
    send: async (m) => remember(await sink.send(m)),
  };
}

function keepTyping(sink: ReplySink, log: Logger): () => void {
  if (!sink.typing) return () => {};
  const type = () => void sink.typing!().catch((err: unknown) => log.debug({ err }, 'typing indicator failed'));
  type();
  const timer = setInterval(type, TYPING_EVERY_MS);
  return () => clearInterval(timer);
}

/** An error not to post: `notify: false` on a message (a slash command or button is always answered). */
function quiet(event: Extract<TurnEvent, { type: 'error' }>, message: IncomingMessage): boolean {
  return event.notify === false && !message.command && !message.action;
}
