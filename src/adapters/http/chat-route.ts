import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import type { Agent } from '../../agent/agent.js';
import type { DataPort } from '../../contract/data.js';
import type { Logger } from '../../telemetry/logger.js';
import { attachedChars, chatMessage, chosenTenant, parseChatRequest } from './chat-request.js';
import { jsonTurn, streamTurn } from './chat-response.js';
import { errorBody } from './error-body.js';
import type { TurnGate } from './in-flight.js';

/**
 * `POST /api/chat`: a turn over HTTP, behind the `/api/*` guard (api-caller.ts). The body is read
 * (chat-request.ts), the turn counted against API_MAX_TURNS_IN_FLIGHT (in-flight.ts), and answered
 * as JSON or, with `Accept: text/event-stream`, as server-sent events (chat-response.ts).
 */
export function mountChat(
  app: Hono,
  opts: {
    agent: Agent;
    log: Logger;
    data: DataPort | undefined;
    turns: TurnGate;
    maxTurnsInFlight: number;
    maxBodyBytes: number;
  },
): void {
  const { agent, log, data, turns, maxTurnsInFlight, maxBodyBytes } = opts;

  app.post('/api/chat', async (c) => {
    let body: unknown;
    let raw: string;
    const tooLarge = () => c.json(errorBody('payload_too_large', 'The request body is larger than 1 MB.'), 413);
    try {
      raw = await c.req.text();
      // The limit is raised for the files' base64 only: a larger body without files is not parsed.
      if (raw.length > maxBodyBytes && !raw.includes('"attachments"')) return tooLarge();
      body = JSON.parse(raw);
    } catch {
      return c.json(errorBody('bad_request', 'The request body must be JSON: { "message": "…" }.'), 400);
    }
    const parsed = parseChatRequest(body);
    if (!parsed.ok) return c.json(errorBody(parsed.code, parsed.message), 400);
    // With files, the rest of the body still stays within 1 MB.
    if (raw.length - attachedChars(parsed.request) > maxBodyBytes) return tooLarge();
    const req = parsed.request;
    const threadId = req.threadId ?? randomUUID();
    const caller = c.get('caller');
    const tenant = await chosenTenant(caller, req.tenant, data, log);
    if (!tenant.ok) return c.json(errorBody(tenant.code, tenant.message), tenant.status);
    const message = chatMessage(req, caller, threadId, tenant.slug);

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

    if (c.req.header('accept')?.includes('text/event-stream'))
      return streamTurn(c, threadId, (signal) => agent.handle(message, signal), release, log);
    return jsonTurn(c, threadId, agent.handle(message, c.req.raw.signal), release, log);
  });
}
