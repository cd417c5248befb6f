import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { InstallProvider, type CallbackOptions, type Installation } from '@slack/oauth';
import { webApi } from '@slack/bolt';
import { LRUCache } from 'lru-cache';
import type { Config } from '../../config/index.js';
import type { AdminDataPort } from '../../data/rpc-port.js';
import type { Logger } from '../../telemetry/logger.js';
import { setPageHeaders, type CspDirectives } from '../http/page-headers.js';
import type { NodeRoute } from '../http/server.js';
import { boltLogger } from './bolt-logger.js';
import { createInstallationStore, type SlackInstallationStore } from './installations.js';

export const INSTALL_PATH = '/slack/install';
export const REDIRECT_PATH = '/slack/oauth_redirect';

/** The bot scopes the app asks for: deploy/slack-app-manifest.yaml lists the same (test/adapters/slack/manifest.test.ts). */
export const SLACK_BOT_SCOPES = [
  'app_mentions:read',
  'assistant:write',
  'channels:history',
  'groups:history',
  'im:history',
  'chat:write',
  'commands',
  'files:read',
  'files:write',
  'users:read',
  'usergroups:read',
] as const;

/** Which installation answers an event: Bolt's authorize query, recorded with each inbox entry. */
export interface SlackAuth {
  teamId?: string;
  enterpriseId?: string;
  isEnterpriseInstall?: boolean;
}

/**
 * The Web API client that speaks for a workspace: one bot token (SLACK_BOT_TOKEN), or each
 * workspace's own installation (OAuth). Undefined when the workspace has no installation any more.
 */
export interface SlackClients {
  for(auth: SlackAuth): Promise<webApi.WebClient | undefined>;
}

export function singleClient(client: webApi.WebClient): SlackClients {
  return { for: async () => client };
}

export interface SlackOAuth {
  installer: InstallProvider;
  store: SlackInstallationStore;
  clients: SlackClients;
  routes: NodeRoute[];
}

/**
 * "Add to Slack" for many workspaces, with @slack/oauth's InstallProvider: `GET /slack/install`
 * (a page with the Add to Slack link and a state cookie), `GET /slack/oauth_redirect` (state
 * checked against the cookie, the code exchanged through oauth.v2.access at SLACK_API_URL, the
 * installation stored sealed), and `authorize` for Bolt, so each event is answered with its own
 * workspace's token (token rotation included, as InstallProvider does it).
 */
