import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { bodyLimit } from 'hono/body-limit';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import type { Agent } from '../../agent/agent.js';
import type { DataPort } from '../../contract/data.js';
import type {
  ErrorCode,
  IncomingMessage,
  RefusalDetails,
  ToolCallRecord,
  TurnEvent,
  TurnFlag,
  Usage,
} from '../../contract/turn.js';
import type { Logger } from '../../logger.js';
import type { Block } from '../../reply/model.js';
import { parseTypedCommand } from '../typed-command.js';
import { DataError } from '../../contract/data.js';
import { tenantOfApiToken } from '../../data/api-tokens.js';
import { isAdminPort } from '../../data/rpc-port.js';
import { bearerOf, type Caller, decideAccess, unauthorized } from './access.js';
import { bearerMatches } from './bearer.js';
import { mountAdmin } from './admin.js';
import { turnGate, turnsTheHeapHolds } from './in-flight.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** Set by the `/api/*` guard: who is calling. */
    caller: Caller;
  }
}

const chatRequest = z.object({
  message: z.string().max(20_000, 'message is longer than 20,000 characters').optional(),
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
});

const MAX_BODY_BYTES = 1024 * 1024;

const STATUS: Record<ErrorCode, ContentfulStatusCode> = {
  bad_request: 400,
  tenant_not_configured: 403,
  llm_unavailable: 502,
  llm_error: 502,
  turn_timeout: 504,
  budget_exhausted: 429,
  rate_limited: 429,
  internal: 500,
};

export interface HttpAppOptions {
  agent: Agent;
  log: Logger;
  /** API_TOKEN: opens `/api/*` to its bearer from anywhere; unset, `/api/*` answers loopback clients only. */
  apiToken?: string;
  /** TRUST_PROXY as a number of proxies (0: X-Forwarded-For is ignored). */
  trustProxy?: number;
  /** Extra health facts (adapters connected, data source). */
  health?: () => Record<string, unknown>;
  /** The data port: enables `GET /api/usage` (token totals from the ledger) and the admin API. */
  data?: DataPort;
  /** ADMIN_TOKEN: the admin API's own bearer token (`/tts_admin/*`; off without it). */
  adminToken?: string;
  /** API_MAX_TURNS_IN_FLIGHT: `/api/chat` turns at once (default: what the heap holds, see in-flight.ts). */
  maxTurnsInFlight?: number;
}

const usageQuery = z
  .object({
    tenant: z.string().trim().min(1).max(200).optional(),
    threadId: z.string().trim().min(1).max(200).optional(),
    userId: z.string().trim().min(1).max(200).optional(),
    from: z.iso
      .date()
      .or(z.iso.datetime({ offset: true }))
      .optional(),
    to: z.iso
      .date()
      .or(z.iso.datetime({ offset: true }))
      .optional(),
  })
  .strict();

