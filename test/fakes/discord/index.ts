/**
 * A loopback stand-in for Discord, driven by the real discord.js client:
 *
 *   const discord = await startFakeDiscord();
 *   // DISCORD_TOKEN / DISCORD_APPLICATION_ID / DISCORD_API_URL from discord.env(); start the bot …
 *   await discord.gateway.waitForReady();
 *   const asked = discord.say({ content: 'weather in Oslo?', mention: true });
 *   await discord.waitFor(() => discord.messagesIn(asked.id).at(-1)?.embeds.length, 'the answer');
 *
 * REST lives under `<apiUrl>/v10` (see rest.ts), the gateway at the URL `GET /gateway/bot`
 * returns (see gateway.ts). Users act through `say`, `dm`, `command` and `click`, which
 * dispatch MESSAGE_CREATE and INTERACTION_CREATE as Discord would.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MessageType, type APIMessage, type APIUser } from 'discord.js';
import { attachGateway, type FakeGateway } from './gateway.js';
import { buttonInteraction, chatInputInteraction, snowflake } from './payloads.js';
import { createRestHandler, type RecordedCall, type RestFailure } from './rest.js';
import { createWorld, type InteractionRecord, type World } from './world.js';

export type { RecordedCall, RestFailure } from './rest.js';
export type { InteractionRecord } from './world.js';

export interface FakeDiscordOptions {
  /** Discord forgets an interaction not acknowledged within 3 s. */
  ackDeadlineMs?: number;
  /** Interaction tokens work for 15 minutes. */
  tokenLifetimeMs?: number;
  heartbeatIntervalMs?: number;
  /** False: the app has not enabled the privileged Message Content intent. */
  messageContentAllowed?: boolean;
  /** False: the bot lacks Create Public Threads (thread creation answers 403 Missing Permissions). */
  canCreateThreads?: boolean;
  /** GET /gateway/bot's recommended shard count (default 1) and session_start_limit.max_concurrency (default 1). */
  recommendedShards?: number;
  maxConcurrency?: number;
  /** Enforces Discord's edit rate limit (e.g. 5 edits per 5 s a channel): 429 with retry_after past it. Default: not enforced. */
  editRateLimit?: { edits: number; perMs: number };
}

export type HttpSignature = 'valid' | 'forged' | 'missing' | 'stale';

export interface HttpInteractionResult {
  status: number;
  body: unknown;
  record: InteractionRecord;
  /** How the fake took the response as a callback (its status; 204 when acknowledged). */
  callbackStatus?: number;
}