export function createSlackOAuth(opts: {
  config: Pick<
    Config,
    | 'SLACK_CLIENT_ID'
    | 'SLACK_CLIENT_SECRET'
    | 'SLACK_STATE_SECRET'
    | 'SLACK_REDIRECT_URL'
    | 'SLACK_TOKEN_ENCRYPTION_KEY'
    | 'TENANT_MODE'
  >;
  data: AdminDataPort;
  log: Logger;
  clientOptions: webApi.WebClientOptions;
}): SlackOAuth {
  const { config, log } = opts;
  const store = createInstallationStore(opts.data, config, log);
  // The same redirect URL in the authorize link and in the code exchange, as Slack requires.
  const urlOptions = {
    scopes: [...SLACK_BOT_SCOPES],
    ...(config.SLACK_REDIRECT_URL ? { redirectUri: config.SLACK_REDIRECT_URL } : {}),
  };
  const installer = new InstallProvider({
    clientId: config.SLACK_CLIENT_ID ?? '',
    clientSecret: config.SLACK_CLIENT_SECRET ?? '',
    stateSecret: config.SLACK_STATE_SECRET ?? '',
    installationStore: store,
    installUrlOptions: urlOptions,
    logger: boltLogger(log),
    clientOptions: opts.clientOptions,
    // The "Add to Slack" page, not a silent redirect: an admin sees what they are installing.
    directInstall: false,
    renderHtmlForInstallPath: (url) =>
      page(
        'Add Switchboard to Slack',
        `<p>Switchboard answers in Slack threads: mention it, message it, or use <code>/ask</code>.</p><p><a href="${escapeHtml(url)}"><img alt="Add to Slack" height="40" width="139" src="https://platform.slack-edge.com/img/add_to_slack.png"></a></p>`,
      ),
  });

  const clients = new LRUCache<string, webApi.WebClient>({ max: 1_000 });
  const callbacks: CallbackOptions = {
    success: (installation, _options, _req, res) => {
      const outcome = store.takeOutcome(installation as Installation<'v1' | 'v2', boolean>);
      const where = installation.isEnterpriseInstall
        ? (installation.enterprise?.name ?? 'your organization')
        : (installation.team?.name ?? 'your workspace');
      const next = outcome?.pending
        ? '<p>An administrator of this Switchboard has to approve the workspace before it answers. They have been asked to.</p>'
        : '<p>Invite it to a channel (<code>/invite @Switchboard</code>) and mention it, or open it in the sidebar.</p>';
      send(
        res,
        200,
        page('Switchboard is installed', `<p>Switchboard is installed in <b>${escapeHtml(where)}</b>.</p>${next}`),
      );
    },
    failure: (error, _options, _req, res) => {
      const code = (error as { code?: string }).code ?? 'unknown';
      log.warn({ code, problem: error.message }, 'slack installation did not finish');
      const why =
        code === 'slack_oauth_invalid_state' || code === 'slack_oauth_missing_state'
          ? 'The installation link expired or was opened in another browser.'
          : code === 'slack_oauth_installer_authorization_error'
            ? 'The installation was cancelled.'
            : 'Slack did not complete the installation.';
      send(
        res,
        400,
        page(
          'Switchboard was not installed',
          `<p>${escapeHtml(why)}</p><p><a href="${INSTALL_PATH}">Try again</a>.</p>`,
        ),
      );
    },
  };

  return {
    installer,
    store,
    clients: {
      async for(auth) {
        let botToken: string | undefined;
        try {
          botToken = (
            await installer.authorize({
              teamId: auth.teamId,
              enterpriseId: auth.enterpriseId,
              isEnterpriseInstall: auth.isEnterpriseInstall ?? false,
            })
          ).botToken;
        } catch (err) {
          log.warn(
            {
              team: auth.teamId,
              enterprise: auth.enterpriseId,
              problem: err instanceof Error ? err.message : String(err),
            },
            'no Slack installation for this workspace',
          );
          return undefined;
        }
        if (!botToken) return undefined;
        let client = clients.get(botToken);
        if (!client) {
          client = new webApi.WebClient(botToken, opts.clientOptions);
          clients.set(botToken, client);
        }
        return client;
      },
    },
    routes: [
      {
        prefix: INSTALL_PATH,
        handle: securePage((req, res) =>
          installer.handleInstallPath(req, res, {}, urlOptions).catch((err: unknown) => internal(res, err, log)),
        ),
      },
      {
        prefix: REDIRECT_PATH,
        handle: securePage((req, res) =>
          installer.handleCallback(req, res, callbacks).catch((err: unknown) => internal(res, err, log)),
        ),
      },
    ],
  };
}

function internal(res: ServerResponse, err: unknown, log: Logger): void {
  log.error({ err }, 'slack install page failed');
  if (!res.headersSent)
    send(res, 500, page('Something went wrong', '<p>The installation page failed. The error has been logged.</p>'));
}

function send(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html);
}

/** The install pages' one stylesheet, inline: the CSP admits exactly it, by its hash. */
const PAGE_CSS = 'body { font-family: system-ui, sans-serif; max-width: 36rem; margin: 4rem auto; padding: 0 1rem }';

/** What the install pages may load: their stylesheet and Slack's "Add to Slack" image; no script, form or frame. */
const PAGE_CSP = {
  defaultSrc: ["'none'"],
  styleSrc: [`'sha256-${createHash('sha256').update(PAGE_CSS).digest('base64')}'`],
  imgSrc: ['https://platform.slack-edge.com'],
  formAction: ["'none'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
} satisfies CspDirectives;

/**
 * The page headers (http/page-headers.ts) on every response of an install route, set before
 * @slack/oauth renders anything: its own writeHead merges them in, whichever page it writes.
 */
function securePage(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return (req, res) => {
    setPageHeaders(res, PAGE_CSP);
    return handle(req, res);
  };
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><meta name="viewport" content="width=device-width, initial-scale=1"><style>${PAGE_CSS}</style></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