/** `POST /api/chat` (JSON or SSE) and `GET /healthz`. */
export function createHttpApp({
  agent,
  log,
  apiToken,
  trustProxy = 0,
  health,
  data,
  adminToken,
  maxTurnsInFlight = turnsTheHeapHolds(),
}: HttpAppOptions): Hono {
  const app = new Hono();
  const turns = turnGate(maxTurnsInFlight, log);
  // Refused before it is read into memory, whatever the Content-Length claims.
  const limitBody = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: (c) => c.json(errorBody('payload_too_large', 'The request body is larger than 1 MB.'), 413),
  });
  app.use('/tts_admin/*', limitBody);
  if (data) mountAdmin(app, { token: adminToken, data, log });

  app.get('/healthz', (c) => c.json({ ok: true, ...health?.() }));

  // Closed by default (access.ts): API_TOKEN's bearer, a tenant's token, or without API_TOKEN a
  // loopback client.
  app.use('/api/*', async (c, next) => {
    const bearer = bearerOf(c);
    if (bearer !== undefined && !(apiToken && bearerMatches(c.req.header('authorization'), apiToken))) {
      // Not API_TOKEN: a tenant's token, or nothing (a wrong bearer never falls back to anonymous).
      let tenant: string | null = null;
      if (data && isAdminPort(data)) {
        try {
          tenant = await tenantOfApiToken(data, bearer);
        } catch (err) {
          log.warn({ err, code: 'unavailable' }, 'could not check an API token');
          return c.json(errorBody('unavailable', 'The token could not be checked. Try again shortly.'), 503);
        }
      }
      if (!tenant) {
        log.debug({ path: c.req.path, code: 'unauthorized' }, 'http request refused');
        return unauthorized(c, 'Wrong bearer token: not API_TOKEN and not a live tenant token.');
      }
      c.set('caller', { kind: 'token', tenant });
      return next();
    }
    const decision = decideAccess(c, {
      token: apiToken,
      tokenName: 'API_TOKEN',
      loopbackWithoutToken: true,
      trustedHops: trustProxy,
    });
    if (!decision.ok) {
      // At debug: anyone on the network can make these, as often as they like.
      log.debug({ path: c.req.path, code: 'unauthorized' }, 'http request refused');
      return unauthorized(c, decision.message);
    }
    c.set('caller', decision.caller);
    return next();
  });
  app.use('/api/*', limitBody);

  /** Token totals from the ledger: `?tenant=&threadId=&userId=&from=&to=` (default: the last 30 days). */
  app.get('/api/usage', async (c) => {
    // Every tenant's spend: for token holders only, never for an anonymous (loopback) caller.
    const caller = c.get('caller');
    if (caller.kind !== 'token')
      return unauthorized(
        c,
        'GET /api/usage needs API_TOKEN or a tenant token: send Authorization: Bearer <token> (on this machine, npm run usage prints the same totals).',
      );
    if (!data) return c.json(errorBody('not_found', 'Usage is not available here.'), 404);
    const parsed = usageQuery.safeParse(c.req.query());
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return c.json(
        errorBody('bad_request', `${issue?.path.join('.') || 'query'}: ${issue?.message ?? 'invalid'}`),
        400,
      );
    }
    const q = { ...parsed.data, tenant: parsed.data.tenant ?? caller.tenant ?? 'default' };
    // A tenant's token sees its own tenant's figures only; API_TOKEN is the operator's, as before.
    if (caller.tenant !== undefined && q.tenant !== caller.tenant)
      return c.json(
        errorBody('forbidden', `This token belongs to tenant "${caller.tenant}"; it cannot read another's usage.`),
        403,
      );
    const to = q.to ? new Date(q.to.length === 10 ? Date.parse(q.to) + 86_400_000 : Date.parse(q.to)) : new Date();
    const from = q.from ? new Date(q.from) : new Date(to.getTime() - 30 * 86_400_000);
    if (from >= to) return c.json(errorBody('bad_request', 'from must be before to.'), 400);
    const totals = await data.usageTotals({
      tenant: q.tenant,
      from,
      to,
      ...(q.userId ? { userId: q.userId } : {}),
      ...(q.threadId ? { threadId: q.threadId } : {}),
    });
    if (!totals) return c.json(errorBody('not_found', `No tenant "${q.tenant}".`), 404);
    return c.json({
      tenant: q.tenant,
      from: from.toISOString(),
      to: to.toISOString(),
      ...(q.userId ? { userId: q.userId } : {}),
      ...(q.threadId ? { threadId: q.threadId } : {}),
      ...totals,
    });
  });

  app.post('/api/chat', async (c) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return c.json(errorBody('bad_request', 'The request body must be JSON: { "message": "…" }.'), 400);
    }
    const parsed = chatRequest.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return c.json(
        errorBody('validation_failed', `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`),
        400,
      );
    }
    const req = parsed.data;
    if (!req.action && !req.message?.trim()) {
      return c.json(errorBody('bad_request', 'message is required (a non-empty string).'), 400);
    }
    const threadId = req.threadId ?? randomUUID();
    const caller = c.get('caller');
    const tenant = await chosenTenant(caller, req.tenant);
    if (!tenant.ok) return c.json(errorBody(tenant.code, tenant.message), tenant.status);
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
      ...(tenant.slug !== undefined ? { tenant: tenant.slug } : {}),
    };
    const command = req.action ? undefined : parseTypedCommand(message.text);
    if (command) message.command = command;

    const release = turns.enter();
    if (!release) {
      c.header('Retry-After', '1');
      return c.json(
        errorBody(
          'overloaded',
          `This server is answering ${maxTurnsInFlight} requests already; try again in a moment.`,
        ),
        503,
      );
    }

    if (c.req.header('accept')?.includes('text/event-stream')) {
      return streamSSE(c, async (stream) => {
        try {
          const abort = new AbortController();
          stream.onAbort(() => abort.abort());
          await stream.writeSSE({ event: 'thread', data: JSON.stringify({ threadId }) });
          for await (const event of agent.handle(message, abort.signal)) {
            const name = event.type === 'tool_event' ? event.name : event.type;
            await stream.writeSSE({ event: name, data: JSON.stringify(sseData(event)) });
          }
        } finally {
          release();
        }
      });
    }

    const collected = await collectTurn(agent.handle(message, c.req.raw.signal)).finally(release);
    if (collected.error) {
      log.warn({ code: collected.error.code, threadId }, 'chat request failed');
      const { resetAt } = collected.error;
      if (resetAt) c.header('Retry-After', String(Math.max(1, Math.ceil((Date.parse(resetAt) - Date.now()) / 1000))));
      return c.json({ error: collected.error }, STATUS[collected.error.code]);
    }
    return c.json({
      threadId,
      response: collected.text,
      blocks: collected.blocks.map(serializeBlock),
      toolCalls: collected.toolCalls.map(({ tool, arguments: args, ok, summary, latencyMs, error }) => ({
        tool,
        arguments: args,
        ok,
        summary,
        latencyMs,
        ...(error ? { error } : {}),
      })),
      usage: collected.usage,
      flags: collected.flags,
      ...collected.data,
    });
  });

  /**
   * The tenant a chat turn is for. A tenant token: its tenant (naming another is 403). API_TOKEN:
   * the default tenant (naming another is 403). A loopback caller without API_TOKEN: the one it
   * names, if it exists, else the default.
   */
  async function chosenTenant(
    caller: Caller,
    named: string | undefined,
  ): Promise<
    | { ok: true; slug?: string }
    | { ok: false; status: 403 | 404 | 503; code: 'forbidden' | 'not_found' | 'unavailable'; message: string }
  > {
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

  app.notFound((c) => c.json(errorBody('not_found', `No route for ${c.req.method} ${c.req.path}.`), 404));
  app.onError((err, c) => {
    log.error({ err }, 'http handler failed');
    return c.json(errorBody('internal', 'Internal error. It has been logged.'), 500);
  });
  return app;
}

