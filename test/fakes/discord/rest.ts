/**
 * The fake Discord REST API under `/api/v10`: the routes a bot uses (gateway/bot, users/@me,
 * channel messages, typing, threads from messages, interaction callbacks, the interaction
 * webhook's original and follow-up messages, command registration). JSON or multipart
 * bodies; every call is recorded and checked against Discord's OpenAPI spec, and an invalid
 * one is refused as Discord refuses it (400, code 50035).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { InteractionResponseType, InteractionType, MessageFlags, MessageType, type APIMessage } from 'discord.js';
import { checkMessageLimits } from './limits.js';
import { specValidator } from './openapi.js';
import { snowflake } from './payloads.js';
import type { InteractionRecord, World } from './world.js';

export interface RecordedFile {
  field: string;
  name: string;
  size: number;
  contentType: string;
}

export interface RecordedCall {
  method: string;
  /** Without the `/api/v10` prefix or query, e.g. `/channels/123/messages`. */
  path: string;
  query: URLSearchParams;
  kind: 'json' | 'multipart' | 'none';
  body: Record<string, unknown> | undefined;
  files: RecordedFile[];
  /** performance.now() when the request arrived. */
  at: number;
  status: number;
  response: unknown;
  /** Why the spec (or a Discord limit) refuses the body; empty when it is valid. */
  problems: string[];
  /** Why our response does not match the spec's response schema (a bug in the fake). */
  responseProblems: string[];
}

export interface RestOptions {
  /** Interactions not acknowledged within this time are unknown (Discord: 3 s). */
  ackDeadlineMs: number;
  /** Interaction webhook tokens expire after this (Discord: 15 min). */
  tokenLifetimeMs: number;
  canCreateThreads: boolean;
  gatewayUrl: string;
  /** What GET /gateway/bot recommends: the shard count and the identify concurrency. */
  recommendedShards: number;
  maxConcurrency: number;
  /**
   * Discord's edit rate limit (5 edits of a channel's messages per 5 s): an edit past it answers
   * 429 with `retry_after` and Discord's rate-limit headers. Undefined: not enforced.
   */
  editRateLimit?: { edits: number; perMs: number };
}

/** An error Discord answers with (e.g. 403, 50001 "Missing Access"; 403, 50013 "Missing Permissions"). */
export interface RestFailure {
  status: number;
  code: number;
  message: string;
}

type Reply = { status: number; body?: unknown; headers?: Record<string, string> };
const error = (status: number, code: number, message: string, errors?: unknown): Reply => ({
  status,
  body: { code, message, ...(errors ? { errors } : {}) },
});
const UNKNOWN_ROUTE = error(404, 0, '404: Not Found');

