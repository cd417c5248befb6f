import type { Reply } from '../reply/model.js';
import type { ThreadContextSource } from './thread-context.js';

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
  /** The channel's parent where it has one (a Discord channel's category): its settings apply where the channel sets none (issue 46). */
  channelParentId?: string;
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
  /** The clicker's Discord role ids (a button click): whether they may approve (issue 43). */
  platformRoles?: string[];
  /**
   * Whether the clicker is a member of a platform user group (a Slack user group `S…`): whether
   * they may approve (issue 43). Set by the adapter when the turn runs, never stored; it throws
   * when the platform will not say (a missing scope), and the click is then refused.
   */
  inGroup?: (group: string) => Promise<boolean>;
  /**
   * The thread before this message (issue 42), when the adapter can fetch it: set when the turn
   * runs, never stored. The core fetches it at most once a turn (src/agent/thread-context.ts).
   */
  threadContext?: ThreadContextSource;
  /** Files shared with the message (issue 42): references only; src/attachments fetches and reads them in the turn. */
  attachments?: IncomingAttachment[];
  /**
   * The platform's way to fetch `attachments` with its credentials (Slack's bot token), set by
   * the adapter when the turn runs, never stored. Without it the core uses the platform's
   * default (Discord's CDN, the HTTP API's inline bytes, the console's paths).
   */
  attachmentFetcher?: AttachmentFetcher;
}

/**
 * Fetches a shared file's bytes, streamed and capped: at most `maxBytes` are read (past them it
 * throws), and only the platform's own hosts are asked (a URL or a redirect elsewhere is refused).
 */
export interface AttachmentFetcher {
  fetch(ref: IncomingAttachment, limits: { maxBytes: number; signal: AbortSignal }): Promise<Uint8Array>;
}

/**
 * A file shared with a message, as the adapter saw it. It holds no bytes of a platform's file
 * (the inbox keeps it durably): the turn fetches them through the platform's downloader, which
 * refuses any host but the platform's own. The declared type is the sender's claim; what the
 * file is comes from its bytes.
 */
export interface IncomingAttachment {
  name: string;
  /** The type the platform or the sender declared (never trusted for reading). */
  mediaType: string;
  /** The size the platform declared, in bytes, when it did. */
  size?: number;
  source:
    | { kind: 'url'; url: string }
    /** Base64 bytes sent inline (the HTTP API). */
    | { kind: 'inline'; data: string }
    /** A local file (the console only: the core reads a path for no other platform). */
    | { kind: 'path'; path: string };
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
  /** The call waited for a person (issue 43): the decision, the approver's keyed hash, the wait. */
  approval?: ApprovalRecord;
}

/** One approval as the turn record keeps it: no platform id, the approver as a keyed hash like users. */
export interface ApprovalRecord {
  outcome: 'approved' | 'denied' | 'expired';
  approverHash?: string;
  waitMs: number;
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
  /**
   * Calls wait for a person (issue 43): one event per paused step, after the pending approvals are
   * recorded. `approvers` are user ids (empty: the asker alone); the turn resumes on a decision.
   */
  /** A click decided an approval (issue 43): adapters update the approval message (who, when; no buttons). */
  | { type: 'approval_decided'; outcome: 'approved' | 'denied' | 'expired'; by: string; at: string }
  | {
      type: 'approval_required';
      stepId: string;
      approvals: { id: string; tool: string; title: string; arguments: Record<string, unknown> }[];
      approvers: string[];
      expiresAt: string;
    }
  /** `flags`: `prompt_injection` when the user's message was flagged (and fenced as untrusted). */
  | {
      type: 'done';
      usage: Usage;
      toolCalls: ToolCallRecord[];
      data: Record<string, unknown>;
      flags?: TurnFlag[];
      /** The model that answered (a channel's, a fallback's after a failover); absent when no model was asked. */
      model?: string;
      /** The turn record's id (issue 47): what a vote on this answer names (`POST /api/feedback`). */
      turnId?: string;
    }
  /**
   * `message` is safe to show a user. `notify: false`: do not post it in a chat (a flood's
   * later refusals: the user already got one notice); API clients still get the error.
   * `retry: true` (only when the caller asked for it, see `TurnOptions`): Redis or Postgres could
   * not be reached before any of the answer was shown; not for the user, the caller runs the turn
   * again later.
   */
  | ({
      type: 'error';
      code: ErrorCode;
      message: string;
      notify?: false;
      retry?: true;
      /** For the clicker alone where the platform can say it privately (Slack's response_url): a stranger's approval click. */
      private?: true;
    } & RefusalDetails);

/** How a caller runs a turn. */
export interface TurnOptions {
  /**
   * The caller can run the turn again later (an inbox entry with tries left): a turn that cannot
   * reach Redis or Postgres before showing anything then ends with an `error` marked `retry`,
   * unrecorded, instead of one for the user.
   */
  retryable?: boolean;
  /**
   * Asked once the turn holds its thread, before anything else: false when another run of the
   * same inbox entry answered it meanwhile (one whose lease lapsed while its process stalled, so
   * the inbox ran the entry again). The turn then ends with no event.
   */
  stillToDo?: () => Promise<boolean>;
  /** The inbox ran this message before: it was counted against the user's message rate then. */
  replay?: boolean;
}

/**
 * `context_injection`: the thread before the message (fenced as data) looked like a prompt injection;
 * `attachment_injection`: a shared file's text (fenced as data) did.
 */
export type TurnFlag = 'prompt_injection' | 'context_injection' | 'attachment_injection';

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
  /** Redis or Postgres could not be reached (HTTP 503). */
  | 'unavailable'
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
