import { truncate } from '../../reply/text.js';

/**
 * The few words the adapter says on its own: the AI-app thread greeting and its suggested
 * prompts (Slack shows at most four). Everything else the bot says comes from the core.
 */
export const SUGGESTED_PROMPTS_TITLE = 'Try one of these';

export const SUGGESTED_PROMPTS: { title: string; message: string }[] = [
  { title: 'Recent campaigns', message: 'Which campaigns ran in the last two weeks?' },
  { title: 'Compare a competitor', message: 'How does our main competitor position its offer against ours?' },
  { title: 'Draft a quote', message: 'Help me draft a quote for a new customer.' },
  { title: 'What can you do?', message: 'What can you help me with?' },
];

export function greetingMessage(userId: string | undefined) {
  const hello = userId ? `Hi <@${userId}>! ` : 'Hi! ';
  const text = `${hello}I’m Switchboard, your team’s assistant. Ask me anything below, or pick a suggestion to start.`;
  return { text, blocks: [{ type: 'section' as const, text: { type: 'mrkdwn' as const, text } }] };
}

/** The AI-app thread title: the first question, on one line. */
export function threadTitle(text: string): string {
  return truncate(text.replace(/\s+/g, ' ').trim(), 80);
}