export function createRestHandler(world: World, calls: RecordedCall[], opts: RestOptions) {
  const spec = specValidator();
  /** Messages created with `enforce_nonce`, by channel and nonce (Discord remembers them "for a few minutes"). */
  const nonces = new Map<string, { id: string; at: number }>();
  const NONCE_WINDOW_MS = 5 * 60_000;
  /** Reads of messages (GET …/messages, GET …/messages/{id}) answered with these, in turn; then a delay. */
  const readFailures: Reply[] = [];
  let readDelayMs = 0;
  const isRead = (method: string, path: string) => method === 'GET' && /^\/channels\/\d+\/messages/.test(path);
  /** Accepted edits by channel (or interaction webhook), for the edit rate limit. */
  const edits = new Map<string, number[]>();
  function rateLimited(method: string, path: string, at: number): Reply | undefined {
    const limit = opts.editRateLimit;
    const bucket =
      /^\/channels\/(\d+)\/messages\/\d+$/.exec(path)?.[1] ?? /^\/webhooks\/\d+\/([^/]+)\/messages\//.exec(path)?.[1];
    if (!limit || method !== 'PATCH' || !bucket) return undefined;
    const recent = (edits.get(bucket) ?? []).filter((t) => at - t < limit.perMs);
    edits.set(bucket, recent);
    if (recent.length < limit.edits) return void recent.push(at);
    const seconds = Math.max(0.001, (recent[0]! + limit.perMs - at) / 1000).toFixed(3);
    return {
      status: 429,
      body: { message: 'You are being rate limited.', retry_after: Number(seconds), global: false },
      headers: {
        'retry-after': seconds,
        'x-ratelimit-limit': String(limit.edits),
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset-after': seconds,
        'x-ratelimit-scope': 'user',
      },
    };
  }

  const handle = async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = performance.now();
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = decodeURIComponent(url.pathname).replace(/^\/api\/v10/, '');
    const method = req.method ?? 'GET';
    const { kind, body, files } = await readBody(req);
    const call: RecordedCall = {
      method,
      path,
      query: url.searchParams,
      kind,
      body,
      files,
      at,
      status: 0,
      response: undefined,
      problems: [],
      responseProblems: [],
    };
    calls.push(call);
    if (body !== undefined) {
      const checked =
        kind === 'multipart' ? { ...body, ...Object.fromEntries(files.map((f) => [f.field, '<binary>'])) } : body;
      call.problems = [
        ...spec.checkRequest(method, path, checked, kind === 'multipart' ? 'multipart' : 'json'),
        ...checkMessageLimits(path, body),
      ];
    }
    if (isRead(method, path) && readDelayMs > 0) {
      const ms = readDelayMs;
      readDelayMs = 0;
      await new Promise((resolve) => setTimeout(resolve, ms));
    }
    const failed =
      refused(method, path) ?? (isRead(method, path) ? readFailures.shift() : rateLimited(method, path, at));
    const reply: Reply = failed
      ? failed
      : call.problems.length > 0
        ? error(400, 50035, 'Invalid Form Body', call.problems)
        : route(method, path, url.searchParams, req.headers.authorization, body ?? {}, files, at);
    call.status = reply.status;
    call.response = reply.body;
    if (reply.status < 300) call.responseProblems = spec.checkResponse(method, path, reply.status, reply.body);
    res.writeHead(reply.status, {
      ...(reply.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...reply.headers,
    });
    res.end(reply.body === undefined ? undefined : JSON.stringify(reply.body));
  };
  /** The interactions endpoint's HTTP response, taken as the callback (HTTP interactions). */
  const acknowledge = (id: string, token: string, body: Record<string, unknown>, at: number) =>
    callback(id, token, body, [], at);
  /** The next read of messages fails as Discord fails it (403 Missing Access 50001, 429…). */
  const failNextRead = (status: number, code: number, message: string) =>
    void readFailures.push(
      status === 429
        ? { status, body: { message, retry_after: 0.01, global: false, code } }
        : error(status, code, message),
    );
  const delayNextRead = (ms: number) => void (readDelayMs = ms);
  /** Calls refused as Discord refuses them (`failNext`): method, path, the error, how many more times. */
  const refusals: { method: string; path: RegExp; reply: Reply; left: number }[] = [];
  const refused = (method: string, path: string): Reply | undefined => {
    const r = refusals.find((f) => f.left > 0 && f.method === method && f.path.test(path));
    if (r) r.left--;
    return r?.reply;
  };
  const failNext = (method: string, path: RegExp, failure: RestFailure, times = 1) => {
    const r = { method, path, reply: error(failure.status, failure.code, failure.message), left: times };
    refusals.push(r);
    return () => void (r.left = 0);
  };
  return Object.assign(handle, { acknowledge, failNextRead, delayNextRead, failNext });

  function route(
    method: string,
    path: string,
    query: URLSearchParams,
    auth: string | undefined,
    body: Record<string, unknown>,
    files: RecordedFile[],
    at: number,
  ): Reply {
    const seg = path.split('/').slice(1);
    // Interaction callbacks and webhooks authenticate by their token in the URL.
    if (seg[0] === 'interactions' && seg[3] === 'callback' && method === 'POST')
      return callback(seg[1]!, seg[2]!, body, files, at);
    if (seg[0] === 'webhooks') return webhook(method, seg, query, body, files, at);
    if (auth !== `Bot ${world.token}`) return error(401, 0, '401: Unauthorized');

    const key = `${method} /${seg.map((s) => (/^\d{15,}$/.test(s) ? ':id' : s)).join('/')}`;
    switch (key) {
      case 'GET /gateway/bot':
        return {
          status: 200,
          body: {
            url: opts.gatewayUrl,
            shards: opts.recommendedShards,
            session_start_limit: {
              total: 1000,
              remaining: 999,
              reset_after: 14_400_000,
              max_concurrency: opts.maxConcurrency,
            },
          },
        };
      case 'GET /guilds/:id':
        return world.guildIds.includes(seg[1]!)
          ? { status: 200, body: world.guild(seg[1]!) }
          : error(404, 10004, 'Unknown Guild');
      case 'GET /users/@me':
        return {
          status: 200,
          body: { ...world.bot, mfa_enabled: true, verified: true, locale: 'en-US', premium_type: 0 },
        };
      case 'GET /channels/:id':
        return world.channels.has(seg[1]!)
          ? { status: 200, body: world.channels.get(seg[1]!) }
          : error(404, 10003, 'Unknown Channel');
      case 'POST /channels/:id/messages': {
        if (!world.channels.has(seg[1]!)) return error(404, 10003, 'Unknown Channel');
        const nonceKey =
          body.enforce_nonce && body.nonce !== undefined && body.nonce !== null
            ? `${seg[1]}:${String(body.nonce)}`
            : undefined;
        const seen = nonceKey ? nonces.get(nonceKey) : undefined;
        // The same author, the same nonce, within the window: the existing message, nothing new.
        if (seen && at - seen.at < NONCE_WINDOW_MS && world.messages.has(seen.id))
          return { status: 200, body: world.messages.get(seen.id) };
        const reference = body.message_reference as { message_id: string } | undefined;
        const m = world.createMessage({
          channelId: seg[1]!,
          author: world.bot,
          ...messageFields(body, files, []),
          ...(reference
            ? {
                type: MessageType.Reply,
                messageReference: {
                  message_id: reference.message_id,
                  channel_id: seg[1]!,
                  guild_id: world.guildOf(seg[1]!),
                },
              }
            : {}),
        });
        if (nonceKey) nonces.set(nonceKey, { id: m.id, at });
        return { status: 200, body: { ...m, ...(body.nonce !== undefined ? { nonce: body.nonce } : {}) } };
      }
      case 'GET /channels/:id/messages': {
        if (!world.channels.has(seg[1]!)) return error(404, 10003, 'Unknown Channel');
        // Newest first, as Discord lists them; `before`/`after` by snowflake, `limit` 1–100 (default 50).
        const limit = Math.min(100, Math.max(1, Number(query.get('limit') ?? 50)));
        const before = query.get('before');
        const after = query.get('after');
        const list = [...world.messages.values()]
          .filter((m) => m.channel_id === seg[1] && ((m.flags ?? 0) & MessageFlags.Ephemeral) === 0)
          .filter((m) => (!before || BigInt(m.id) < BigInt(before)) && (!after || BigInt(m.id) > BigInt(after)))
          .sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
        return { status: 200, body: after && !before ? list.slice(-limit) : list.slice(0, limit) };
      }
      case 'GET /channels/:id/messages/:id': {
        const m = world.messages.get(seg[3]!);
        if (!m || m.channel_id !== seg[1]) return error(404, 10008, 'Unknown Message');
        return { status: 200, body: m };
      }
      case 'PATCH /channels/:id/messages/:id': {
        const m = world.messages.get(seg[3]!);
        if (!m || m.channel_id !== seg[1]) return error(404, 10008, 'Unknown Message');
        if (m.author.id !== world.bot.id || m.webhook_id)
          return error(403, 50005, 'Cannot edit a message authored by another user');
        return { status: 200, body: world.editMessage(m.id, messageFields(body, files, m.attachments)) };
      }
      case 'DELETE /channels/:id/messages/:id':
        if (!world.messages.has(seg[3]!)) return error(404, 10008, 'Unknown Message');
        world.deleteMessage(seg[3]!);
        return { status: 204 };
      case 'POST /channels/:id/typing':
        return world.channels.has(seg[1]!) ? { status: 204 } : error(404, 10003, 'Unknown Channel');
      case 'POST /channels/:id/messages/:id/threads': {
        const parent = world.channels.get(seg[1]!);
        if (!parent || !world.messages.has(seg[3]!)) return error(404, 10008, 'Unknown Message');
        if (world.channels.has(seg[3]!))
          return error(400, 160004, 'A thread has already been created for this message');
        if (!opts.canCreateThreads) return error(403, 50013, 'Missing Permissions');
        return { status: 201, body: world.createThread(parent.id, seg[3]!, String(body.name)) };
      }
      case 'PUT /applications/:id/commands':
      case 'PUT /applications/:id/guilds/:id/commands': {
        if (seg[1] !== world.applicationId) return error(404, 10002, 'Unknown Application');
        const saved = (Array.isArray(body) ? body : Object.values(body)).map((c) =>
          savedCommand(c as Record<string, unknown>, world.applicationId, seg[3]),
        );
        if (seg[3]) world.commands.guild.set(seg[3], saved);
        else world.commands.global = saved;
        return { status: 200, body: saved };
      }
      default:
        return UNKNOWN_ROUTE;
    }
  }

  function callback(
    id: string,
    token: string,
    body: Record<string, unknown>,
    files: RecordedFile[],
    at: number,
  ): Reply {
    const it = world.interactions.get(token);
    if (!it || it.payload.id !== id || at - it.dispatchedAt > opts.ackDeadlineMs)
      return error(404, 10062, 'Unknown interaction');
    if (it.callback) return error(400, 40060, 'Interaction has already been acknowledged.');
    const type = Number(body.type);
    it.callback = { type, at };
    const data = (body.data ?? {}) as Record<string, unknown>;
    if (
      type === InteractionResponseType.DeferredChannelMessageWithSource ||
      type === InteractionResponseType.ChannelMessageWithSource
    ) {
      const deferred = type === InteractionResponseType.DeferredChannelMessageWithSource;
      const flags =
        (Number(data.flags ?? 0) & (MessageFlags.Ephemeral | MessageFlags.SuppressEmbeds)) |
        (deferred ? MessageFlags.Loading : 0);
      const m = world.createMessage({
        ...interactionMessage(it),
        ...(deferred ? {} : messageFields(data, files, [])),
        flags,
      });
      it.originalId = m.id;
      it.messageIds.add(m.id);
    } else if (
      type === InteractionResponseType.DeferredMessageUpdate ||
      type === InteractionResponseType.UpdateMessage
    ) {
      if (!('message' in it.payload)) return error(400, 40043, 'This interaction type cannot update a message');
      it.originalId = it.payload.message.id;
      it.messageIds.add(it.originalId);
      if (type === InteractionResponseType.UpdateMessage)
        world.editMessage(it.originalId, messageFields(data, files, []));
    } else if (type === InteractionResponseType.ApplicationCommandAutocompleteResult) {
      if (it.payload.type !== InteractionType.ApplicationCommandAutocomplete)
        return error(400, 50035, 'Invalid Form Body', ['autocomplete results answer autocomplete only']);
      it.choices = (data.choices ?? []) as unknown[];
    } else if (type === InteractionResponseType.Modal) {
      // Discord's rules: not in answer to a modal submit or an autocomplete; a custom_id, a title of
      // at most 45 characters and 1–5 rows of text inputs.
      if (
        it.payload.type === InteractionType.ModalSubmit ||
        it.payload.type === InteractionType.ApplicationCommandAutocomplete
      )
        return error(400, 50035, 'Invalid Form Body', ['a modal cannot answer this interaction']);
      const rows = Array.isArray(data.components) ? (data.components as { components?: { type?: number }[] }[]) : [];
      const problems = [
        ...(typeof data.custom_id === 'string' && data.custom_id.length <= 100 ? [] : ['custom_id']),
        ...(typeof data.title === 'string' && data.title.length > 0 && data.title.length <= 45 ? [] : ['title']),
        ...(rows.length >= 1 && rows.length <= 5 && rows.every((r) => r.components?.every((c) => c.type === 4))
          ? []
          : ['components']),
      ];
      if (problems.length) return error(400, 50035, 'Invalid Form Body', problems);
      it.modal = data as unknown as NonNullable<typeof it.modal>;
    } else {
      return error(400, 50035, 'Invalid Form Body', [`unsupported callback type ${type}`]);
    }
    return { status: 204 };
  }

  function webhook(
    method: string,
    seg: string[],
    query: URLSearchParams,
    body: Record<string, unknown>,
    files: RecordedFile[],
    at: number,
  ): Reply {
    const [, appId, token, sub, messageId] = seg;
    const it = world.interactions.get(token ?? '');
    if (!it || at - it.dispatchedAt > opts.tokenLifetimeMs) return error(401, 50027, 'Invalid Webhook Token');
    if (appId !== world.applicationId) return error(404, 10015, 'Unknown Webhook');
    if (!it.callback) return error(404, 10015, 'Unknown Webhook');
    if (sub === undefined && method === 'POST') {
      const flags = Number(body.flags ?? 0) & (MessageFlags.Ephemeral | MessageFlags.SuppressEmbeds);
      const m = world.createMessage({ ...interactionMessage(it), ...messageFields(body, files, []), flags });
      it.messageIds.add(m.id);
      return query.get('wait') === 'true' ? { status: 200, body: m } : { status: 204 };
    }
    if (sub !== 'messages' || !messageId) return UNKNOWN_ROUTE;
    const target = messageId === '@original' ? it.originalId : messageId;
    const m = target ? world.messages.get(target) : undefined;
    if (!m || !it.messageIds.has(m.id)) return error(404, 10008, 'Unknown Message');
    if (method === 'GET') return { status: 200, body: m };
    if (method === 'DELETE') {
      world.deleteMessage(m.id);
      return { status: 204 };
    }
    if (method === 'PATCH') {
      const patch = messageFields(body, files, m.attachments);
      return {
        status: 200,
        body: world.editMessage(m.id, {
          ...patch,
          flags: ((m.flags ?? 0) | (patch.flags ?? 0)) & ~MessageFlags.Loading,
        }),
      };
    }
    return UNKNOWN_ROUTE;
  }

  /** The author, metadata and type Discord gives a message sent through an interaction. */
  function interactionMessage(it: InteractionRecord) {
    const p = it.payload;
    const by = 'member' in p && p.member ? p.member.user : (p as { user: typeof world.bot }).user;
    const command = p.data && 'name' in p.data ? p.data.name : undefined;
    return {
      channelId: p.channel_id,
      author: world.bot,
      webhookId: world.applicationId,
      applicationId: world.applicationId,
      type: command && it.messageIds.size === 0 ? MessageType.ChatInputCommand : MessageType.Default,
      interactionMetadata: {
        id: p.id,
        type: p.type,
        user: by,
        authorizing_integration_owners: p.authorizing_integration_owners,
        ...(command
          ? { name: command, command_type: 1 }
          : { interacted_message_id: (p as { message?: APIMessage }).message?.id }),
      },
    };
  }
}

