import type { Reply } from '../reply/model.js';

/** Guests get the lower tool limits (see src/security/rate-limits.ts). */
export type UserRole = 'guest' | 'member';

export type Platform = 'slack' | 'discord' | 'http' | 'console';

/**
 * The longest message a person may send, in characters (UTF-16 code units, as JavaScript and
 * zod count them). Every adapter refuses a longer one where it comes in, before any work over
 * its text (normalizing, token counting, the agent): HTTP with a 400, Slack and Discord with
 * `messageTooLongText` in the conversation.
 */
export const MAX_MESSAGE_CHARS = 20_000;

/** What a person is told when their message is over `MAX_MESSAGE_CHARS`. */
export function messageTooLongText(chars: number): string {
  return (
    `That message is ${chars.toLocaleString('en-US')} characters long; I read at most ` +
    `${MAX_MESSAGE_CHARS.toLocaleString('en-US')}. Please send a shorter one, or split it into parts.`
  );
}

/** What every adapter hands the core. */
export interface IncomingMessage {
  platform: Platform;
  /** Slack team (or enterprise), Discord guild, or 'default'; mapped to a tenant by the core. */
  workspaceId: string;
  /** The organization the workspace belongs to (a Slack Enterprise Grid org): its tenant mapping serves workspaces without their own. */
  orgId?: string;
  /**
   * A tenant slug the adapter established from the caller's credential (an HTTP tenant token,
   * or a loopback caller without API_TOKEN naming one); the core then serves that tenant
   * instead of the workspace's. Only the HTTP adapter sets it, never from an unverified claim.
   */
  tenant?: string;
  channelId: string;
  threadId: string;
  messageId: string;
  userId: string;
  /**
   * Guests get the lower tool limits: Slack guests (`is_restricted`), anonymous HTTP callers,
   * Discord users without a member role when DISCORD_MEMBER_ROLES is set. Required, so no
   * adapter can forget to decide.
   */
  role: UserRole;
  isDirect: boolean;
  text: string;
  /** A slash command: `/ask`, `/quote`. */
  command?: { name: string; options: Record<string, string> };
  /** A button click on one of our blocks. */
  action?: { id: string; value?: string };
}

export interface Usage {
  /** Every prompt token, cached or not. */
  promptTokens: number;
  /** Every completion token, reasoning included. */
  completionTokens: number;
  /** Prompt tokens the provider served from its prompt cache (billed at a lower rate); part of `promptTokens`. */
  cachedPromptTokens?: number;
  /** Tokens the model spent reasoning; part of `completionTokens`. */
  reasoningTokens?: number;
}

export interface ToolCallRecord {
  id: string;
  tool: string;
  arguments: unknown;
  ok: boolean;
  summary: string;
  latencyMs: number;
  /** Why a call failed, for API clients (`rate_limited` carries its limit and reset time). */
  error?: ToolCallError;
}

export interface ToolCallError {
  code:
    | 'rate_limited'
    | 'tool_timeout'
    | 'validation_failed'
    | 'unknown_tool'
    | 'tool_disabled'
    | 'tool_failed'
    | 'limit_unavailable';
  limit?: number;
  remaining?: number;
  resetAt?: string;
}

/** What the core streams while it works; adapters render each as they can. */
export type TurnEvent =
  | { type: 'status'; text: string }
  | { type: 'text_delta'; text: string }
  /** The model is reasoning (the HTTP API's `reasoning` SSE event): progress only, the reasoning itself is never sent. */
  | { type: 'reasoning_status'; text: string }
  | { type: 'tool_call_start'; callId: string; tool: string; title: string; arguments?: unknown }
  | { type: 'tool_result'; callId: string; tool: string; ok: boolean; summary: string }
  /** A tool's own event (e.g. `web_search`, `image_complete`), passed through to streams. */
  | { type: 'tool_event'; name: string; data: Record<string, unknown> }
  | { type: 'reply'; reply: Reply }
  /** `flags`: `prompt_injection` when the user's message was flagged (and fenced as untrusted). */
  | { type: 'done'; usage: Usage; toolCalls: ToolCallRecord[]; data: Record<string, unknown>; flags?: TurnFlag[] }
  /**
   * `message` is safe to show a user. `notify: false`: do not post it in a chat (a flood's
   * later refusals: the user already got one notice); API clients still get the error.
   */
  | ({ type: 'error'; code: ErrorCode; message: string; notify?: false } & RefusalDetails);

export type TurnFlag = 'prompt_injection';

/** When a refusal ends, as an ISO timestamp, and the limit that refused. */
export interface RefusalDetails {
  resetAt?: string;
  limit?: number;
  remaining?: number;
}

export type ErrorCode =
  | 'llm_unavailable'
  | 'llm_error'
  | 'turn_timeout'
  | 'tenant_not_configured'
  | 'bad_request'
  | 'budget_exhausted'
  | 'rate_limited'
  | 'internal';

/** An error whose message is written for the user. */
export class UserFacingError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown; notify?: boolean } & RefusalDetails,
  ) {
    super(message, options);
    this.name = 'UserFacingError';
    const { resetAt, limit, remaining, notify } = options ?? {};
    this.details = {
      ...(resetAt ? { resetAt } : {}),
      ...(limit !== undefined ? { limit } : {}),
      ...(remaining !== undefined ? { remaining } : {}),
    };
    this.notify = notify !== false;
  }
  /** When a refusal ends (a budget's next period, a rate limit's window) and what refused. */
  readonly details: RefusalDetails;
  /** False for a refusal the user was already told about. */
  readonly notify: boolean;
}
