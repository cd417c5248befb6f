/**
 * What tool families add to the agent besides tools: button actions, slash commands and modes,
 * and what they see of a turn. The agent runs them; the tools define them; neither imports the other.
 */
import type { TenantDataPort, Tenant } from './data.js';
// pino's Logger, which src/telemetry/logger.ts makes: the contract stays below telemetry.
import type { Logger } from 'pino';
import type { Block, Reply } from '../reply/model.js';
import type { ChatMessage, LlmClient } from './llm.js';
import type { ThreadState } from './thread-state.js';
import type { IncomingMessage, ToolCallRecord, Usage } from './turn.js';
import type { TaintReason } from './thread-context.js';

/** How the agent loop ended one turn. */
/** A tool call that waits for a person's OK (issue 43): validated, not run. */
export interface PendingCall {
  callId: string;
  tool: string;
  title: string;
  arguments: Record<string, unknown>;
  /** Why it waits: the tenant's policy, the effect's default, or the turn's taint. */
  reason: 'policy' | 'default' | 'taint';
}

export interface LoopResult {
  text: string;
  blocks: Block[];
  data: Record<string, unknown>;
  toolCalls: ToolCallRecord[];
  usage: Usage;
  /** The messages this turn added after the user's: what the thread history keeps. */
  added: ChatMessage[];
  /** `approval`: calls wait for a person (`pending`); the turn resumes when they are decided (issue 43). */
  ended: 'answer' | 'terminal' | 'step_cap' | 'no_terminal' | 'approval';
  pending?: PendingCall[];
  terminal?: { tool: string; args: Record<string, unknown> };
  /** The model that answered the last step, as the endpoint chain names it (a fallback's after a failover). */
  model?: string;
}

/** What a turn's helpers (actions, commands) may use. */
export interface TurnScope {
  message: IncomingMessage;
  tenant: Tenant;
  state: ThreadState;
  data: TenantDataPort;
  llm: LlmClient;
  log: Logger;
  now: () => Date;
  /**
   * Words of people other than the asker reached the model this turn (the thread before the
   * message, an attachment): the turn may read, and a tool that writes or spends should wait for
   * a person (issue 43 reads it). Set before the model is asked; `taintedBy` says why.
   */
  tainted?: boolean;
  taintedBy?: TaintReason[];
}

/** A button click either answers directly (paging: no model call) or becomes the user's next message. */
export type ActionResult = { reply: Reply } | { message: string };
export type ActionHandler = (action: { id: string; value?: string }, scope: TurnScope) => Promise<ActionResult>;
/** A slash command becomes a message, optionally after entering a mode (set `scope.state.mode`). */
export type CommandHandler = (options: Record<string, string>, scope: TurnScope) => Promise<ActionResult>;

/** A mode narrows the loop: its own system prompt and tools, optionally ending only by an emit tool. */
export interface ModeDefinition {
  system: (scope: TurnScope) => string;
  tools: readonly string[];
  maxSteps?: number;
  /** Tool calls the mode may make in one turn (its emit calls included); default AGENT_MAX_TOOL_CALLS. */
  maxToolCalls?: number;
  requireTerminal?: { nudge: string; giveUp: string };
  /** Called after the mode's loop ends (keep or leave the mode, adjust the reply). */
  after?: (result: LoopResult, scope: TurnScope) => Promise<void> | void;
}

/**
 * What a family recalls for a turn before its first model call (long-term memory, issue 45): a
 * note for the model (data, fenced by the family) placed after the cacheable prefix, and how many
 * items it holds (the turn record keeps the count, never the text). Undefined: nothing to add.
 */
export interface Recalled {
  note: string;
  count: number;
}
export type RecallHandler = (scope: TurnScope, text: string, signal: AbortSignal) => Promise<Recalled | undefined>;

export interface AgentExtension {
  /** Recalls what the turn may see before the model is first asked (issue 45: long-term memory). */
  recall?: RecallHandler;
  /** Keyed by the action id up to its first '.', e.g. `campaigns` for `campaigns.more`. */
  actions?: Record<string, ActionHandler>;
  commands?: Record<string, CommandHandler>;
  modes?: Record<string, ModeDefinition>;
}