export interface FakeDiscord {
  /** For DISCORD_API_URL: what discord.js's `rest.api` option takes. */
  readonly apiUrl: string;
  readonly world: World;
  readonly gateway: FakeGateway;
  readonly calls: RecordedCall[];
  /** DISCORD_TOKEN, DISCORD_APPLICATION_ID and DISCORD_API_URL for this fake. */
  env(): Record<string, string>;
  /** A person writes in a guild channel or thread (default #general), optionally mentioning the bot. */
  say(opts: {
    content: string;
    channelId?: string;
    author?: APIUser;
    mention?: boolean;
    mentionRole?: boolean;
    /** A reply to this message (`message_reference`), in the same channel. */
    replyTo?: string;
    /** False: the message is only there to be read later (history), no MESSAGE_CREATE. */
    dispatch?: boolean;
    attachments?: { filename: string; content_type?: string }[];
  }): APIMessage;
  /** The next read of channel messages fails (status, Discord's error code, its message). */
  failNextRead(status: number, code: number, message: string): void;
  /**
   * The next `times` calls of `method` to a path matching `path` (without `/api/v10`, e.g.
   * /^\/channels\/\d+\/messages$/) are refused with Discord's error body `{ code, message }`.
   * Returns a function that lifts what is left of the refusal.
   */
  failNext(method: string, path: RegExp, failure: RestFailure, times?: number): () => void;
  /** The next read of channel messages is answered after `ms`. */
  delayNextRead(ms: number): void;
  /** A person writes to the bot in a DM. */
  dm(content: string, author?: APIUser): APIMessage;
  /** A person runs a slash command in a channel (default #general) or, with `dm: true`, in a DM. */
  command(
    name: string,
    options: Record<string, string>,
    where?: { channelId?: string; dm?: boolean; author?: APIUser },
  ): InteractionRecord;
  /** A person clicks a button (by custom_id) on a message. */
  click(messageId: string, customId: string, author?: APIUser): InteractionRecord;
  /** Dispatches an interaction payload as it is (a test may have changed or dropped its fields). */
  interact(payload: InteractionRecord['payload']): InteractionRecord;
  /** The application's Ed25519 public key (hex), as the Developer Portal shows it: DISCORD_PUBLIC_KEY. */
  readonly publicKey: string;
  /**
   * Discord with an Interactions Endpoint URL: the interaction is POSTed to `url`, signed with the
   * application's key (or `signature: 'forged' | 'missing' | 'stale'`), and the response is taken
   * as its callback, within the acknowledgement deadline.
   */
  overHttp(
    url: string,
    payload: InteractionRecord['payload'],
    signature?: HttpSignature,
  ): Promise<HttpInteractionResult>;
  /** A slash command's payload, for `overHttp`. */
  commandPayload(
    name: string,
    options: Record<string, string>,
    where?: { channelId?: string; dm?: boolean; author?: APIUser },
  ): InteractionRecord['payload'];
  /** A button click's payload, for `overHttp`. */
  clickPayload(messageId: string, customId: string, author?: APIUser): InteractionRecord['payload'];
  /** Messages currently in a channel, oldest first (ephemeral ones included). */
  messagesIn(channelId: string): APIMessage[];
  callsMatching(method: string, pattern: RegExp): RecordedCall[];
  /** Polls `probe` until it returns something truthy. */
  waitFor<T>(probe: () => T | undefined | null | false | 0 | '', label: string, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

export async function startFakeDiscord(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  const token = `MTA${snowflake()}.fake.${snowflake()}`;
  const world = createWorld({ token, applicationId: snowflake() });
  const calls: RecordedCall[] = [];
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 0, message: `fake Discord bug: ${String(err)}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const gateway = attachGateway(server, `ws://127.0.0.1:${port}`, {
    token,
    heartbeatIntervalMs: options.heartbeatIntervalMs,
    messageContentAllowed: options.messageContentAllowed,
    ready: () => ({
      user: world.bot,
      application: { id: world.applicationId, flags: 1 << 19 },
      guilds: world.guildIds.map((id) => ({ id })),
    }),
    guildCreate: (id) => world.guildCreate(id),
  });
  const handle = createRestHandler(world, calls, {
    ackDeadlineMs: options.ackDeadlineMs ?? 3_000,
    tokenLifetimeMs: options.tokenLifetimeMs ?? 15 * 60_000,
    canCreateThreads: options.canCreateThreads ?? true,
    gatewayUrl: gateway.url,
    recommendedShards: options.recommendedShards ?? 1,
    maxConcurrency: options.maxConcurrency ?? 1,
    ...(options.editRateLimit ? { editRateLimit: options.editRateLimit } : {}),
  });
  world.attachGateway(gateway);

  const keys = generateKeyPairSync('ed25519');
  // The raw 32-byte key is the tail of its DER (SPKI) encoding.
  const publicKey = keys.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('hex');
  const forger = generateKeyPairSync('ed25519');

  const commandPayload = (
    name: string,
    opts: Record<string, string>,
    where: { channelId?: string; dm?: boolean; author?: APIUser } = {},
  ) => {
    const author = where.author ?? world.people.alice;
    const channel = where.dm ? world.dmChannelFor(author) : world.channels.get(where.channelId ?? world.general.id)!;
    const guildId = where.dm ? undefined : world.guildOf(channel.id);
    return chatInputInteraction({
      applicationId: world.applicationId,
      channel,
      guildId,
      user: author,
      commandId: snowflake(),
      name,
      options: opts,
    });
  };
  const clickPayload = (messageId: string, customId: string, author: APIUser = world.people.alice) => {
    const target = world.messages.get(messageId);
    if (!target) throw new Error(`no message ${messageId} to click on`);
    const channel = world.channels.get(target.channel_id)!;
    return buttonInteraction({
      applicationId: world.applicationId,
      channel,
      guildId: world.guildOf(channel.id),
      user: author,
      roles: author.id === world.people.alice.id ? [world.memberRoleId] : [],
      message: structuredClone(target),
      customId,
    });
  };

