import type { RespondArguments } from '@slack/bolt';
import type { Logger } from '../../telemetry/logger.js';
import type { ChannelSettingsView } from '../channel-settings.js';
import type { CommandRequest } from './normalize.js';

/** The one slash command the adapter answers itself, without a turn: `/switchboard settings` (issue 46). */
export const SWITCHBOARD_COMMAND = 'switchboard';

const USAGE =
  '`/switchboard settings` shows the model, instructions, tools, reply mode and language that apply here, and where each comes from.';

/**
 * `/switchboard settings`: answered ephemerally in the ack (Slack waits 3 s; the lookups are the
 * cached tenant and channel reads). Nothing is recorded: it changes nothing and costs no model call.
 */
export async function answerSwitchboardCommand(
  req: CommandRequest,
  view: ChannelSettingsView | undefined,
  log: Logger,
): Promise<RespondArguments> {
  const sub = req.text.trim().toLowerCase();
  if (sub !== 'settings') return { response_type: 'ephemeral', text: USAGE };
  if (!view) return { response_type: 'ephemeral', text: 'Settings are not available in this deployment.' };
  try {
    return {
      response_type: 'ephemeral',
      text: await view.describe({ platform: 'slack', ...req }, 'slack'),
    };
  } catch (err) {
    log.warn({ err, channel: req.channelId }, 'could not read the settings for /switchboard settings');
    return {
      response_type: 'ephemeral',
      text: 'I could not read the settings just now. Please try again in a minute.',
    };
  }
}
