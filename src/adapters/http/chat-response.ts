import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ErrorCode, RefusalDetails, ToolCallRecord, TurnEvent, TurnFlag, Usage } from '../../contract/turn.js';
import type { Block } from '../../reply/model.js';
import type { Logger } from '../../telemetry/logger.js';
import { answeredStaysAnswered } from '../answered-turn.js';

/** A turn's answer to `POST /api/chat`: one JSON body at the end, or its events as they come (SSE). */

/** The HTTP status of each turn error. */
const STATUS: Record<ErrorCode, ContentfulStatusCode> = {
  bad_request: 400,
  tenant_not_configured: 403,
  llm_unavailable: 502,
  llm_error: 502,
  turn_timeout: 504,
  budget_exhausted: 429,
  rate_limited: 429,
  unavailable: 503,
  internal: 500,
};

/**
 * Server-sent events: `thread` ({ threadId }) first, then one event per turn event, named by its
 * type (a tool's own events by their name). The turn stops when the client goes away.
 */
export function streamTurn(
  c: Context,
  threadId: string,
  run: (signal: AbortSignal) => AsyncIterable<TurnEvent>,
  release: () => void,
  log: Logger,
): Response {
  return streamSSE(c, async (stream) => {
    try {
      const abort = new AbortController();
      stream.onAbort(() => abort.abort());
      await stream.writeSSE({ event: 'thread', data: JSON.stringify({ threadId }) });
      for await (const event of answeredStaysAnswered(run(abort.signal), log)) {
        const name = event.type === 'tool_event' ? event.name : event.type;
        await stream.writeSSE({ event: name, data: JSON.stringify(sseData(event)) });
      }
    } finally {
      release();
    }
  });
}

/** One JSON body when the turn is done: the reply, its blocks, tool calls, usage, flags; or the error. */
export async function jsonTurn(
  c: Context,
  threadId: string,
  events: AsyncIterable<TurnEvent>,
  release: () => void,
  log: Logger,
): Promise<Response> {
  const collected = await collectTurn(answeredStaysAnswered(events, log)).finally(release);
  if (collected.error) {
    log.warn({ code: collected.error.code, threadId }, 'chat request failed');
    const { resetAt } = collected.error;
    if (resetAt) c.header('Retry-After', String(Math.max(1, Math.ceil((Date.parse(resetAt) - Date.now()) / 1000))));
    // Redis or Postgres away: worth another try soon.
    else if (collected.error.code === 'unavailable') c.header('Retry-After', '5');
    return c.json({ error: collected.error }, STATUS[collected.error.code]);
  }
  if (collected.approval) {
    // The turn waits for a person (issue 43): decided by POST /api/approvals/{id}, whose answer is the turn's.
    const [first] = collected.approval.approvals;
    const approval = first && {
      id: first.id,
      tool: first.tool,
      arguments: first.arguments,
      expiresAt: collected.approval.expiresAt,
    };
    return c.json(
      {
        threadId,
        response: collected.text,
        approval,
        approvals: collected.approval.approvals.map((a) => ({ ...a, expiresAt: collected.approval?.expiresAt })),
      },
      202,
    );
  }
  return c.json({
    threadId,
    response: collected.text,
    blocks: apiBlocks(collected.blocks),
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
    // What a vote on this answer names (issue 47: POST /api/feedback).
    ...(collected.turnId ? { turnId: collected.turnId } : {}),
    ...collected.data,
  });
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
  /** The turn record's id (issue 47): `POST /api/feedback` names it. */
  turnId?: string;
  /** The turn paused for a person's OK (issue 43). */
  approval?: Extract<TurnEvent, { type: 'approval_required' }>;
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
      if (e.turnId) out.turnId = e.turnId;
    } else if (e.type === 'approval_required') {
      out.approval = e;
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

/** A reply's blocks for API clients: the vote controls are the chat platforms' (an API answer has its `turnId`). */
export function apiBlocks(blocks: Block[]): unknown[] {
  return blocks.filter((b) => b.type !== 'feedback').map(serializeBlock);
}

function sseData(event: TurnEvent): unknown {
  if (event.type === 'tool_event') return event.data;
  if (event.type === 'reply') return { ...event.reply, blocks: apiBlocks(event.reply.blocks) };
  if (event.type === 'error') {
    const { type: _type, notify: _notify, ...error } = event;
    return error;
  }
  const { type: _type, ...rest } = event;
  return rest;
}
