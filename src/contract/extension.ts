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

/** How the agent loop ended one turn. */
export interface LoopResult {
  text: string;
  blocks: Block[];
  data: Record<string, unknown>;
  toolCalls: ToolCallRecord[];
  usage: Usage;
  /** The messages this turn added after the user's: what the thread history keeps. */
  added: ChatMessage[];
  ended: 'answer' | 'terminal' | 'step_cap' | 'no_terminal';
  terminal?: { tool: string; args: Record<string, unknown> };
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

export interface AgentExtension {
  /** Keyed by the action id up to its first '.', e.g. `campaigns` for `campaigns.more`. */
  actions?: Record<string, ActionHandler>;
  commands?: Record<string, CommandHandler>;
  modes?: Record<string, ModeDefinition>;
}
