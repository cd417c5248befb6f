import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { DataError, type DataPort } from '../../contract/data.js';
import { MAX_MESSAGE_CHARS, type IncomingMessage } from '../../contract/turn.js';
import type { Logger } from '../../telemetry/logger.js';
import { parseTypedCommand } from '../typed-command.js';
import type { Caller } from './access.js';

/** `POST /api/chat`'s body, turned into the message the core gets. */

const chatRequest = z.object({
  message: z
    .string()
    .max(MAX_MESSAGE_CHARS, `message is longer than ${MAX_MESSAGE_CHARS.toLocaleString('en-US')} characters`)
    .optional(),
  threadId: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .regex(/^[\w.:-]+$/, 'threadId may hold letters, digits and _ . : -')
    .optional(),
  /** Kept for token callers (their backend names its users); ignored for anonymous ones (see below). */
  userId: z.string().trim().min(1).max(200).optional(),
  /** A button from an earlier reply's blocks (e.g. `campaigns.more`). */
  action: z.object({ id: z.string().min(1).max(100), value: z.string().max(2_000).optional() }).optional(),
  /**
   * The tenant to talk to (its slug): only a loopback caller without API_TOKEN may choose it;
   * a token caller gets its token's tenant, and naming another is a 403.
   */
  tenant: z
    .string()
    .trim()
    .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'tenant is a tenant slug')
    .optional(),
  /** Files shared with the message, base64 (README "Files and images"); read in the turn, never stored. */
  attachments: z
    .array(
      z.strictObject({
        name: z.string().trim().min(1).max(255),
        mediaType: z.string().trim().max(255).default('application/octet-stream'),
        data: z.base64('data is base64 bytes'),
      }),
    )
    .max(50)
    .optional(),
});

export type ChatRequest = z.infer<typeof chatRequest>;

/** The parsed body, or the 400's code and message (the first problem, by its field). */
export function parseChatRequest(
  body: unknown,
): { ok: true; request: ChatRequest } | { ok: false; code: 'validation_failed' | 'bad_request'; message: string } {
  const parsed = chatRequest.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      code: 'validation_failed',
      message: `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`,
    };
  }
  if (!parsed.data.action && !parsed.data.message?.trim() && !parsed.data.attachments?.length)
    return { ok: false, code: 'bad_request', message: 'message is required (a non-empty string).' };
  return { ok: true, request: parsed.data };
}

export type ChosenTenant =
  | { ok: true; slug?: string }
  | { ok: false; status: 403 | 404 | 503; code: 'forbidden' | 'not_found' | 'unavailable'; message: string };

/**
 * The tenant a chat turn is for. A tenant token: its tenant (naming another is 403). API_TOKEN:
 * the default tenant (naming another is 403). A loopback caller without API_TOKEN: the one it
 * names, if it exists, else the default.
 */
export async function chosenTenant(
  caller: Caller,
  named: string | undefined,
  data: DataPort | undefined,
  log: Logger,
): Promise<ChosenTenant> {
  if (caller.kind === 'token') {
    const own = caller.tenant;
    if (named === undefined || named === own) return { ok: true, ...(own !== undefined ? { slug: own } : {}) };
    if (own === undefined && data) {
      const fallback = await data.defaultTenant().catch(() => null);
      if (fallback?.slug === named) return { ok: true };
    }
    return {
      ok: false,
      status: 403,
      code: 'forbidden',
      message: `This token belongs to tenant "${own ?? 'the default tenant'}"; a token cannot choose another tenant.`,
    };
  }
  if (named === undefined) return { ok: true };
  if (data) {
    let found: unknown;
    try {
      found = await data.tenantBySlug(named);
    } catch (err) {
      if (!(err instanceof DataError)) throw err;
      log.warn({ err }, 'could not look up a named tenant');
      return { ok: false, status: 503, code: 'unavailable', message: 'The tenant could not be looked up.' };
    }
    if (!found) return { ok: false, status: 404, code: 'not_found', message: `No tenant "${named}".` };
  }
  return { ok: true, slug: named };
}

/** The message the core gets: a direct message in the thread, from the caller, for the tenant. */
export function chatMessage(
  req: ChatRequest,
  caller: Caller,
  threadId: string,
  tenant: string | undefined,
): IncomingMessage {
  const message: IncomingMessage = {
    platform: 'http',
    workspaceId: 'default',
    channelId: 'api',
    threadId,
    messageId: randomUUID(),
    // An anonymous caller is known by its address only: the per-user flood limit, tool limits
    // and token budget key on `ip:<address>`, so a made-up userId cannot reset them. A token
    // holder's backend names its own users (it is trusted with its token's limits).
    userId: caller.kind === 'anonymous' ? anonymousUserId(caller.address) : (req.userId ?? 'api'),
    role: caller.kind === 'anonymous' ? 'guest' : 'member',
    isDirect: true,
    text: req.message ?? '',
    ...(req.action ? { action: req.action } : {}),
    ...(tenant !== undefined ? { tenant } : {}),
    ...(req.attachments?.length
      ? {
          attachments: req.attachments.map((a) => ({
            name: a.name,
            mediaType: a.mediaType,
            size: Math.floor((a.data.length * 3) / 4),
            source: { kind: 'inline' as const, data: a.data },
          })),
        }
      : {}),
  };
  const command = req.action ? undefined : parseTypedCommand(message.text);
  if (command) message.command = command;
  return message;
}

/** Characters of the body that are files' base64 (the part of the body its raised limit is for). */
export function attachedChars(req: ChatRequest): number {
  return (req.attachments ?? []).reduce((n, a) => n + a.data.length, 0);
}

/** `ip:<address>`, IPv4-mapped IPv6 (`::ffff:127.0.0.1`) written as IPv4 so one client is one key. */
export function anonymousUserId(address: string): string {
  return `ip:${address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '')}`;
}
