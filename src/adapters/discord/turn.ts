import type { Agent } from '../../agent/agent.js';
import type { IncomingMessage } from '../../agent/types.js';
import type { Logger } from '../../logger.js';
import { replyButtons } from '../../reply/plain-text.js';
import type { ActionStore } from './custom-id.js';
import { createLiveReply } from './live-reply.js';
import { renderReply } from './render.js';
import type { MessageRef, ReplySink } from './sinks.js';

export interface TurnDeps {
  agent: Agent;
  actions: ActionStore;
  log: Logger;
  editIntervalMs: number;
  /** Called with the message that carries the reply's buttons, so a click finds its conversation. */
  onButtons?: (ref: MessageRef, message: IncomingMessage) => Promise<void>;
}

/** Discord shows "typing" for ten seconds; renewing it a bit sooner keeps it steady. */
const TYPING_EVERY_MS = 8_000;

/** Runs one turn of the core and renders its events into `sink`. Never throws. */
export async function runTurn(deps: TurnDeps, message: IncomingMessage, sink: ReplySink): Promise<void> {
  const log = deps.log.child({ platform: 'discord', messageId: message.messageId, threadId: message.threadId });
  const live = createLiveReply(sink, { minIntervalMs: deps.editIntervalMs, log });
  const stopTyping = keepTyping(sink, log);
  let streamed = '';
  try {
    for await (const event of deps.agent.handle(message)) {
      switch (event.type) {
        case 'status':
          live.update({ status: `⏳ ${event.text}` });
          break;
        case 'text_delta':
          streamed += event.text;
          live.update({ text: streamed });
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
          const refs = await live.finish(renderReply(event.reply, { customIds: await deps.actions.encode(buttons) }));
          const last = refs.at(-1);
          if (buttons.length > 0 && last) await deps.onButtons?.(last, message);
          break;
        }
        case 'error':
          stopTyping();
          await live.fail(event.message);
          break;
        default:
          break;
      }
    }
    if (!live.done) await live.fail('I could not finish that answer. Please try again.');
  } catch (err) {
    log.error({ err, code: (err as { code?: unknown }).code }, 'could not post the answer to Discord');
    await live.fail('I could not post my answer here. The error has been logged.').catch((failErr: unknown) => {
      log.warn({ err: failErr }, 'could not tell the user about the failure either');
    });
  } finally {
    stopTyping();
  }
}

function keepTyping(sink: ReplySink, log: Logger): () => void {
  if (!sink.typing) return () => {};
  const type = () => void sink.typing!().catch((err: unknown) => log.debug({ err }, 'typing indicator failed'));
  type();
  const timer = setInterval(type, TYPING_EVERY_MS);
  return () => clearInterval(timer);
}
