import type { webApi } from '@slack/bolt';
import type { Logger } from '../../telemetry/logger.js';
import { inertMessage, type SlackAudience } from './inert.js';
import { noticeMessage } from './render.js';
import { slackErrorCode } from './slack-errors.js';

/**
 * Our own notice in a thread, outside any turn (the queue is full, the message is too long).
 * It mentions nobody; a failure is logged, never thrown: the listener's ack must not wait on it.
 */
export async function tellThread(
  client: webApi.WebClient,
  channel: string,
  threadTs: string,
  text: string,
  { log, unfurlDomains }: { log: Logger; unfurlDomains: readonly string[] },
): Promise<void> {
  const nobody: SlackAudience = { people: new Set(), unfurlDomains };
  try {
    await client.chat.postMessage({ channel, thread_ts: threadTs, ...inertMessage(noticeMessage(text), nobody) });
  } catch (err) {
    log.warn({ code: slackErrorCode(err), channel }, 'could not post a notice in the thread');
  }
}

/**
 * A private note to the person who ran the command or clicked the button, through the
 * interaction's `response_url` (valid for 30 minutes, so it works on a replay too).
 */
export function respondVia(responseUrl: string, log: Logger): (text: string) => Promise<void> {
  return (text) => postPrivately(responseUrl, { text }, log);
}

/** One message to the person behind an interaction, through its response_url (ephemeral, next to the original). */
export async function postPrivately(responseUrl: string, message: object, log: Logger): Promise<void> {
  try {
    const res = await fetch(responseUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ response_type: 'ephemeral', replace_original: false, ...message }),
      signal: AbortSignal.timeout(10_000),
    });
    if (!res.ok) log.warn({ status: res.status }, 'slack response_url refused the message');
  } catch (err) {
    log.warn({ err }, 'slack response_url failed');
  }
}
