import type { z } from 'zod';
import type { LlmClient } from './llm.js';
import type { ThreadState } from './thread-state.js';
import type { IncomingMessage, TurnEvent } from './turn.js';
import type { TenantDataPort, Tenant } from './data.js';
// pino's Logger, which src/telemetry/logger.ts makes: the contract stays below telemetry.
import type { Logger } from 'pino';
import type { Block } from '../reply/model.js';
import type { AgentExtension } from './extension.js';
import type { ToolFamily } from './toolsets.js';
import type { ToolEffect } from './approvals.js';

/** What a tool may know while it decides whether to be offered, and with which schema. */
export interface OfferContext {
  /** The turn's tenant (from the platform, never from the model): its settings, business, campaign. */
  tenant: Tenant;
  state: ThreadState;
  /** The database, bound to `tenant`: a tool cannot name another tenant. */
  data: TenantDataPort;
  log: Logger;
  /** The turn's message, when a turn asks (the memory tools are offered when it asks to remember or forget). */
  message?: IncomingMessage;
}

/** Attempts whose failures a user may make only so many of in a window (BOOKING_LOOKUP_FAILURES_PER_HOUR). */
export type FailureKind = 'booking_lookup';

export type FailureDecision =
  | { ok: true }
  /** Past the limit: `resetAt` (ISO) is when the oldest counted failure leaves the window. */
  | { ok: false; reason: 'limited'; limit: number; resetAt: string; windowSeconds: number }
  /** The store cannot be reached: treated as limited (fail closed). */
  | { ok: false; reason: 'unavailable' };

/**
 * The turn's user's failed attempts, bound by the agent to the user of the trusted turn (a
 * tool cannot name another user), kept in the rate-limit store (Redis when configured).
 */
export interface UserFailures {
  /** Whether the user may try again (not past the limit of `kind` failures in its window). */
  check(kind: FailureKind): Promise<FailureDecision>;
  /** Counts one failure of `kind`. */
  record(kind: FailureKind): Promise<void>;
}

export interface ToolContext extends OfferContext {
  /** The trusted turn: who asks (`message.role`: guest or member) comes from the platform, never from the model. */
  message: IncomingMessage;
  failures: UserFailures;
  llm: LlmClient;
  signal: AbortSignal;
  now: () => Date;
  /** Emits a tool-specific event into the turn's stream (e.g. `web_search`). */
  emit: (event: Extract<TurnEvent, { type: 'tool_event' }>) => void;
  /** Other people's words reached the model this turn (see `TurnScope.tainted`): a write or spend should wait for a person. */
  tainted?: boolean;
  /** Sets the thread's status line while the tool runs (an MCP server's progress notifications). */
  status?: (text: string) => void;
}

export interface ToolOutput {
  /** What the model reads as the tool's result. Keep it short: it costs tokens every step. */
  content: string;
  /** A one-line status for progress displays ("12 campaigns"). Defaults to the first line of content. */
  summary?: string;
  /** Blocks added to the user's reply. */
  blocks?: Block[];
  /** Blocks under the same key replace earlier ones in the turn (default: the tool's name). */
  blocksKey?: string;
  /** For a terminal tool: the reply text that ends the turn. */
  text?: string;
  /** Structured data for API clients (merged into the turn's `done.data`). */
  data?: Record<string, unknown>;
  /** Tokens a tool spent on its own model calls: added to the turn's usage (and the token ledger). */
  usage?: { promptTokens: number; completionTokens: number };
  /**
   * Images for the model (an MCP tool's image content, issue 44): shown after the step's results,
   * as image parts, when the model takes images; never kept in the thread's history.
   */
  images?: { mediaType: string; base64: string }[];
}

/**
 * One tool, one definition: its schema is the single source of truth for the JSON Schema
 * the model sees and for validating the model's arguments.
 */
export interface ToolDefinition<S extends z.ZodObject = z.ZodObject> {
  name: string;
  /** The family the tool belongs to (set by `createToolSet`): offered only to tenants that have it on. */
  family?: ToolFamily;
  /**
   * What a call does (issue 43): `read` (the default) changes nothing; `write` changes something
   * outside the turn; `spend` costs money beyond the model's tokens. With the tenant's policy and
   * the turn's taint it decides whether a call runs now, waits for a person, or is not offered.
   */
  effect?: ToolEffect;
  /**
   * A write the asker makes for themselves or their team (long-term memory, issue 45): with no
   * policy set it runs without a prompt (the tool itself keeps a guest to their own notes); a
   * tainted turn still waits for a person.
   */
  selfService?: boolean;
  /** Its output is written by others (web pages, competitors' profiles): a call that succeeds taints the rest of the turn. */
  taints?: boolean;
  /** A short human title for progress displays ("Searching campaigns"). */
  title: string;
  description: string;
  input: S;
  /**
   * The input as JSON Schema from elsewhere (an MCP server's `inputSchema`, issue 44): the model is
   * offered this instead of `input`'s export (strict only where strict mode can express it), and
   * `input` must validate the same (it checks the arguments against it before `run`).
   */
  jsonSchema?: Record<string, unknown>;
  /**
   * Narrows the input schema for this thread (e.g. an enum of not-yet-fetched ids).
   * Must return a schema whose parse output is assignable to `input`'s.
   */
  inputFor?: (ctx: OfferContext) => Promise<z.ZodObject> | z.ZodObject;
  /** Whether to offer the tool on this step. Default: always. */
  offer?: (ctx: OfferContext) => Promise<boolean> | boolean;
  /**
   * Text the tool contributes to the system context of later steps (from thread state). It is
   * sent after the conversation, as the request's last message: it may change from step to
   * step without breaking the providers' prompt cache of everything before it.
   */
  context?: (ctx: OfferContext) => Promise<string | undefined> | string | undefined;
  /**
   * Tenant-level text (the same for every thread of a tenant, e.g. the business profile): sent
   * right after the system prompt, so it is part of the prefix providers cache.
   */
  instructions?: (ctx: OfferContext) => Promise<string | undefined> | string | undefined;
  /** An emit tool: its validated arguments end the loop. */
  terminal?: boolean;
  timeoutMs?: number;
  run: (input: z.infer<S>, ctx: ToolContext) => Promise<ToolOutput>;
}

/** A failure the model can fix (bad id, missing field): its message goes back to the model. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}

/** Keeps the schema's type when declaring a tool. */
export function defineTool<S extends z.ZodObject>(def: ToolDefinition<S>): ToolDefinition<S> {
  return def;
}

/** A tool with its input type erased, as the registry stores it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- run() input is validated by `input` at runtime; the registry holds tools of many input types.
export type AnyTool = ToolDefinition<any>;

/** What a tool family contributes: its tools and the agent extensions (actions, commands, modes) that go with them. */
export interface ToolSet {
  tools: AnyTool[];
  extensions: AgentExtension[];
  /** Which families each tenant may use; without it every tool is on. */
  toolsets?: Toolsets;
}

/**
 * Tools that exist per tenant at run time (a tenant's MCP servers, issue 44): read by the registry
 * on every step, so a source caches; it never throws and never waits long (a tool it cannot
 * vouch for now is left out).
 */
export interface ToolSource {
  tools(ctx: OfferContext): Promise<readonly AnyTool[]>;
}

/** The tool families a tenant may use (its settings, or what it has data and configuration for). */
export interface Toolsets {
  /** The turn's tenant's families; cached per tenant, so a step pays no query. */
  enabled(ctx: OfferContext): Promise<ReadonlySet<ToolFamily>>;
  /** Forgets a tenant's cached families (its settings changed on this replica). */
  invalidate(tenantId: string): void;
}
