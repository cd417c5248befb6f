import type { IncomingMessage, ServerResponse } from 'node:http';
import { App, HTTPReceiver, SocketModeReceiver, webApi } from '@slack/bolt';
import type { Switchboard } from '../switchboard.js';
import { isAdminPort } from '../../data/rpc-port.js';
import { metrics } from '../../telemetry/metrics.js';
import type { AdapterDeps, PlatformAdapter } from '../platform.js';
import { boltLogger, processEventError } from './bolt-logger.js';
import { createSlackPeople } from './user-roles.js';
import { createContextClients } from './thread-context.js';
import { registerHandlers } from './handlers.js';
import { registerAppHome } from './app-home.js';
import { createSlackFetch } from './http-transport.js';
import { AUTH_ERROR_CODES, slackErrorCode } from './slack-errors.js';
import { createSlackState } from './slack-state.js';
import { createSlackOAuth, INSTALL_PATH, singleClient, type SlackAuth } from './oauth.js';
import type { WriterOptions } from './turn-writer.js';
import { createSlackGroups, startSlackApprovalSweep } from './approvals.js';
import { createApprovalStore } from '../../data/approvals.js';
import { expiryAction } from '../../agent/approval-sweep.js';
import { createChannelSettingsView } from '../channel-settings.js';

export interface SlackAdapterOptions {
  /** Socket Mode: how long the client waits for a pong, which is also its reconnect back-off step (Bolt's default 5 s). */
  socketClientPingTimeoutMs?: number;
  /** Streaming cadence and the fallback's update interval. */
  writer?: Omit<WriterOptions, 'log'>;
}

export const SLACK_EVENTS_PATH = '/slack/events';
/** How long one Web API call may take before it fails (and is retried). */
const SLACK_CALL_TIMEOUT_MS = 30_000;

/**
 * The Slack adapter: a Bolt app over the Events API (HTTP: `/slack/events` through Bolt's own
 * HTTPReceiver, mounted on the shared server) or Socket Mode. Each event is recorded in the
 * inbox before Slack gets its ack; the inbox runs the turn. One workspace with SLACK_BOT_TOKEN,
 * or many installed through OAuth (SLACK_CLIENT_ID…: /slack/install, each event answered with
 * its workspace's token). Undefined when neither is set.
 */
/** The settings the Slack adapter reads. */
export type SlackConfig =
  | 'SLACK_BOT_TOKEN'
  | 'SLACK_SIGNING_SECRET'
  | 'SLACK_APP_TOKEN'
  | 'SLACK_API_URL'
  | 'SLACK_CLIENT_ID'
  | 'SLACK_CLIENT_SECRET'
  | 'SLACK_STATE_SECRET'
  | 'SLACK_REDIRECT_URL'
  | 'SLACK_TOKEN_ENCRYPTION_KEY'
  | 'SLACK_UNFURL_DOMAINS'
  | 'SLACK_STREAM_MAX_AGE_MS'
  | 'TENANT_MODE'
  | 'THREAD_TTL_DAYS'
  | 'INBOX_THREAD_QUEUE_MAX'
  | 'TOKEN_BUDGET_PER_USER_DAILY'
  | 'TOKEN_BUDGET_PER_TENANT_MONTHLY'
  | 'BUDGET_USD_PER_TENANT_MONTHLY'
  | 'APPROVAL_SWEEP_MS';

