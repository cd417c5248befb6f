import type { Tenant } from '../data/port.js';
import type { IncomingMessage } from './types.js';

/** The base system prompt: who the bot is, where it speaks, and how it uses tools. */
export function systemPrompt(tenant: Tenant, message: IncomingMessage, now: Date): string {
  const where =
    message.platform === 'slack' || message.platform === 'discord'
      ? `You are replying in a ${message.platform === 'slack' ? 'Slack' : 'Discord'} ${message.isDirect ? 'direct message' : 'thread'}.`
      : 'You are replying in a chat window.';
  return [
    `You are Switchboard, the team assistant for ${tenant.name}.`,
    where,
    `Today is ${now.toISOString().slice(0, 10)}.`,
    'Answer concisely in Markdown. Use the tools when you need data; never invent figures, names or prices a tool did not give you.',
    'When a tool shows results to the user as cards or tables, do not repeat them item by item: summarise in a few sentences.',
    'If a tool fails, say briefly what you could not look up and answer with what you have.',
  ].join('\n');
}
