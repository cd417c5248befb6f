import type { IncomingMessage, ServerResponse } from 'node:http';
import { verifyKey } from 'discord-interactions';
import {
  ChannelType,
  InteractionResponseType,
  InteractionType,
  MessageFlags,
  type APIInteractionResponse,
} from 'discord.js';
import { z } from 'zod';
import type { Logger } from '../../telemetry/logger.js';
import { metrics } from '../../telemetry/metrics.js';
import { INBOX_UNAVAILABLE_TEXT as UNAVAILABLE } from '../../inbox/index.js';
import type { ChannelLike } from './normalize.js';

export const INTERACTIONS_PATH = '/discord/interactions';
/** Interaction payloads are a few kilobytes; a command with resolved users and attachments stays far below this. */
const MAX_BODY_BYTES = 512 * 1024;
/** A signed request older (or newer) than this is refused: a captured request cannot be replayed later. */
const MAX_CLOCK_SKEW_S = 300;

const snowflake = z.string().regex(/^\d{1,22}$/);
const user = z.object({ id: snowflake });
const channel = z.object({ id: snowflake, type: z.number().int(), parent_id: snowflake.nullish() });

/**
 * The parts of Discord's interaction payload we read (the signature proves it is Discord's;
 * the schema keeps a payload of an unexpected shape from reaching the handlers as garbage).
 */
const rawInteraction = z.object({
  id: snowflake,
  application_id: snowflake,
  type: z.number().int(),
  token: z.string().min(1).max(1_000),
  guild_id: snowflake.optional(),
  channel_id: snowflake.optional(),
  channel: channel.optional(),
  member: z.object({ user, roles: z.array(snowflake) }).optional(),
  user: user.optional(),
  data: z
    .object({
      type: z.number().int().optional(),
      name: z.string().optional(),
      options: z.array(z.object({ name: z.string(), value: z.unknown().optional() })).optional(),
      custom_id: z.string().optional(),
      component_type: z.number().int().optional(),
      // A modal submit's inputs (issue 47: a 👎's comment), read by `feedback-row.ts`.
      components: z.array(z.unknown()).optional(),
    })
    .optional(),
  message: z
    .object({
      id: snowflake,
      components: z.array(z.record(z.string(), z.unknown())).optional(),
      interaction_metadata: z.object({ id: snowflake }).nullish(),
    })
    .optional(),
});

export type RawInteraction = z.infer<typeof rawInteraction>;
export type InteractionReply = APIInteractionResponse;

const THREADS = new Set<number>([ChannelType.PublicThread, ChannelType.PrivateThread, ChannelType.AnnouncementThread]);
const DMS = new Set<number>([ChannelType.DM, ChannelType.GroupDM]);

/** The interaction's partial channel, as the conversation rules read a discord.js channel. */
export function rawChannel(c: z.infer<typeof channel>): ChannelLike & { parentId: string | null } {
  return {
    id: c.id,
    parentId: c.parent_id ?? null,
    isThread: () => THREADS.has(c.type),
    isDMBased: () => DMS.has(c.type),
  };
}

export interface EndpointDeps {
  /** DISCORD_PUBLIC_KEY: the application's Ed25519 public key, hex. */
  publicKey: string;
  /** DISCORD_APPLICATION_ID: interactions of another application are refused. */
  applicationId?: string;
  handle(interaction: RawInteraction): Promise<InteractionReply>;
  /** False while starting or shutting down: 503, and Discord shows the user that the interaction failed. */
  accepting(): boolean;
  log: Logger;
  now?: () => number;
}

/**
 * Discord's HTTP interactions (the Developer Portal's "Interactions Endpoint URL"): every request
 * is verified against the application's public key (discord-interactions' Ed25519 check); a bad,
 * stale or missing signature gets 401, which is also how Discord tests the URL when it is saved.
 * PING gets PONG. A command or click is recorded in the inbox before the response acknowledges
 * it (deferred: the answer follows through the interaction's webhook, from any replica), well
 * within Discord's 3 seconds.
 */
export function interactionsEndpoint(deps: EndpointDeps): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const { log } = deps;
  const now = deps.now ?? Date.now;
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const refuse = (res: ServerResponse, status: number, message: string) =>
    send(res, status, { error: { code: status === 401 ? 'invalid_signature' : 'invalid_request', message } });

  return async (req, res) => {
    if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
    let raw: Buffer;
    try {
      raw = await readBody(req, MAX_BODY_BYTES);
    } catch (err) {
      if (err instanceof BodyTooLarge) return refuse(res, 413, `The body is larger than ${MAX_BODY_BYTES} bytes.`);
      // The client went away or the connection broke mid-body: nobody is left to read an answer.
      log.warn({ path: INTERACTIONS_PATH, err: String(err) }, 'discord interaction body could not be read');
      if (!res.headersSent && !res.destroyed) refuse(res, 400, 'The body could not be read.');
      return;
    }
    const signature = header(req, 'x-signature-ed25519');
    const timestamp = header(req, 'x-signature-timestamp');
    if (!signature || !timestamp) {
      log.warn({ path: INTERACTIONS_PATH }, 'discord interaction without a signature refused');
      return refuse(res, 401, 'Missing signature.');
    }
    const ts = Number(timestamp);
    const valid =
      Number.isFinite(ts) &&
      Math.abs(now() / 1000 - ts) <= MAX_CLOCK_SKEW_S &&
      (await verifyKey(raw, signature, timestamp, deps.publicKey));
    if (!valid) {
      log.warn({ path: INTERACTIONS_PATH }, 'discord interaction with a bad or stale signature refused');
      return refuse(res, 401, 'Bad signature.');
    }
    let parsed: RawInteraction;
    try {
      const result = rawInteraction.safeParse(JSON.parse(raw.toString('utf8')));
      if (!result.success)
        throw new Error(result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
      parsed = result.data;
    } catch (err) {
      log.warn(
        { problem: err instanceof Error ? err.message : String(err) },
        'discord interaction payload not understood',
      );
      return refuse(res, 400, 'The interaction payload is not one Switchboard understands.');
    }
    if (parsed.type === InteractionType.Ping) return send(res, 200, { type: InteractionResponseType.Pong });
    if (deps.applicationId && parsed.application_id !== deps.applicationId) {
      log.warn({ applicationId: parsed.application_id }, 'discord interaction for another application refused');
      return refuse(res, 400, 'This endpoint serves another application.');
    }
    if (!deps.accepting()) return refuse(res, 503, 'Switchboard is not taking interactions right now.');
    let reply: InteractionReply;
    try {
      reply = await deps.handle(parsed);
    } catch (err) {
      // Told privately instead of Discord's bare "The application did not respond".
      log.error({ err, interactionId: parsed.id }, 'discord interaction failed');
      metrics.acks.inc({ platform: 'discord', status: 'failed' });
      reply = {
        type: InteractionResponseType.ChannelMessageWithSource,
        data: { content: `⚠️ ${UNAVAILABLE}`, flags: MessageFlags.Ephemeral, allowed_mentions: { parse: [] } },
      };
      return send(res, 200, reply);
    }
    metrics.acks.inc({
      platform: 'discord',
      status: reply.type === InteractionResponseType.ChannelMessageWithSource ? 'answered' : 'deferred',
    });
    send(res, 200, reply);
  };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return typeof v === 'string' && v ? v : undefined;
}

class BodyTooLarge extends Error {}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) {
    req.resume();
    throw new BodyTooLarge();
  }
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new BodyTooLarge();
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts);
}
