import type { Reply } from '../reply/model.js';

export type Platform = 'slack' | 'discord' | 'http' | 'console';

/** What every adapter hands the core. */
export interface IncomingMessage {
  platform: Platform;
  /** Slack team (or enterprise), Discord guild, or 'default'; mapped to a tenant by the core. */
  workspaceId: string;
  channelId: string;
  threadId: string;
  messageId: string;
  userId: string;
  isDirect: boolean;
  text: string;
  /** A slash command: `/ask`, `/quote`. */
  command?: { name: string; options: Record<string, string> };
  /** A button click on one of our blocks. */
  action?: { id: string; value?: string };
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
}

export interface ToolCallRecord {
  id: string;
  tool: string;
  arguments: unknown;
  ok: boolean;
  summary: string;
  latencyMs: number;
}

/** What the core streams while it works; adapters render each as they can. */
export type TurnEvent =
  | { type: 'status'; text: string }
  | { type: 'text_delta'; text: string }
  /** The model is reasoning (seed 001's SSE event): progress only, the reasoning itself is never sent. */
  | { type: 'reasoning_status'; text: string }
  | { type: 'tool_call_start'; callId: string; tool: string; title: string; arguments?: unknown }
  | { type: 'tool_result'; callId: string; tool: string; ok: boolean; summary: string }
  /** A tool's own event (e.g. `web_search`, `image_complete`), passed through to streams. */
  | { type: 'tool_event'; name: string; data: Record<string, unknown> }
  | { type: 'reply'; reply: Reply }
  | { type: 'done'; usage: Usage; toolCalls: ToolCallRecord[]; data: Record<string, unknown> }
  /** `message` is safe to show a user. */
  | { type: 'error'; code: ErrorCode; message: string; resetAt?: string };

export type ErrorCode =
  | 'llm_unavailable'
  | 'llm_error'
  | 'turn_timeout'
  | 'tenant_not_configured'
  | 'bad_request'
  | 'budget_exhausted'
  | 'internal';

/** An error whose message is written for the user. */
export class UserFacingError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown; resetAt?: string },
  ) {
    super(message, options);
    this.name = 'UserFacingError';
    if (options?.resetAt) this.resetAt = options.resetAt;
  }
  /** When a refusal ends (a budget's next period), as an ISO timestamp. */
  readonly resetAt?: string;
}
