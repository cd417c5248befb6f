import type { IncomingMessage as NodeRequest, ServerResponse } from 'node:http';
import { App, ErrorCode as BoltErrorCode, HTTPReceiver, SocketModeReceiver, type webApi } from '@slack/bolt';
import type { Switchboard } from '../../app.js';
import type { PlatformAdapter } from '../adapter.js';
import type { NodeRoute } from '../http/server.js';
import { boltLogger } from './bolt-logger.js';
import { registerHandlers } from './handlers.js';
import { createSlackFetch } from './http-transport.js';
import { AUTH_ERROR_CODES, slackErrorCode } from './slack-errors.js';
import { createSlackState } from './slack-state.js';
import type { WriterOptions } from './turn-writer.js';

export interface SlackAdapterOptions {
  /** Socket Mode: how long the client waits for a pong, which is also its reconnect back-off step (Bolt's default 5 s). */
  socketClientPingTimeoutMs?: number;
  /** Streaming cadence and the fallback's update interval. */
  writer?: Omit<WriterOptions, 'log'>;
  /** How long stop() waits for turns in flight. */
  drainTimeoutMs?: number;
}

export const SLACK_EVENTS_PATH = '/slack/events';

/**
 * The Slack adapter: a Bolt app over the Events API (HTTP, on the shared server at
 * `/slack/events`) or Socket Mode. Undefined when SLACK_BOT_TOKEN is not set.
 */
export function createSlackAdapter(sb: Switchboard, opts: SlackAdapterOptions = {}): PlatformAdapter | undefined {
  const { config } = sb;
  if (!config.SLACK_BOT_TOKEN) return undefined;
  const socketMode = Boolean(config.SLACK_APP_TOKEN);
  if (!socketMode && !config.SLACK_SIGNING_SECRET) {
    throw new Error(
      'SLACK_BOT_TOKEN is set but Slack cannot reach Switchboard: set SLACK_APP_TOKEN (xapp-…, Socket Mode, no public URL needed) ' +
        'or SLACK_SIGNING_SECRET (HTTP Events API at /slack/events).',
    );
  }
  const log = sb.log.child({ adapter: 'slack', mode: socketMode ? 'socket' : 'http' });
  const logger = boltLogger(log);
  // A chat reply that is minutes late is worse than a clear error: retry briefly, honour Retry-After.
  const slackFetch = createSlackFetch();
  const clientOptions = (): webApi.WebClientOptions => ({
    fetch: slackFetch,
    ...(config.SLACK_API_URL ? { slackApiUrl: withSlash(config.SLACK_API_URL) } : {}),
    retryConfig: { retries: 2, factor: 2, minTimeout: 300, maxTimeout: 3_000 },
    timeout: 30_000,
  });

  const httpReceiver = socketMode ? undefined : new HTTPReceiver({ signingSecret: config.SLACK_SIGNING_SECRET ?? '', endpoints: [SLACK_EVENTS_PATH], logger });
  const receiver =
    httpReceiver ??
    new SocketModeReceiver({
      appToken: config.SLACK_APP_TOKEN ?? '',
      logger,
      installerOptions: { clientOptions: clientOptions() },
      ...(opts.socketClientPingTimeoutMs ? { clientPingTimeout: opts.socketClientPingTimeoutMs } : {}),
    });
  const app = new App({
    token: config.SLACK_BOT_TOKEN,
    receiver,
    logger,
    clientOptions: clientOptions(),
    convoStore: false,
    deferInitialization: true,
  });

  const inflight = new Set<Promise<void>>();
  const state = createSlackState(sb.kv, log, config.THREAD_TTL_DAYS * 86_400_000);
  registerHandlers(app, {
    agent: sb.agent,
    state,
    log,
    writer: opts.writer,
    runAfterAck: (work) => {
      // setImmediate: requests already waiting on the socket get parsed and acked before this
      // turn's first steps run, so a burst of events does not queue acks behind turns.
      const p = new Promise<void>((resolve) => setImmediate(resolve))
        .then(work)
        .catch((err: unknown) => log.error({ err }, 'slack turn failed'))
        .finally(() => inflight.delete(p));
      inflight.add(p);
    },
  });

  // auth.test once (the bot's own ids); a failed attempt is not cached, so the next request retries.
  let ready: Promise<void> | undefined;
  const init = () =>
    (ready ??= app.init().catch((err: unknown) => {
      ready = undefined;
      throw startError(err);
    }));

  const routes: NodeRoute[] | undefined = httpReceiver
    ? [
        {
          prefix: '/slack/',
          handle: async (req: NodeRequest, res: ServerResponse) => {
            try {
              await init();
              httpReceiver.requestListener(req, res);
            } catch (err) {
              const deferred = (err as { code?: string }).code === BoltErrorCode.HTTPReceiverDeferredRequestError;
              if (!deferred) log.error({ err }, 'slack request failed before Bolt handled it');
              if (!res.headersSent) res.writeHead(deferred ? 404 : 503, { 'content-type': 'application/json' });
              res.end(JSON.stringify({ error: { code: deferred ? 'not_found' : 'unavailable', message: deferred ? `No Slack route for ${req.url}.` : 'Slack adapter is not ready.' } }));
            }
          },
        },
      ]
    : undefined;

  return {
    name: 'slack',
    ...(routes ? { routes } : {}),
    async start() {
      await init();
      if (socketMode) {
        try {
          await app.start();
        } catch (err) {
          throw startError(err);
        }
      }
      log.info({ mode: socketMode ? 'socket' : 'http', path: socketMode ? undefined : SLACK_EVENTS_PATH }, socketMode ? 'Slack connected over Socket Mode' : `Slack events accepted at ${SLACK_EVENTS_PATH}`);
    },
    async stop() {
      if (socketMode) await app.stop().catch((err: unknown) => log.warn({ err }, 'slack socket did not close cleanly'));
      const drained = Promise.allSettled([...inflight]);
      const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), opts.drainTimeoutMs ?? 10_000).unref());
      if ((await Promise.race([drained, timeout])) === 'timeout') log.warn({ inflight: inflight.size }, 'slack turns still running at shutdown');
    },
  };
}

/** A startup failure worded for the operator, with Slack's error code. */
function startError(err: unknown): Error {
  const code = slackErrorCode(err);
  if (AUTH_ERROR_CODES.has(code)) {
    return new Error(`Slack rejected the token (${code}). Check SLACK_BOT_TOKEN (xoxb-…) and, for Socket Mode, SLACK_APP_TOKEN (xapp-… with connections:write).`, { cause: err });
  }
  return new Error(`Slack could not be reached (${code}). Check SLACK_API_URL and the network.`, { cause: err });
}

function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}
