import type { Middleware, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { MAX_MESSAGE_CHARS, messageTooLongText } from '../../contract/turn.js';
import { INBOX_UNAVAILABLE_TEXT as UNAVAILABLE } from '../../inbox/index.js';
import { authOf, slackContext } from './bolt-context.js';
import { recordWork, type HandlerDeps } from './handler-deps.js';
import { commandTooLong, normalizeCommand } from './normalize.js';
import { answerSwitchboardCommand, SWITCHBOARD_COMMAND } from './settings-command.js';

/** Every slash command of ours (the manifest lists them; the extensions decide what each does). */
export const ANY_SLASH_COMMAND = /^\/\S+$/;

/**
 * A slash command: refused at once (ephemerally) when too long or empty, otherwise recorded in
 * the inbox, then acked. A failed record is told to the user in the ack.
 */
export function commandListener(deps: HandlerDeps): Middleware<SlackCommandMiddlewareArgs> {
  const { log, inbox } = deps;
  return async ({ command, ack, context }) => {
    const tooLong = commandTooLong(command);
    if (tooLong !== undefined) {
      log.info(
        { platform: 'slack', command: command.command, chars: tooLong, limit: MAX_MESSAGE_CHARS },
        'slack command over the length limit refused',
      );
      return ack({ response_type: 'ephemeral', text: messageTooLongText(tooLong) });
    }
    const req = normalizeCommand(command, slackContext(context));
    if (!req) return ack();
    if (req.command.name === SWITCHBOARD_COMMAND)
      return ack(await answerSwitchboardCommand(req, deps.channelSettings, log));
    if (!req.text && req.command.name === 'ask')
      return ack({
        response_type: 'ephemeral',
        text: 'Ask me something after the command, e.g. `/ask which campaigns ran last week?`',
      });
    try {
      // A command opens its own thread: nothing to order it behind.
      await recordWork(inbox, req.dedupKey, `command:${req.dedupKey}`, {
        kind: 'command',
        request: req,
        responseUrl: command.response_url,
        auth: authOf(context),
      });
    } catch (err) {
      log.error({ err, command: req.command.name }, 'slack command not recorded');
      return ack({ response_type: 'ephemeral', text: UNAVAILABLE });
    }
    await ack();
  };
}