export interface CollectedTurn {
  text: string;
  blocks: Block[];
  toolCalls: ToolCallRecord[];
  usage: Usage;
  data: Record<string, unknown>;
  /** `prompt_injection` when the message was flagged. */
  flags: TurnFlag[];
  error?: { code: ErrorCode; message: string } & RefusalDetails;
}

export async function collectTurn(events: AsyncIterable<TurnEvent>): Promise<CollectedTurn> {
  const out: CollectedTurn = {
    text: '',
    blocks: [],
    toolCalls: [],
    usage: { promptTokens: 0, completionTokens: 0 },
    data: {},
    flags: [],
  };
  for await (const e of events) {
    if (e.type === 'reply') {
      out.text = e.reply.text;
      out.blocks = e.reply.blocks;
    } else if (e.type === 'done') {
      out.usage = e.usage;
      out.toolCalls = e.toolCalls;
      out.data = e.data;
      out.flags = e.flags ?? [];
    } else if (e.type === 'error') {
      const { type: _type, notify: _notify, ...error } = e;
      out.error = error;
    }
  }
  return out;
}

/** Files travel as base64 in JSON. */
export function serializeBlock(block: Block): unknown {
  if (block.type !== 'file') return block;
  const { data, ...file } = block.file;
  return { type: 'file', file: { ...file, size: data.byteLength, base64: Buffer.from(data).toString('base64') } };
}

function sseData(event: TurnEvent): unknown {
  if (event.type === 'tool_event') return event.data;
  if (event.type === 'reply') return { ...event.reply, blocks: event.reply.blocks.map(serializeBlock) };
  if (event.type === 'error') {
    const { type: _type, notify: _notify, ...error } = event;
    return error;
  }
  const { type: _type, ...rest } = event;
  return rest;
}

/** `ip:<address>`, IPv4-mapped IPv6 (`::ffff:127.0.0.1`) written as IPv4 so one client is one key. */
export function anonymousUserId(address: string): string {
  return `ip:${address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '')}`;
}

function errorBody(code: string, message: string) {
  return { error: { code, message } };
}
