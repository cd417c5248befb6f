import type { IncomingMessage } from '../contract/turn.js';

/**
 * Where a platform has no native slash commands (HTTP, console), a message typed as
 * `/ask …` or `/quote <mode> …` becomes the same command Slack and Discord send.
 */
export function parseTypedCommand(text: string): IncomingMessage['command'] | undefined {
  const match = /^\/(ask|quote)(?:\s+([\s\S]*))?$/i.exec(text.trim());
  if (!match) return undefined;
  const name = (match[1] ?? '').toLowerCase();
  const rest = (match[2] ?? '').trim();
  if (name === 'ask') return { name, options: { question: rest } };
  const [mode = '', ...words] = rest.split(/\s+/);
  return { name, options: { mode: mode.toLowerCase(), request: words.join(' ') } };
}
