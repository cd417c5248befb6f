import { once } from 'node:events';
import { Events, type Client } from 'discord.js';
import { ConfigError } from '../../config/index.js';
import type { AdapterDeps, PlatformAdapter } from '../platform.js';
import { apiBase, createDiscordClient, planShards } from './client.js';
import { createActionStore } from './custom-id.js';
import { guardGateway } from './gateway-guard.js';
import { createHandlers } from './handlers.js';
import { interactionsEndpoint, INTERACTIONS_PATH } from './interactions-endpoint.js';
import type { Switchboard } from '../switchboard.js';
import { isAdminPort } from '../../data/rpc-port.js';
import { createChannelSettingsView } from '../channel-settings.js';
import { createApprovalStore } from '../../data/approvals.js';
import { expiryAction } from '../../agent/approval-sweep.js';
import { startDiscordApprovalSweep } from './approvals.js';

export interface DiscordAdapterOptions {
  /** The least time between two edits of a streamed reply. Default 1 s. */
  editIntervalMs?: number;
}

export interface DiscordAdapter extends PlatformAdapter {
  /** The discord.js client (connected between start() and close()). */
  readonly client: Client;
}

/**
 * Discord through discord.js: slash commands (`/ask`, `/quote`), mentions (answered in a new
 * thread), follow-ups in our threads, DMs and button clicks over the gateway (DISCORD_TOKEN),
 * and slash commands and clicks over HTTP at /discord/interactions (DISCORD_PUBLIC_KEY; with
 * it alone no gateway connection is opened). Undefined without either.
 * Each event is recorded in the inbox (an interaction after its acknowledgement); the inbox
 * runs the turns, on whichever replica takes them, through the delivery function registered
 * by start().
 */
/** The settings the Discord adapter reads. */
export type DiscordConfig =
  | 'DISCORD_TOKEN'
  | 'DISCORD_APPLICATION_ID'
  | 'DISCORD_API_URL'
  | 'DISCORD_PUBLIC_KEY'
  | 'DISCORD_MEMBER_ROLES'
  | 'DISCORD_EMBED_DOMAINS'
  | 'DISCORD_SHARD_COUNT'
  | 'DISCORD_SHARD_IDS'
  | 'THREAD_TTL_DAYS'
  | 'INBOX_THREAD_QUEUE_MAX'
  | 'APPROVAL_SWEEP_MS'
  | 'TENANT_MODE';