/** The message fields a create or edit body sets; new files become attachments. */
function messageFields(body: Record<string, unknown>, files: RecordedFile[], existing: APIMessage['attachments']) {
  const out: Partial<APIMessage> & Record<string, unknown> = {};
  if (body.content !== undefined && body.content !== null) out.content = String(body.content);
  // SUPPRESS_EMBEDS is the one flag a sender may set on a message it creates or edits (kept as sent).
  if (body.flags !== undefined && body.flags !== null) out.flags = Number(body.flags) & MessageFlags.SuppressEmbeds;
  // Discord stores sent embeds as `rich` ones.
  if (body.embeds !== undefined && body.embeds !== null)
    out.embeds = (body.embeds as object[]).map((e) => ({ type: 'rich', ...e })) as APIMessage['embeds'];
  if (body.components !== undefined && body.components !== null)
    out.components = numberComponents(body.components as Component[]) as unknown as APIMessage['components'];
  const declared = body.attachments as { id: string; description?: string }[] | undefined;
  if (declared || files.length > 0) {
    const kept = declared ? existing.filter((a) => declared.some((d) => d.id === a.id)) : existing;
    const added = files.map((f, i) => {
      const id = snowflake();
      const description = declared?.find((d) => d.id === String(i))?.description;
      return {
        id,
        filename: f.name,
        size: f.size,
        content_type: f.contentType,
        url: `https://cdn.discordapp.com/attachments/0/${id}/${f.name}`,
        proxy_url: `https://media.discordapp.net/attachments/0/${id}/${f.name}`,
        ...(description ? { description } : {}),
      };
    });
    out.attachments = [...kept, ...added];
  }
  return out;
}

