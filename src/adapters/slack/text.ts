/**
 * Text helpers for Slack: LLM markdown → Slack `mrkdwn`, Slack markup → plain text for the
 * model (limits and splitting: src/reply/text.ts).
 */

/** Slack's own markup in a message: user/channel mentions, special mentions, links. */
const SLACK_TOKEN =
  /<(?:@[UWB][A-Z0-9]+|#[CGD][A-Z0-9]+(?:\|[^>\n]*)?|![a-z]+(?:\^[^>\n]*)?(?:\|[^>\n]*)?|(?:https?|mailto):[^>\s|]+(?:\|[^>\n]*)?)>/g;

/** Escapes the three characters Slack's mrkdwn reserves. */
export function escapeMrkdwn(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/**
 * CommonMark-ish markdown (what LLMs write) → Slack mrkdwn, for section and context text.
 * Code spans and fences are kept verbatim; Slack mention/link tokens the model copied survive
 * here, and every message then passes src/adapters/slack/inert.ts, which decides which of them
 * may stay live (none of the special mentions; user mentions only of people in the thread).
 */
export function toMrkdwn(markdown: string): string {
  const held: string[] = [];
  const hold = (s: string) => `\u0000${held.push(s) - 1}\u0000`;
  let text = markdown.replace(/\r\n?/g, '\n');
  // Fences first (drop the language tag Slack would print), then inline code.
  text = text.replace(/```[^\n`]*\n([\s\S]*?)```/g, (_m, body: string) =>
    hold('```\n' + body.replace(/\n$/, '') + '\n```'),
  );
  text = text.replace(/`([^`\n]+)`/g, (_m, body: string) => hold('`' + body + '`'));
  text = text.replace(SLACK_TOKEN, (m) => hold(m));
  // Links and images before escaping, so their URLs stay intact.
  text = text.replace(/!?\[([^\]\n]*)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g, (_m, label: string, url: string) =>
    hold(label.trim() ? `<${url}|${escapeMrkdwn(label).replaceAll('|', '¦')}>` : `<${url}>`),
  );
  text = text.replace(
    /(^|[\s(])(https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"])/g,
    (_m, pre: string, url: string) => `${pre}${hold(`<${url}>`)}`,
  );
  const lines = text.split('\n').map((line) => {
    const quote = /^(\s*)>\s?(.*)$/.exec(line);
    if (quote) return `${quote[1]}> ${inline(quote[2] ?? '')}`;
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) return `*${stripEmphasis(inline(heading[1] ?? ''))}*`;
    if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) return '──────────';
    const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line);
    if (bullet) return `${bullet[1]}• ${inline(bullet[2] ?? '')}`;
    return inline(line);
  });
  // eslint-disable-next-line no-control-regex -- NUL delimits our own placeholders; it never occurs in chat text.
  return lines.join('\n').replace(/\u0000(\d+)\u0000/g, (_m, i: string) => held[Number(i)] ?? '');
}

/** Emphasis and escaping inside one line. Bold goes through a placeholder so `*` is not re-read as italic. */
function inline(line: string): string {
  return escapeMrkdwn(line)
    .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, '\u0001$2\u0001')
    .replace(/(^|[^\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?!\w)/g, '$1_$2_')
    .replace(/~~(?=\S)(.+?)(?<=\S)~~/g, '~$1~')
    .replaceAll('\u0001', '*');
}

function stripEmphasis(text: string): string {
  return text.replace(/^\*(.*)\*$/, '$1');
}

/**
 * Slack markup in a user's message → the plain text the model reads: the bot's own mention
 * removed, links as `label (url)`, channel names kept, entities decoded.
 */
export function slackToPlain(text: string, botUserId?: string): string {
  let out = text;
  if (botUserId) out = out.replaceAll(new RegExp(`<@${botUserId}(?:\\|[^>]*)?>\\s*`, 'g'), '');
  out = out
    .replace(/<#([CGD][A-Z0-9]+)(?:\|([^>]*))?>/g, (_m, id: string, name?: string) => `#${name || id}`)
    .replace(/<!(here|channel|everyone)(?:\|[^>]*)?>/g, '@$1')
    .replace(/<!subteam\^[A-Z0-9]+\|([^>]*)>/g, '$1')
    .replace(/<((?:https?|mailto):[^>|]+)\|([^>]*)>/g, (_m, url: string, label: string) =>
      label === url ? url : `${label} (${url})`,
    )
    .replace(/<((?:https?|mailto):[^>|]+)>/g, '$1');
  return out.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&').trim();
}
