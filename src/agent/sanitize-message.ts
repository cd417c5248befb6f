import { clean } from '../security/sanitize.js';
import type { IncomingMessage } from '../contract/turn.js';

/** The message with its text, command options and action value sanitized (ids are left as the platform sent them). */
export function sanitizeMessage(message: IncomingMessage): IncomingMessage {
  const out: IncomingMessage = { ...message, text: clean(message.text) };
  if (message.command) {
    const options: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const [k, v] of Object.entries(message.command.options)) options[k] = clean(v);
    out.command = { name: message.command.name, options };
  }
  if (message.action)
    out.action = {
      id: message.action.id,
      ...(message.action.value !== undefined ? { value: clean(message.action.value) } : {}),
    };
  return out;
}