export function createDiscordAdapter(
  sb: AdapterDeps<DiscordConfig> & Partial<Pick<Switchboard, 'data' | 'channels' | 'llm'>>,
  options: DiscordAdapterOptions = {},
): DiscordAdapter | undefined {
  const { config } = sb;
  const token = config.DISCORD_TOKEN;
  const publicKey = config.DISCORD_PUBLIC_KEY;
  if (!token && !publicKey) return undefined;
  const log = sb.log.child({ adapter: 'discord' });
  const ttlMs = config.THREAD_TTL_DAYS * 86_400_000;
  const client = createDiscordClient(config);
  guardGateway(client, log);
  const handlers = createHandlers({
    agent: sb.agent,
    kv: sb.kv,
    actions: createActionStore(sb.kv, ttlMs),
    log,
    editIntervalMs: options.editIntervalMs ?? 1_000,
    conversationTtlMs: ttlMs,
    inbox: sb.inbox,
    maxPerThread: config.INBOX_THREAD_QUEUE_MAX,
    memberRoleIds: config.DISCORD_MEMBER_ROLES,
    embedDomains: config.DISCORD_EMBED_DOMAINS,
    // Settings per channel (issue 46): `reply_mode: all` channels, `/switchboard settings`.
    ...(sb.data && sb.llm ? { channelSettings: createChannelSettingsView({ ...sb, data: sb.data, llm: sb.llm }) } : {}),
  });

  // Approvals nobody decides expire on their own (issue 43): swept on every replica with a gateway (the edit needs the bot token).
  const approvalStore =
    token && sb.data && isAdminPort(sb.data) && sb.agent.handlesAction(expiryAction({ id: '' }).id)
      ? createApprovalStore(sb.data)
      : undefined;
  let stopSweep: (() => Promise<void>) | undefined;

  let accepting = false;
  const routes = publicKey
    ? [
        {
          prefix: INTERACTIONS_PATH,
          handle: interactionsEndpoint({
            publicKey,
            applicationId: config.DISCORD_APPLICATION_ID,
            handle: handlers.onHttpInteraction,
            accepting: () => accepting,
            log,
          }),
        },
      ]
    : [];
  const handle = (work: Promise<void>) =>
    void work.catch((err: unknown) => log.error({ err }, 'discord event handler failed'));
  client.on(Events.MessageCreate, (message) => {
    if (accepting) handle(handlers.onMessage(message));
  });
  client.on(Events.InteractionCreate, (interaction) => {
    if (accepting) handle(handlers.onInteraction(interaction));
  });
  client.on(Events.ShardReconnecting, (shard) => log.info({ shard }, 'discord gateway reconnecting'));
  client.on(Events.ShardResume, (shard, replayed) => log.info({ shard, replayed }, 'discord gateway session resumed'));
  client.on(Events.ShardDisconnect, (event, shard) =>
    log.error({ shard, code: event.code }, 'discord gateway closed for good'),
  );
  client.on(Events.ShardError, (err, shard) => log.warn({ err, shard }, 'discord gateway error'));
  client.on(Events.Warn, (message) => log.warn({ message }, 'discord.js warning'));
  // An 'error' event nobody listens to would end the process.
  client.on(Events.Error, (err) => log.error({ err }, 'discord.js error'));

  return {
    name: 'discord',
    client,
    routes,
    async start() {
      sb.inbox.deliver('discord', handlers.deliver(client));
      if (!token) {
        // Interactions over HTTP only: answers go through each interaction's webhook, which needs no bot token.
        accepting = true;
        log.info(
          { path: INTERACTIONS_PATH },
          `Discord interactions accepted at ${INTERACTIONS_PATH} (no gateway connection: DISCORD_TOKEN is not set)`,
        );
        return;
      }
      const abort = new AbortController();
      const ready = once(client, Events.ClientReady, { signal: abort.signal });
      ready.catch(() => {}); // settled below; this keeps an abort from going unhandled
      accepting = true;
      let shards: Awaited<ReturnType<typeof planShards>>;
      try {
        shards = await planShards(client, config);
        await client.login(token);
        await ready;
      } catch (err) {
        abort.abort();
        accepting = false;
        await client.destroy();
        if (err instanceof ConfigError) throw err;
        throw new Error(loginProblem(err, apiBase(config)), { cause: err });
      }
      const applicationId = client.application?.id;
      if (config.DISCORD_APPLICATION_ID && applicationId && applicationId !== config.DISCORD_APPLICATION_ID) {
        log.warn(
          { applicationId },
          'DISCORD_APPLICATION_ID is not this bot’s application; `npm run discord:deploy` registers commands for the wrong one',
        );
      }
      log.info(
        {
          user: client.user?.tag,
          guilds: client.guilds.cache.size,
          ...(shards ? { shards: client.options.shards, shardCount: client.options.shardCount } : {}),
          ...(publicKey ? { interactions: INTERACTIONS_PATH } : {}),
        },
        'discord connected',
      );
      if (approvalStore)
        stopSweep ??= startDiscordApprovalSweep({ inbox: sb.inbox, log }, approvalStore, config.APPROVAL_SWEEP_MS);
    },
    /** For /readyz: the gateway session is up (HTTP interactions only: taking requests). */
    ready: () => (token ? client.isReady() : accepting),
    /** No new events; turns already in the inbox keep running (and posting) until it drains. */
    async stop() {
      accepting = false;
      await stopSweep?.();
      stopSweep = undefined;
    },
    /** Disconnects, once the inbox has drained. */
    async close() {
      accepting = false;
      await stopSweep?.();
      await client.destroy();
    },
  };
}

/** Why login failed, worded for whoever reads the startup error. */
function loginProblem(err: unknown, api: string): string {
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  if (code === 'TokenInvalid' || /401|unauthorized/i.test(message)) {
    return 'Discord rejected DISCORD_TOKEN. Copy the bot token again (Developer Portal → your app → Bot → Reset Token).';
  }
  if (/disallowed intents/i.test(message)) {
    return 'Discord refused the Message Content intent. Enable it in the Developer Portal → your app → Bot → Privileged Gateway Intents → Message Content Intent.';
  }
  return `Could not connect to Discord through ${api}: ${message}`;
}
