import type { Logger } from '../../telemetry/logger.js';
import { slackErrorCode } from './slack-errors.js';
import type { ThreadTarget } from './thread-poster.js';

const LOADING_MESSAGES = ['Thinking…', 'Looking through what I know…', 'Putting the answer together…'];

/**
 * The assistant status of one turn's thread (`assistant.threads.setStatus`) until the answer
 * starts. Decoration: a workspace without AI-app threads refuses it, and it is not asked again.
 */
export class AssistantStatus {
  private on: boolean;
  private sent = false;

  constructor(
    private readonly target: ThreadTarget,
    private readonly log: Logger,
  ) {
    this.on = target.status;
  }

  async set(text: string): Promise<void> {
    if (!this.on) return;
    const first = !this.sent;
    this.sent = true;
    try {
      await this.target.client.assistant.threads.setStatus({
        channel_id: this.target.channel,
        thread_ts: this.target.threadTs,
        status: 'is working on it…',
        loading_messages: first ? [text, ...LOADING_MESSAGES.filter((m) => m !== text)] : [text],
      });
    } catch (err) {
      this.on = false;
      this.log.debug({ code: slackErrorCode(err) }, 'assistant.threads.setStatus refused');
    }
  }
}
