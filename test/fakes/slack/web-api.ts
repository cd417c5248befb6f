/**
 * A loopback stand-in for Slack's Web API, driven by the real @slack/web-api client (point
 * SLACK_API_URL at `fake.url`). Speaks the wire format: form-encoded or JSON bodies, bearer
 * tokens, `{ ok, error }` answers, 429 + Retry-After. Keeps the messages it was sent (threads,
 * streams, updates) and records every call for assertions.
 *
 *   const slack = await startFakeSlack({ socketMode: true });
 *   // SLACK_API_URL=slack.url … run the app …
 *   expect(slack.threadReplies('C1', '123.456')).toHaveLength(1);
 *
 * Also serves the `response_url` hooks (`slack.responseUrl()`), the file upload URLs handed out
 * by `files.getUploadURLExternal`, and, with `socketMode`, the Socket Mode WebSocket.
 * `GET /__fake/stats` counts calls (in all and by method) and messages (for a fake running in another process).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { attachSocketMode, type FakeSocketMode } from './socket-mode.js';
import { repliesPage } from './replies.js';

export interface SlackCall {
  method: string;
  args: Record<string, unknown>;
  token: string | undefined;
  /** When the call arrived (performance.now()), to check pacing. */
  at: number;
}

export interface FakeMessage {
  ts: string;
  channel: string;
  thread_ts?: string;
  user: string;
  bot_id: string;
  text: string;
  blocks?: unknown[];
  metadata?: unknown;
  /** Streamed messages: their markdown and chunks in order. */
  stream?: {
    state: 'in_progress' | 'completed';
    markdown: string;
    chunks: Record<string, unknown>[];
    /** Date.now() at chat.startStream: Slack ends a stream after `streamLifetimeMs`. */
    startedAt: number;
  };
  updates: number;
  /** Messages posted with `post` (people, other apps): what conversations.replies shows of them. */
  subtype?: string;
  bot_profile?: { name: string };
  files?: { id?: string; name: string; filetype?: string; mimetype?: string }[];
  edited?: { user: string; ts: string };
}

/** A message a person (or another app) posts, for `FakeSlack.post`. */
export interface PostedMessage {
  channel: string;
  /** A person's user id; leave it out for another app's post (with `botId`). */
  user?: string;
  botId?: string;
  botName?: string;
  text: string;
  thread_ts?: string;
  /** Default: a fresh ts from the fake's clock. */
  ts?: string;
  files?: FakeMessage['files'];
  edited?: boolean;
}

export type FakeFailure = { error: string } | { status: 429; retryAfter: number };

/** Slack's limits on one message, as the fake enforces them (a test may shorten them). */
export interface FakeSlackLimits {
  /** Slack ends a stream this long after it started: appends and stops answer message_not_in_streaming_state (about 5 min). */
  streamLifetimeMs: number;
  /** The markdown one streamed message holds: an append past it answers msg_too_long. */
  streamMaxChars: number;
  /** The markdown (markdown blocks) one posted or updated message holds: past it, msg_too_long. */
  markdownPerMessage: number;
}

export const SLACK_FAKE_LIMITS: FakeSlackLimits = {
  streamLifetimeMs: 300_000,
  streamMaxChars: 12_000,
  markdownPerMessage: 12_000,
};

export interface FakeSlackOptions {
  botToken?: string;
  appToken?: string;
  botUserId?: string;
  botId?: string;
  teamId?: string;
  socketMode?: boolean;
  /** The app's OAuth credentials: `oauth.v2.access` exchanges codes only for these. */
  clientId?: string;
  clientSecret?: string;
}

/** A workspace (or, with `isEnterpriseInstall`, an Enterprise Grid org) the app can be installed in. */
export interface FakeWorkspace {
  teamId?: string;
  teamName?: string;
  enterpriseId?: string;
  enterpriseName?: string;
  isEnterpriseInstall?: boolean;
  botUserId: string;
  botId: string;
  installerUserId: string;
}

