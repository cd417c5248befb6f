import { App, SocketModeReceiver, type Receiver, type webApi } from '@slack/bolt';
import type { Switchboard } from '../../app.js';
import type { Logger } from '../../logger.js';
import type { PlatformAdapter } from '../adapter.js';
import type { SlackIngressEvent, SlackIngressTarget } from '../http/ingress.js';
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
/** How long one Web API call may take before it fails (and is retried). */
const SLACK_CALL_TIMEOUT_MS = 30_000;

/**
 * The Slack adapter: a Bolt app over the Events API (HTTP: `/slack/events`, verified and acked
 * by the HTTP ingress thread, see `http/ingress.ts`) or Socket Mode. Undefined when
 * SLACK_BOT_TOKEN is not set.
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
  const slackFetch = createSlackFetch(SLACK_CALL_TIMEOUT_MS);
  const clientOptions = (): webApi.WebClientOptions => ({
    fetch: slackFetch,
    ...(config.SLACK_API_URL ? { slackApiUrl: withSlash(config.SLACK_API_URL) } : {}),
    retryConfig: { retries: 2, factor: 2, minTimeout: 300, maxTimeout: 3_000 },
    // No `timeout` here: slackFetch enforces SLACK_CALL_TIMEOUT_MS per call, more cheaply.
  });

  const inflight = new Set<Promise<void>>();
  const track = (p: Promise<void>) => {
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
  };
  const ingressReceiver = socketMode ? undefined : new IngressReceiver(log, track);
  const receiver =
    ingressReceiver ??
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

  const state = createSlackState(sb.kv, log, config.THREAD_TTL_DAYS * 86_400_000);
  registerHandlers(app, {
    agent: sb.agent,
    state,
    log,
    writer: opts.writer,
    runAfterAck: (work) => {
      // setImmediate: in Socket Mode, where acks leave from this thread, envelopes already waiting
      // on the socket get acked before this turn's first steps run (over HTTP the ingress thread acks).
      track(
        new Promise<void>((resolve) => setImmediate(resolve)).then(work).catch((err: unknown) => {
          log.error({ err }, 'slack turn failed');
        }),
      );
    },
  });

  // auth.test once (the bot's own ids); a failed attempt is not cached, so the next start retries.
  let initialized: Promise<void> | undefined;
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const init = () =>
    (initialized ??= app.init().then(markReady, (err: unknown) => {
      initialized = undefined;
      throw startError(err);
    }));

  const ingress: SlackIngressTarget | undefined = ingressReceiver
    ? { path: SLACK_EVENTS_PATH, signingSecret: config.SLACK_SIGNING_SECRET ?? '', ready, receive: (event) => ingressReceiver.dispatch(event) }
    : undefined;

  return {
    name: 'slack',
    ...(ingress ? { ingress } : {}),
    async start() {
      await init();
      if (socketMode) {
        try {
          await app.start();
        } catch (err) {
          throw startError(err);
        }
      }
      log.info({ path: socketMode ? undefined : SLACK_EVENTS_PATH }, socketMode ? 'Slack connected over Socket Mode' : `Slack events accepted at ${SLACK_EVENTS_PATH}`);
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

/**
 * Bolt's receiver in HTTP mode: requests arrive from the ingress thread verified and already
 * acked (an empty 200, as Bolt sends for `ack()`), and go through `App.processEvent` like any
 * receiver's, so every listener runs unchanged; their `ack()` has nothing left to do.
 */
class IngressReceiver implements Receiver {
  private app: App | undefined;
  constructor(
    private readonly log: Logger,
    private readonly track: (work: Promise<void>) => void,
  ) {}
  init(app: App): void {
    this.app = app;
  }
  start(): Promise<void> {
    return Promise.resolve();
  }
  stop(): Promise<void> {
    return Promise.resolve();
  }
  dispatch({ body, retryNum, retryReason }: SlackIngressEvent): void {
    const app = this.app;
    if (!app) throw new Error('the Slack receiver has no app');
    const ack = async (response?: unknown) => {
      if (response !== undefined) this.log.warn({ type: body.type }, 'slack ack body dropped: the ingress already answered with an empty 200');
    };
    this.track(
      app.processEvent({ body, ack, retryNum, retryReason, customProperties: {} }).catch((err: unknown) => {
        this.log.error({ err }, 'slack event failed');
      }),
    );
  }
}