type Component = { id?: number; components?: Component[] } & Record<string, unknown>;

/** Discord numbers a message's components (depth first, from 1) when the sender did not. */
function numberComponents(components: Component[]): Component[] {
  let next = 1;
  const walk = (list: Component[]): Component[] =>
    list.map((c) => ({ ...c, id: c.id ?? next++, ...(c.components ? { components: walk(c.components) } : {}) }));
  return walk(components);
}

function savedCommand(c: Record<string, unknown>, applicationId: string, guildId: string | undefined) {
  return {
    id: snowflake(),
    application_id: applicationId,
    version: snowflake(),
    default_member_permissions: null,
    type: 1,
    description: '',
    ...c,
    ...(guildId ? { guild_id: guildId } : {}),
  };
}

async function readBody(
  req: IncomingMessage,
): Promise<{ kind: RecordedCall['kind']; body: Record<string, unknown> | undefined; files: RecordedFile[] }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const type = req.headers['content-type'] ?? '';
  if (raw.length === 0) return { kind: 'none', body: undefined, files: [] };
  if (type.startsWith('multipart/form-data')) {
    const form = await new Response(raw, { headers: { 'content-type': type } }).formData();
    const files: RecordedFile[] = [];
    let body: Record<string, unknown> = {};
    for (const [field, value] of form.entries()) {
      if (field === 'payload_json') body = JSON.parse(String(value)) as Record<string, unknown>;
      else if (typeof value !== 'string')
        files.push({ field, name: value.name, size: value.size, contentType: value.type });
    }
    return { kind: 'multipart', body, files };
  }
  return { kind: 'json', body: JSON.parse(raw.toString('utf8')) as Record<string, unknown>, files: [] };
}
