import type { Tenant } from '../contract/data.js';
import type { IncomingMessage } from '../contract/turn.js';

/**
 * A tenant's `ai_config` (in its settings, docs/business.md): how the bot speaks for it. Unknown keys
 * and bad values are ignored, so a typo in an import never breaks a turn.
 */
export interface AiConfig {
  /** e.g. "warm and concise", "formal". */
  tone?: string;
  /** A BCP 47 language code ("da", "en-GB"): answers are in that language unless the user writes in another. */
  language?: string;
  /** Extra instructions of the tenant's, one paragraph. */
  instructions?: string;
}

export function aiConfigOf(tenant: Tenant): AiConfig {
  const raw = tenant.settings?.ai_config;
  if (!raw || typeof raw !== 'object') return {};
  const get = (key: string, max: number) => {
    const v = (raw as Record<string, unknown>)[key];
    return typeof v === 'string' && v.trim() && v.length <= max ? v.trim() : undefined;
  };
  const language = get('language', 35);
  const validLanguage = language && /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(language) ? language : undefined;
  return { tone: get('tone', 200), language: validLanguage, instructions: get('instructions', 2_000) };
}

/** "da" → "Danish"; the code itself when the runtime does not know it. */
export function languageName(code: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/** The base system prompt: who the bot is, where it speaks, how it uses tools, and the tenant's voice. */
export function systemPrompt(tenant: Tenant, message: IncomingMessage, now: Date): string {
  const where =
    message.platform === 'slack' || message.platform === 'discord'
      ? `a ${message.platform === 'slack' ? 'Slack' : 'Discord'} ${message.isDirect ? 'direct message' : 'thread'}`
      : 'a chat window';
  const ai = aiConfigOf(tenant);
  return [
    // Same text for every turn of a thread on a given day (no clock time): providers' prompt caches hit.
    `You are Switchboard, the team assistant for ${tenant.name}, replying in ${where}. Today is ${now.toISOString().slice(0, 10)}.`,
    'Answer concisely in Markdown. Use the tools for data; never invent figures, names or prices.',
    'When a tool shows cards or tables, summarise them in a few sentences, without listing them again.',
    'If a tool fails, say briefly what you could not look up and answer with what you have.',
    ...(ai.language
      ? [`Answer in ${languageName(ai.language)} unless the user writes in another language; then answer in theirs.`]
      : []),
    ...(ai.tone ? [`Tone: ${ai.tone}.`] : []),
    ...(ai.instructions ? [ai.instructions] : []),
  ].join('\n');
}