export interface FakeSlack {
  /** The Web API base for SLACK_API_URL (ends in `/api/`). */
  readonly url: string;
  readonly origin: string;
  readonly options: Required<Omit<FakeSlackOptions, 'socketMode'>>;
  readonly calls: SlackCall[];
  callsTo(method: string): SlackCall[];
  readonly messages: FakeMessage[];
  /** Bot messages in a thread (the root included when the bot posted it), oldest first. */
  threadReplies(channel: string, threadTs: string): FakeMessage[];
  /** Bodies POSTed to response URLs. */
  readonly responses: { path: string; body: Record<string, unknown> }[];
  responseUrl(): string;
  readonly uploads: { fileId: string; bytes: number }[];
  /** A person or another app posts in a channel or thread (it is in conversations.replies from then on). */
  post(m: PostedMessage): FakeMessage;
  /** The next call of `method` is answered after `ms` (a slow Slack). */
  delayNext(method: string, ms: number): void;
  /** The next `count` calls of `method` fail. */
  failNext(method: string, failure: FakeFailure, count?: number): void;
  /** chat.startStream answers `unknown_method`, as in a workspace without streaming. */
  disableStreaming(disabled?: boolean): void;
  /** Changes the message limits enforced (until `reset`). */
  setLimits(limits: Partial<FakeSlackLimits>): void;
  /** Posting in this channel answers `not_in_channel`. */
  notInChannel(channel: string): void;
  /** What `users.info` says of a user beyond the defaults (a full member): e.g. `{ is_restricted: true }` for a guest. */
  setUser(userId: string, fields: Record<string, unknown>): void;
  /** A user group (`S…`) and its members, for `usergroups.users.list` (an unknown group: `no_such_subteam`). */
  setUserGroup(groupId: string, members: string[]): void;
  /**
   * A person approves the app on Slack's consent page for `workspace`: returns the `code` Slack
   * puts in the redirect, which oauth.v2.access exchanges (once) for a new bot token of that workspace.
   */
  approveInstall(workspace: FakeWorkspace): string;
  /** The workspace a bot token belongs to (undefined: unknown or revoked). */
  workspaceOf(token: string | undefined): FakeWorkspace | undefined;
  /** Every bot token of a team stops working (invalid_auth), as after an uninstall. */
  revokeTeam(teamId: string): void;
  /** Waits until `check` holds, polling; throws with `what` after `timeoutMs`. */
  waitFor(check: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  readonly socket: FakeSocketMode | undefined;
  reset(): void;
  close(): Promise<void>;
}

const JSON_FIELDS = new Set([
  'blocks',
  'view',
  'chunks',
  'metadata',
  'prompts',
  'loading_messages',
  'files',
  'attachments',
]);

export async function startFakeSlack(opts: FakeSlackOptions = {}): Promise<FakeSlack> {
  const options = {
    botToken: opts.botToken ?? 'xoxb-fake-bot-token',
    appToken: opts.appToken ?? 'xapp-fake-app-token',
    botUserId: opts.botUserId ?? 'U0FAKEBOT',
    botId: opts.botId ?? 'B0FAKEBOT',
    teamId: opts.teamId ?? 'T0FAKETEAM',
    clientId: opts.clientId ?? '1111.2222',
    clientSecret: opts.clientSecret ?? 'fake-client-secret',
  };
  /** Valid bot tokens and their workspaces; the single-token workspace from the options is one of them. */
  const tokens = new Map<string, FakeWorkspace>([
    [
      options.botToken,
      {
        teamId: options.teamId,
        teamName: 'Fake Team',
        botUserId: options.botUserId,
        botId: options.botId,
        installerUserId: 'U0INSTALLER',
      },
    ],
  ]);
  const codes = new Map<string, FakeWorkspace>();
  const calls: SlackCall[] = [];
  const messages: FakeMessage[] = [];
  const responses: { path: string; body: Record<string, unknown> }[] = [];
  const uploads: { fileId: string; bytes: number }[] = [];
  const pendingUploads = new Map<string, { filename: string; length: number }>();
  const failures = new Map<string, FakeFailure[]>();
  const blockedChannels = new Set<string>();
  const users = new Map<string, Record<string, unknown>>();
  const userGroups = new Map<string, string[]>();
  const delays = new Map<string, number>();
  let streamingDisabled = false;
  let limits = { ...SLACK_FAKE_LIMITS };
  let seq = 0;
  // Like Slack's: the current unix second, made unique by a counter.
  const nextTs = () => `${Math.floor(Date.now() / 1000)}.${String(++seq % 1_000_000).padStart(6, '0')}`;

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => send(res, 500, { ok: false, error: `fake_bug: ${String(err)}` }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  const socket = opts.socketMode ? attachSocketMode(server, origin) : undefined;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const raw = await readBody(req);
    if (path === '/__fake/stats') {
      const methods: Record<string, number> = {};
      for (const c of calls) methods[c.method] = (methods[c.method] ?? 0) + 1;
      return send(res, 200, { calls: calls.length, messages: messages.length, methods });
    }
    if (path.startsWith('/hooks/')) {
      responses.push({ path, body: JSON.parse(raw.toString('utf8') || '{}') as Record<string, unknown> });
      return send(res, 200, 'ok');
    }
    if (path.startsWith('/upload/')) {
      const fileId = path.slice('/upload/'.length);
      if (!pendingUploads.has(fileId)) return send(res, 404, 'unknown upload');
      uploads.push({ fileId, bytes: raw.byteLength });
      return send(res, 200, 'OK - 200');
    }
    if (!path.startsWith('/api/')) return send(res, 404, { ok: false, error: 'unknown_url' });
    const method = path.slice('/api/'.length);
    const args = parseArgs(req.headers['content-type'], raw);
    const token =
      /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1] ??
      (typeof args.token === 'string' ? args.token : undefined);
    calls.push({ method, args, token, at: performance.now() });
    const delay = delays.get(method);
    if (delay !== undefined) {
      delays.delete(method);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }

    const failure = failures.get(method)?.shift();
    if (failure) {
      if ('status' in failure)
        return send(res, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(failure.retryAfter) });
      return send(res, 200, { ok: false, error: failure.error });
    }
    if (method === 'oauth.v2.access') return send(res, 200, exchange(args, req.headers.authorization));
    if (!token) return send(res, 200, { ok: false, error: 'not_authed' });
    const valid = method === 'apps.connections.open' ? token === options.appToken : tokens.has(token);
    if (!valid) return send(res, 200, { ok: false, error: 'invalid_auth' });
    send(res, 200, route(method, args, tokens.get(token)));
  }

  /** oauth.v2.access: client credentials (form fields or HTTP Basic) and a one-time code → a bot token. */
  function exchange(a: Record<string, unknown>, authorization: string | undefined): Record<string, unknown> {
    const basic = /^Basic\s+(\S+)$/i.exec(authorization ?? '')?.[1];
    const [id, secret] = basic
      ? Buffer.from(basic, 'base64').toString('utf8').split(':')
      : [a.client_id, a.client_secret];
    if (id !== options.clientId) return { ok: false, error: 'invalid_client_id' };
    if (secret !== options.clientSecret) return { ok: false, error: 'bad_client_secret' };
    const ws = codes.get(String(a.code ?? ''));
    if (!ws) return { ok: false, error: 'invalid_code' };
    codes.delete(String(a.code));
    const token = `xoxb-${ws.teamId ?? ws.enterpriseId}-${String(++seq)}-fake`;
    tokens.set(token, ws);
    return {
      ok: true,
      access_token: token,
      token_type: 'bot',
      scope:
        'app_mentions:read,assistant:write,channels:history,groups:history,im:history,chat:write,commands,files:write,users:read',
      bot_user_id: ws.botUserId,
      app_id: 'A0FAKEAPP',
      team: ws.isEnterpriseInstall ? null : { id: ws.teamId, name: ws.teamName },
      enterprise: ws.enterpriseId ? { id: ws.enterpriseId, name: ws.enterpriseName ?? 'Fake Org' } : null,
      authed_user: { id: ws.installerUserId },
      is_enterprise_install: ws.isEnterpriseInstall ?? false,
    };
  }

  function route(method: string, a: Record<string, unknown>, ws: FakeWorkspace | undefined): Record<string, unknown> {
    const channel = String(a.channel ?? a.channel_id ?? '');
    const needsChannel = () => (blockedChannels.has(channel) ? { ok: false, error: 'not_in_channel' } : undefined);
    const store = (m: Parameters<typeof storeAs>[1]) => storeAs(ws, m);
    switch (method) {
      case 'auth.test':
        return {
          ok: true,
          url: 'https://fake.slack.test/',
          team: ws?.teamName ?? 'Fake Team',
          user: 'switchboard',
          team_id: ws?.teamId ?? options.teamId,
          user_id: ws?.botUserId ?? options.botUserId,
          bot_id: ws?.botId ?? options.botId,
          ...(ws?.enterpriseId ? { enterprise_id: ws.enterpriseId } : {}),
          is_enterprise_install: ws?.isEnterpriseInstall ?? false,
        };
      case 'apps.connections.open':
        if (!socket) return { ok: false, error: 'socket_mode_not_enabled' };
        return { ok: true, url: socket.nextUrl() };
      case 'chat.postMessage': {
        if (!channel) return { ok: false, error: 'channel_not_found' };
        if (!a.text && !a.blocks) return { ok: false, error: 'no_text' };
        if (markdownChars(a.blocks) > limits.markdownPerMessage) return { ok: false, error: 'msg_too_long' };
        const blocked = needsChannel();
        if (blocked) return blocked;
        const m = store({
          channel,
          text: String(a.text ?? ''),
          blocks: a.blocks as unknown[] | undefined,
          thread_ts: str(a.thread_ts),
          metadata: a.metadata,
        });
        return { ok: true, channel, ts: m.ts, message: m };
      }
      case 'chat.update': {
        const m = messages.find((x) => x.channel === channel && x.ts === a.ts);
        if (!m) return { ok: false, error: 'message_not_found' };
        if (m.stream?.state === 'in_progress') return { ok: false, error: 'cant_update_message' };
        if (markdownChars(a.blocks) > limits.markdownPerMessage) return { ok: false, error: 'msg_too_long' };
        m.text = String(a.text ?? m.text);
        if (a.blocks !== undefined) m.blocks = a.blocks as unknown[];
        if (a.metadata !== undefined) m.metadata = a.metadata;
        m.updates += 1;
        return { ok: true, channel, ts: m.ts, text: m.text };
      }
      case 'chat.delete': {
        const i = messages.findIndex((x) => x.channel === channel && x.ts === a.ts);
        if (i < 0) return { ok: false, error: 'message_not_found' };
        messages.splice(i, 1);
        return { ok: true, channel, ts: a.ts };
      }
      case 'chat.startStream': {
        if (streamingDisabled) return { ok: false, error: 'unknown_method' };
        if (!a.thread_ts) return { ok: false, error: 'invalid_arguments' };
        if (!channel.startsWith('D') && (!a.recipient_user_id || !a.recipient_team_id))
          return { ok: false, error: 'invalid_arguments' };
        const blocked = needsChannel();
        if (blocked) return blocked;
        if (streamedChars(a) > limits.streamMaxChars) return { ok: false, error: 'msg_too_long' };
        const m = store({ channel, text: '', thread_ts: str(a.thread_ts) });
        m.stream = { state: 'in_progress', markdown: '', chunks: [], startedAt: Date.now() };
        appendToStream(m, a);
        return { ok: true, channel, ts: m.ts };
      }
      case 'chat.appendStream':
      case 'chat.stopStream': {
        const m = messages.find((x) => x.channel === channel && x.ts === a.ts);
        if (!m?.stream) return { ok: false, error: 'message_not_found' };
        // Slack ends a stream past its lifetime: what it streamed stays, nothing more is taken.
        if (Date.now() - m.stream.startedAt > limits.streamLifetimeMs) m.stream.state = 'completed';
        if (m.stream.state !== 'in_progress') return { ok: false, error: 'message_not_in_streaming_state' };
        if (m.stream.markdown.length + streamedChars(a) > limits.streamMaxChars)
          return { ok: false, error: 'msg_too_long' };
        appendToStream(m, a);
        if (method === 'chat.stopStream') {
          m.stream.state = 'completed';
          if (a.blocks !== undefined) m.blocks = a.blocks as unknown[];
          if (a.metadata !== undefined) m.metadata = a.metadata;
        }
        return { ok: true, channel, ts: m.ts };
      }
      case 'assistant.threads.setStatus':
      case 'assistant.threads.setTitle':
        return a.channel_id && a.thread_ts ? { ok: true } : { ok: false, error: 'invalid_arguments' };
      // An agent_view app sets the prompts of its DM (no thread_ts); an assistant_view app, of a thread.
      case 'assistant.threads.setSuggestedPrompts':
        return a.channel_id && a.prompts ? { ok: true } : { ok: false, error: 'invalid_arguments' };
      case 'conversations.replies':
        return needsChannel() ?? repliesPage(messages, a);
      case 'files.getUploadURLExternal': {
        const fileId = `F${String(++seq).padStart(8, '0')}`;
        pendingUploads.set(fileId, { filename: String(a.filename), length: Number(a.length) });
        return { ok: true, upload_url: `${origin}/upload/${fileId}`, file_id: fileId };
      }
      case 'files.completeUploadExternal': {
        const files = (a.files as { id: string; title?: string }[] | undefined) ?? [];
        if (!files.every((f) => uploads.some((u) => u.fileId === f.id)))
          return { ok: false, error: 'file_upload_not_finished' };
        const blocked = needsChannel();
        if (blocked) return blocked;
        return {
          ok: true,
          files: files.map((f) => ({ id: f.id, title: f.title, name: pendingUploads.get(f.id)?.filename })),
        };
      }
      case 'views.publish': {
        // Slack's checks: a user id, a view of type home (the Home tab) with a blocks array, at most 100 blocks.
        const view = (typeof a.view === 'string' ? JSON.parse(a.view) : a.view) as
          { type?: string; blocks?: unknown[] } | undefined;
        if (!/^[UW][A-Z0-9]+$/.test(String(a.user_id ?? ''))) return { ok: false, error: 'invalid_arguments' };
        if (!view || view.type !== 'home' || !Array.isArray(view.blocks) || view.blocks.length > 100)
          return { ok: false, error: 'invalid_arguments' };
        return { ok: true, view: { id: `V${String(++seq)}`, type: 'home', blocks: view.blocks } };
      }
      case 'views.open': {
        // Slack's checks: a trigger_id (from a click, valid 3 s) and a modal with 1–100 blocks.
        const view = (typeof a.view === 'string' ? JSON.parse(a.view) : a.view) as
          { type?: string; blocks?: unknown[] } | undefined;
        if (!String(a.trigger_id ?? '')) return { ok: false, error: 'invalid_trigger_id' };
        if (!view || view.type !== 'modal' || !Array.isArray(view.blocks) || view.blocks.length > 100)
          return { ok: false, error: 'invalid_arguments' };
        return { ok: true, view: { ...view, id: `V${String(++seq)}` } };
      }
      case 'usergroups.users.list': {
        const members = userGroups.get(String(a.usergroup ?? ''));
        return members ? { ok: true, users: members } : { ok: false, error: 'no_such_subteam' };
      }
      case 'users.info': {
        const id = String(a.user ?? '');
        if (!/^[UW][A-Z0-9]+$/.test(id)) return { ok: false, error: 'user_not_found' };
        // The fields Slack documents for users.info; guests carry is_restricted / is_ultra_restricted.
        return {
          ok: true,
          user: {
            id,
            team_id: ws?.teamId ?? options.teamId,
            name: id.toLowerCase(),
            real_name: `Person ${id}`,
            profile: { display_name: '', real_name: `Person ${id}` },
            deleted: false,
            is_bot: false,
            is_admin: false,
            is_owner: false,
            is_restricted: false,
            is_ultra_restricted: false,
            ...users.get(id),
          },
        };
      }
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }

  function storeAs(
    ws: FakeWorkspace | undefined,
    m: { channel: string; text: string; blocks?: unknown[]; thread_ts?: string; metadata?: unknown },
  ): FakeMessage {
    const message: FakeMessage = {
      ts: nextTs(),
      user: ws?.botUserId ?? options.botUserId,
      bot_id: ws?.botId ?? options.botId,
      updates: 0,
      ...m,
    };
    messages.push(message);
    return message;
  }

  function appendToStream(m: FakeMessage, a: Record<string, unknown>): void {
    const stream = m.stream!;
    if (typeof a.markdown_text === 'string') stream.markdown += a.markdown_text;
    for (const chunk of (a.chunks as Record<string, unknown>[] | undefined) ?? []) {
      stream.chunks.push(chunk);
      if (chunk.type === 'markdown_text') stream.markdown += String(chunk.text ?? '');
    }
    m.text = stream.markdown;
  }

  return {
    url: `${origin}/api/`,
    origin,
    options,
    calls,
    callsTo: (method) => calls.filter((c) => c.method === method),
    messages,
    threadReplies: (channel, threadTs) =>
      messages.filter((m) => m.channel === channel && (m.thread_ts === threadTs || m.ts === threadTs)),
    responses,
    responseUrl: () => `${origin}/hooks/commands/${options.teamId}/${++seq}/fake`,
    uploads,
    post(p) {
      const message: FakeMessage = {
        ts: p.ts ?? nextTs(),
        channel: p.channel,
        user: p.user ?? '',
        bot_id: p.botId ?? '',
        text: p.text,
        updates: 0,
        ...(p.thread_ts ? { thread_ts: p.thread_ts } : {}),
        ...(p.botId ? { subtype: 'bot_message', bot_profile: { name: p.botName ?? 'Some App' } } : {}),
        ...(p.files ? { files: p.files } : {}),
        ...(p.edited ? { edited: { user: p.user ?? '', ts: nextTs() } } : {}),
      };
      messages.push(message);
      return message;
    },
    delayNext(method, ms) {
      delays.set(method, ms);
    },
    failNext(method, failure, count = 1) {
      failures.set(method, [...(failures.get(method) ?? []), ...Array.from({ length: count }, () => failure)]);
    },
    disableStreaming(disabled = true) {
      streamingDisabled = disabled;
    },
    setLimits(l) {
      limits = { ...limits, ...l };
    },
    approveInstall(workspace) {
      const code = `code-${String(++seq)}-${Math.random().toString(36).slice(2)}`;
      codes.set(code, workspace);
      return code;
    },
    workspaceOf: (token) => (token ? tokens.get(token) : undefined),
    revokeTeam(teamId) {
      for (const [token, ws] of tokens) if (ws.teamId === teamId) tokens.delete(token);
    },
    setUser(userId, fields) {
      users.set(userId, fields);
    },
    setUserGroup(groupId, members) {
      userGroups.set(groupId, [...members]);
    },
    notInChannel(channel) {
      blockedChannels.add(channel);
    },
    async waitFor(check, what, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (!check()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    socket,
    reset() {
      calls.length = 0;
      messages.length = 0;
      responses.length = 0;
      uploads.length = 0;
      failures.clear();
      blockedChannels.clear();
      users.clear();
      userGroups.clear();
      delays.clear();
      streamingDisabled = false;
      limits = { ...SLACK_FAKE_LIMITS };
    },
    close: () =>
      new Promise<void>((resolve) => {
        socket?.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function parseArgs(contentType: string | undefined, raw: Buffer): Record<string, unknown> {
  const text = raw.toString('utf8');
  if (contentType?.includes('application/json')) return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) out[key] = JSON_FIELDS.has(key) ? JSON.parse(value) : value;
  return out;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const json = typeof body !== 'string';
  res.writeHead(status, { 'content-type': json ? 'application/json; charset=utf-8' : 'text/plain', ...headers });
  res.end(json ? JSON.stringify(body) : body);
}

/** The markdown an append or start carries (its markdown_text and markdown chunks). */
function streamedChars(a: Record<string, unknown>): number {
  const chunks = (a.chunks as Record<string, unknown>[] | undefined) ?? [];
  const inChunks = chunks.reduce((n, c) => n + (c.type === 'markdown_text' ? String(c.text ?? '').length : 0), 0);
  return (typeof a.markdown_text === 'string' ? a.markdown_text.length : 0) + inChunks;
}

/** Characters in a message's markdown blocks (Slack's limit is cumulative over them). */
function markdownChars(blocks: unknown): number {
  if (!Array.isArray(blocks)) return 0;
  return (blocks as { type?: unknown; text?: unknown }[]).reduce(
    (n, b) => n + (b.type === 'markdown' && typeof b.text === 'string' ? b.text.length : 0),
    0,
  );
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v ? v : undefined;
}
