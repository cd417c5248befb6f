import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Agent } from '../../agent/agent.js';
import type { DataPort } from '../../contract/data.js';
import type { KvStore } from '../../state/kv.js';
import { createWrongTokens, type WrongTokens } from '../../security/wrong-tokens.js';
import type { Logger } from '../../telemetry/logger.js';
import { mountAdmin } from './admin.js';
import { apiCaller } from './api-caller.js';
import { mountChat } from './chat-route.js';
import { errorBody } from './error-body.js';
import { turnGate, turnsTheHeapHolds } from './in-flight.js';
import { jsonBodiesOnly } from './json-body.js';
import { mountUsage } from './usage-route.js';
import { mountApprovals } from './approval-route.js';
import { mountFeedback } from './feedback-route.js';
import { mountMemory } from './memory-route.js';
import { mountMcp } from './mcp-route.js';

const MAX_BODY_BYTES = 1024 * 1024;

import type { McpRuntime } from '../../mcp/index.js';

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
  /** Wrong ADMIN_TOKENs per client address (shared with the console's sign-in); in memory by default. */
  wrongTokens?: WrongTokens;
  /** API_MAX_TURNS_IN_FLIGHT: `/api/chat` turns and `/mcp` tool calls at once (default: what the heap holds). */
  maxTurnsInFlight?: number;
  /** ATTACHMENT_MAX_BYTES: `/api/chat`'s files together, base64 in `attachments` (the rest of the body keeps the 1 MB limit). */
  maxAttachmentBytes?: number;
  /** The shared store: an HTTP approval's outcome is kept there for `GET /api/approvals/{id}` (issue 43). */
  kv?: KvStore;
  /** A tenant's MCP servers (issue 44): their admin routes. */
  mcp?: McpRuntime | undefined;
}

/**
 * The HTTP API: `GET /healthz`; behind the `/api/*` guard (api-caller.ts), `POST /api/chat` (JSON
 * or SSE, chat-route.ts) and `GET /api/usage` (usage-route.ts); the admin API under `/tts_admin`
 * (admin.ts) when there is a data port. Other route groups mount on the app it returns
 * (ops.ts, admin-console/, each platform adapter's).
 */
export function createHttpApp({
  agent,
  log,
  apiToken,
  trustProxy = 0,
  health,
  data,
  adminToken,
  wrongTokens,
  maxTurnsInFlight = turnsTheHeapHolds(),
  maxAttachmentBytes = 20 * 1024 * 1024,
  kv,
  mcp,
}: HttpAppOptions): Hono {
  const app = new Hono();
  // Refused before it is read into memory, whatever the Content-Length claims.
  const limitBody = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: (c) => c.json(errorBody('payload_too_large', 'The request body is larger than 1 MB.'), 413),
  });
  app.use('/tts_admin/*', limitBody);
  if (data)
    mountAdmin(app, {
      token: adminToken,
      data,
      log,
      trustProxy,
      wrongTokens: wrongTokens ?? createWrongTokens({ log }),
      mcp,
    });

  app.get('/healthz', (c) => c.json({ ok: true, ...health?.() }));

  const guard = apiCaller({ apiToken, trustProxy, data, log });
  app.use('/api/*', guard);
  // `/mcp` (the tenant's read tools for MCP clients, mcp-route.ts): the same guard, closed the same way.
  app.use(
    '/mcp',
    guard,
    limitBody,
    jsonBodiesOnly((message) => errorBody('unsupported_media_type', message)),
  );
  // `/api/chat` takes files inline: its limit is 1 MB plus the files' base64 (chat-route.ts holds the rest to 1 MB).
  const chatBodyMax = MAX_BODY_BYTES + Math.ceil(maxAttachmentBytes / 3) * 4;
  app.use(
    '/api/chat',
    bodyLimit({
      maxSize: chatBodyMax,
      onError: (c) =>
        c.json(
          errorBody(
            'payload_too_large',
            `The request body is larger than ${Math.round(chatBodyMax / (1024 * 1024))} MB (1 MB, plus the files in \`attachments\`).`,
          ),
          413,
        ),
    }),
  );
  app.use('/api/*', async (c, next) => (c.req.path === '/api/chat' ? next() : limitBody(c, next)));
  app.use(
    '/api/*',
    jsonBodiesOnly((message) => errorBody('unsupported_media_type', message)),
  );
  mountUsage(app, data);
  // One count of requests in flight for /api/chat's turns and /mcp's tool calls (in-flight.ts).
  const turns = turnGate(maxTurnsInFlight, log);
  mountChat(app, { agent, log, data, turns, maxTurnsInFlight, maxBodyBytes: MAX_BODY_BYTES });
  mountApprovals(app, { agent, log, data, kv });
  mountFeedback(app, { agent, log, data });
  mountMemory(app, { data, log });
  mountMcp(app, { agent, log, data, turns, maxTurnsInFlight });

  app.notFound((c) => c.json(errorBody('not_found', `No route for ${c.req.method} ${c.req.path}.`), 404));
  app.onError((err, c) => {
    log.error({ err }, 'http handler failed');
    return c.json(errorBody('internal', 'Internal error. It has been logged.'), 500);
  });
  return app;
}