export function createSlackAdapter(
  sb: AdapterDeps<SlackConfig> &
    Pick<Switchboard, 'data' | 'registry' | 'llm'> &
    Partial<Pick<Switchboard, 'channels'>>,
  opts: SlackAdapterOptions = {},
): PlatformAdapter | undefined {
  const { config } = sb;
  const oauthMode = Boolean(config.SLACK_CLIENT_ID);
  if (!config.SLACK_BOT_TOKEN && !oauthMode) return undefined;
  const socketMode = Boolean(config.SLACK_APP_TOKEN);
  if (!socketMode && !config.SLACK_SIGNING_SECRET) {
    throw new Error(
      `${oauthMode ? 'SLACK_CLIENT_ID' : 'SLACK_BOT_TOKEN'} is set but Slack cannot reach Switchboard: set SLACK_APP_TOKEN (xapp-…, Socket Mode, no public URL needed) ` +
        'or SLACK_SIGNING_SECRET (HTTP Events API at /slack/events).',
    );
  }
  if (oauthMode && !isAdminPort(sb.data))
    throw new Error('Slack OAuth stores installations in the database, and this data port offers no admin functions.');
  const log = sb.log.child({
    adapter: 'slack',
    mode: socketMode ? 'socket' : 'http',
    ...(oauthMode ? { install: 'oauth' } : {}),
  });
  const logger = boltLogger(log);
  // A chat reply that is minutes late is worse than a clear error: retry briefly, honour Retry-After.
  const slackFetch = createSlackFetch(SLACK_CALL_TIMEOUT_MS);
  const clientOptions = (): webApi.WebClientOptions => ({
    fetch: slackFetch,
    ...(config.SLACK_API_URL ? { slackApiUrl: withSlash(config.SLACK_API_URL) } : {}),
    retryConfig: { retries: 2, factor: 2, minTimeout: 300, maxTimeout: 3_000 },
    // No `timeout` here: slackFetch enforces SLACK_CALL_TIMEOUT_MS per call, more cheaply.
  });

  const receiver = socketMode
    ? new SocketModeReceiver({
        appToken: config.SLACK_APP_TOKEN ?? '',
        logger,
        installerOptions: { clientOptions: clientOptions() },
        ...(opts.socketClientPingTimeoutMs ? { clientPingTimeout: opts.socketClientPingTimeoutMs } : {}),
      })
    : new HTTPReceiver({
        signingSecret: config.SLACK_SIGNING_SECRET ?? '',
        endpoints: SLACK_EVENTS_PATH,
        logger,
        // Slack's 200 leaves only once the listener has recorded the event in the inbox.
        processBeforeResponse: true,
        // A failed listener is a 500 (Slack retries) with the listener's line only, not Bolt's too.
        processEventErrorHandler: processEventError,
      });
  // Many workspaces: each event authorized with its own installation's token.
  const oauth =
    oauthMode && isAdminPort(sb.data)
      ? createSlackOAuth({ config, data: sb.data, log, clientOptions: clientOptions() })
      : undefined;
  const app = new App({
    ...(oauth ? { authorize: (source) => oauth.installer.authorize(source) } : { token: config.SLACK_BOT_TOKEN }),
    receiver,
    logger,
    clientOptions: clientOptions(),
    convoStore: false,
    deferInitialization: true,
  });

  const registerDelivery = registerHandlers(app, {
    agent: sb.agent,
    state: createSlackState(sb.kv, log, config.THREAD_TTL_DAYS * 86_400_000),
    inbox: sb.inbox,
    // The App's own client carries no token (Bolt passes it per event); deliveries run outside events.
    clients: oauth ? oauth.clients : singleClient(new webApi.WebClient(config.SLACK_BOT_TOKEN, clientOptions())),
    ...(oauth
      ? {
          uninstall: (auth: SlackAuth) =>
            oauth.store.deleteInstallation!({
              teamId: auth.teamId,
              enterpriseId: auth.enterpriseId,
              isEnterpriseInstall: auth.isEnterpriseInstall ?? false,
            }),
        }
      : {}),
    log,
    maxPerThread: config.INBOX_THREAD_QUEUE_MAX,
    // One users.info per person for both: the asker's role and thread authors' names.
    ...createSlackPeople(log),
    contextClient: createContextClients({ ...clientOptions(), logger }),
    unfurlDomains: config.SLACK_UNFURL_DOMAINS,
    // SLACK_STREAM_MAX_AGE_MS: a stream rolls over into a new message before Slack ends it; a test's own wins.
    writer: { streamMaxAgeMs: config.SLACK_STREAM_MAX_AGE_MS, ...opts.writer },
    ...(config.SLACK_API_URL ? { slackApiUrl: config.SLACK_API_URL } : {}),
    groups: createSlackGroups(),
    channelSettings: createChannelSettingsView(sb),
  });
  // Approvals nobody decides expire on their own (issue 43): swept on every replica, answered through the inbox.
  const approvalStore =
    isAdminPort(sb.data) && sb.agent.handlesAction(expiryAction({ id: '' }).id)
      ? createApprovalStore(sb.data)
      : undefined;
  let stopSweep: (() => Promise<void>) | undefined;

  // The Home tab: what the bot can do here, the user's own usage.
  registerAppHome(app, { data: sb.data, registry: sb.registry, config, log });

  // auth.test once (the bot's own ids); until it passed, HTTP events get 503 and Slack retries.
  let ready = false;
  let initialized: Promise<void> | undefined;
  const init = () =>
    (initialized ??= app.init().then(
      () => void (ready = true),
      (err: unknown) => {
        initialized = undefined;
        throw startError(err);
      },
    ));
  const http = receiver instanceof HTTPReceiver ? receiver : undefined;
  let accepting = true;

  const eventRoutes = http
    ? [
        {
          prefix: SLACK_EVENTS_PATH,
          handle: (req: IncomingMessage, res: ServerResponse) => {
            res.once('finish', () => metrics.acks.inc({ platform: 'slack', status: String(res.statusCode) }));
            if (!ready || !accepting) {
              res.writeHead(503, { 'content-type': 'text/plain' }).end(accepting ? 'starting' : 'shutting down');
              return;
            }
            http.requestListener(req, res);
          },
        },
      ]
    : [];
  const routes = [...eventRoutes, ...(oauth?.routes ?? [])];

  return {
    name: 'slack',
    ...(routes.length > 0 ? { routes } : {}),
    async start() {
      await init();
      registerDelivery();
      if (approvalStore)
        stopSweep ??= startSlackApprovalSweep({ inbox: sb.inbox, log }, approvalStore, config.APPROVAL_SWEEP_MS);
      if (socketMode) {
        try {
          await app.start();
        } catch (err) {
          throw startError(err);
        }
      }
      log.info(
        { path: socketMode ? undefined : SLACK_EVENTS_PATH, ...(oauth ? { install: INSTALL_PATH } : {}) },
        socketMode ? 'Slack connected over Socket Mode' : `Slack events accepted at ${SLACK_EVENTS_PATH}`,
      );
    },
    // Socket Mode: the socket is up; HTTP: the token was checked and events are taken.
    ready: () => ready && accepting && (!socketMode || receiverConnected(receiver)),
    async stop() {
      accepting = false;
      await stopSweep?.();
      stopSweep = undefined;
      if (socketMode) await app.stop().catch((err: unknown) => log.warn({ err }, 'slack socket did not close cleanly'));
    },
  };
}

/** Socket Mode's WebSocket state: the client's current `SlackWebSocket.isActive()` (@slack/socket-mode). */
function receiverConnected(receiver: unknown): boolean {
  const socket = (receiver as { client?: { websocket?: { isActive(): boolean } } }).client?.websocket;
  return socket?.isActive() ?? false;
}

/** A startup failure worded for the operator, with Slack's error code. */
function startError(err: unknown): Error {
  const code = slackErrorCode(err);
  if (AUTH_ERROR_CODES.has(code)) {
    return new Error(
      `Slack rejected the token (${code}). Check SLACK_BOT_TOKEN (xoxb-…) and, for Socket Mode, SLACK_APP_TOKEN (xapp-… with connections:write).`,
      { cause: err },
    );
  }
  return new Error(`Slack could not be reached (${code}). Check SLACK_API_URL and the network.`, { cause: err });
}

function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}