  const interact = (payload: InteractionRecord['payload']): InteractionRecord => {
    const record: InteractionRecord = { payload, dispatchedAt: performance.now(), messageIds: new Set() };
    world.interactions.set(payload.token, record);
    const sent = [...world.dispatch('INTERACTION_CREATE', payload).values()];
    if (sent.length > 0) record.dispatchedAt = Math.min(...sent);
    return record;
  };

  return {
    apiUrl: `http://127.0.0.1:${port}/api`,
    world,
    gateway,
    calls,
    env: () => ({
      DISCORD_TOKEN: token,
      DISCORD_APPLICATION_ID: world.applicationId,
      DISCORD_API_URL: `http://127.0.0.1:${port}/api`,
    }),
    say({
      content,
      channelId = world.general.id,
      author = world.people.alice,
      mention = false,
      mentionRole = false,
      replyTo,
      dispatch,
      attachments,
    }) {
      const prefix = mention ? `<@${world.bot.id}> ` : mentionRole ? `<@&${world.botRoleId}> ` : '';
      return world.createMessage(
        {
          channelId,
          author,
          content: `${prefix}${content}`,
          mentions: mention ? [world.bot] : [],
          mentionRoles: mentionRole ? [world.botRoleId] : [],
          ...(replyTo
            ? {
                type: MessageType.Reply,
                messageReference: { message_id: replyTo, channel_id: channelId, guild_id: world.guildOf(channelId) },
              }
            : {}),
          ...(attachments
            ? {
                attachments: attachments.map((a) => ({
                  id: snowflake(),
                  filename: a.filename,
                  size: 10,
                  url: `https://cdn.discordapp.com/attachments/${channelId}/${a.filename}`,
                  proxy_url: `https://media.discordapp.net/attachments/${channelId}/${a.filename}`,
                  ...(a.content_type ? { content_type: a.content_type } : {}),
                })),
              }
            : {}),
        },
        dispatch === false ? { dispatch: false } : {},
      );
    },
    failNextRead: (status, code, message) => handle.failNextRead(status, code, message),
    delayNextRead: (ms) => handle.delayNextRead(ms),
    failNext: (method, path, failure, times) => handle.failNext(method, path, failure, times),
    dm(content, author = world.people.alice) {
      return world.createMessage({ channelId: world.dmChannelFor(author).id, author, content });
    },
    command: (name, opts, where = {}) => interact(commandPayload(name, opts, where)),
    click: (messageId, customId, author) => interact(clickPayload(messageId, customId, author)),
    interact,
    publicKey,
    commandPayload,
    clickPayload,
    async overHttp(url, payload, signature = 'valid') {
      const record: InteractionRecord = { payload, dispatchedAt: performance.now(), messageIds: new Set() };
      world.interactions.set(payload.token, record);
      const body = JSON.stringify(payload);
      const timestamp = String(Math.floor(Date.now() / 1000) - (signature === 'stale' ? 3_600 : 0));
      const key = signature === 'forged' ? forger.privateKey : keys.privateKey;
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'user-agent': 'Discord-Interactions/1.0 (+https://discord.com)',
      };
      if (signature !== 'missing') {
        headers['x-signature-ed25519'] = sign(null, Buffer.from(timestamp + body), key).toString('hex');
        headers['x-signature-timestamp'] = timestamp;
      }
      const res = await fetch(url, { method: 'POST', headers, body });
      const text = await res.text();
      const parsed = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
      const result: HttpInteractionResult = { status: res.status, body: parsed, record };
      if (res.status === 200 && parsed && payload.type !== 1)
        result.callbackStatus = handle.acknowledge(payload.id, payload.token, parsed, performance.now()).status;
      return result;
    },
    messagesIn: (channelId) => [...world.messages.values()].filter((m) => m.channel_id === channelId),
    callsMatching: (method, pattern) => calls.filter((c) => c.method === method && pattern.test(c.path)),
    async waitFor(probe, label, timeoutMs = 10_000) {
      const until = performance.now() + timeoutMs;
      for (;;) {
        const value = probe();
        if (value) return value;
        if (performance.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${label}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async close() {
      await gateway.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
