import type {
  ActionHandler,
  ActionResult,
  AgentExtension,
  CommandHandler,
  ModeDefinition,
  RecallHandler,
  TurnScope,
} from '../contract/extension.js';
import { UserFacingError, type IncomingMessage, type TurnEvent } from '../contract/turn.js';

export type Extensions = Required<AgentExtension>;

/** The families' actions, commands and modes in one set, with the built-in `/ask` and `suggest` buttons. */
export function agentExtensions(list: AgentExtension[]): Extensions {
  const ext = mergeExtensions(list);
  ext.commands.ask ??= async (options) => ({ message: options.question ?? options.text ?? '' });
  ext.actions.suggest ??= async (action) => ({ message: action.value ?? '' });
  return ext;
}

/** The handler of a button's action id (keyed by the id up to its first '.'). */
export function actionHandler(ext: Extensions, actionId: string): ActionHandler | undefined {
  return ownEntry(ext.actions, actionId.split('.', 1)[0] ?? '');
}

/**
 * What the model is asked: the message's text, or what its button or command turned into. A
 * handler that answers directly (paging) emits its reply and `done` here, after
 * `answeredDirectly` wrote its turn record, and the result is `undefined`: the turn is over.
 */
export async function resolveText(
  ext: Extensions,
  message: IncomingMessage,
  scope: TurnScope,
  emit: (e: TurnEvent) => void,
  answeredDirectly: () => Promise<void>,
): Promise<string | undefined> {
  let outcome: ActionResult = { message: message.text };
  if (message.action) {
    const handler = actionHandler(ext, message.action.id);
    if (!handler)
      throw new UserFacingError('bad_request', 'That button is no longer available. Ask me again in the thread.');
    outcome = await handler(message.action, scope);
  } else if (message.command) {
    const handler = ownEntry(ext.commands, message.command.name);
    if (!handler) throw new UserFacingError('bad_request', `Unknown command /${message.command.name}.`);
    outcome = await handler(message.command.options, scope);
  }
  if ('reply' in outcome) {
    emit({ type: 'reply', reply: outcome.reply });
    await answeredDirectly();
    emit({ type: 'done', usage: { promptTokens: 0, completionTokens: 0 }, toolCalls: [], data: {} });
    return undefined;
  }
  const text = outcome.message.trim();
  if (!text) throw new UserFacingError('bad_request', 'Your message was empty. What would you like to know?');
  return text;
}

/** A handler registered under exactly this name, never one inherited from Object.prototype. */
function ownEntry<T>(map: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(map, key) ? map[key] : undefined;
}

function mergeExtensions(list: AgentExtension[]): Extensions {
  // Null-prototype maps: an action id or command name like `__proto__` or `toString` finds nothing.
  const out: Extensions = {
    actions: Object.create(null) as Record<string, ActionHandler>,
    commands: Object.create(null) as Record<string, CommandHandler>,
    modes: Object.create(null) as Record<string, ModeDefinition>,
    recall: async () => undefined,
  };
  const recalls: RecallHandler[] = [];
  for (const e of list) {
    Object.assign(out.actions, e.actions);
    Object.assign(out.commands, e.commands);
    Object.assign(out.modes, e.modes);
    if (e.recall) recalls.push(e.recall);
  }
  // One family recalls today (memory); several would each add their own note, in order.
  if (recalls.length === 1) out.recall = recalls[0]!;
  else if (recalls.length > 1)
    out.recall = async (scope, text, signal) => {
      const got = (await Promise.all(recalls.map((r) => r(scope, text, signal)))).filter((r) => r !== undefined);
      if (got.length === 0) return undefined;
      return { note: got.map((r) => r.note).join('\n'), count: got.reduce((n, r) => n + r.count, 0) };
    };
  return out;
}
