/**
 * Text helpers for Slack: LLM markdown → Slack `mrkdwn`, Slack markup → plain text for the
 * model (limits and splitting: src/reply/text.ts).
 */

/*
 * Every pattern here reads model or user text, so each is linear in it: quantifiers are bounded,
 * stop at the characters their syntax cannot hold (a `<` inside a token, a bracket inside a
 * label, a newline), and no two of them can match the same characters in different ways.
 */

/** Slack's own markup in a message: user/channel mentions, special mentions, links (no `<` inside one). */
const SLACK_TOKEN =
  /<(?:@[UWB][A-Z0-9]{1,40}|#[CGD][A-Z0-9]{1,40}(?:\|[^<>\n]{0,500})?|![a-z]{1,40}(?:\^[^<>|\n]{0,500})?(?:\|[^<>\n]{0,500})?|(?:https?|mailto):[^<>\s|]{1,2000}(?:\|[^<>\n]{0,500})?)>/g;
/** A markdown link or image: the label holds no bracket, the URL no bracket, parenthesis or space. */
const MARKDOWN_LINK = /!?\[([^[\]\n]{0,500})\]\(([^()\s<>[\]]{1,2000})(?:[ \t]{1,20}"[^"\n]{0,300}")?\)/g;
/**
 * A bare URL after a space or `(`, without the punctuation that ends the sentence around it. It
 * stops at `|`, which inside `<…>` would start a label: `https://a|https://b` is two URLs, never
 * a link to the first labelled with the second.
 */
const BARE_URL = /(^|[\s(])(https?:\/\/[^\s<>()|]{0,2000}[^\s<>()|.,;:!?'"])/g;

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
  text = text.replace(/```[^\n`]{0,100}\n([\s\S]*?)```/g, (_m, body: string) =>
    hold('```\n' + body.replace(/\n$/, '') + '\n```'),
  );
  text = text.replace(/`([^`\n]+)`/g, (_m, body: string) => hold('`' + body + '`'));
  text = text.replace(SLACK_TOKEN, (m) => hold(m));
  // Links and images before escaping, so their URLs stay intact.
  text = text.replace(MARKDOWN_LINK, (_m, label: string, url: string) =>
    hold(label.trim() ? `<${url}|${escapeMrkdwn(label).replaceAll('|', '¦')}>` : `<${url}>`),
  );
  text = text.replace(BARE_URL, (_m, pre: string, url: string) => `${pre}${hold(`<${url}>`)}`);
  const lines = text.split('\n').map((line) => {
    const quote = /^([ \t]*)>[ \t]?/.exec(line);
    if (quote) return `${quote[1]}> ${inline(line.slice(quote[0].length))}`;
    const heading = /^ {0,3}#{1,6}[ \t]/.exec(line);
    if (heading) return `*${stripEmphasis(inline(headingText(line.slice(heading[0].length))))}*`;
    if (isRule(line)) return '──────────';
    const bullet = /^([ \t]*)[-*+][ \t]+(.*)$/.exec(line);
    if (bullet) return `${bullet[1]}• ${inline(bullet[2] ?? '')}`;
    return inline(line);
  });
  // eslint-disable-next-line no-control-regex -- NUL delimits our own placeholders; it never occurs in chat text.
  return lines.join('\n').replace(/\u0000(\d+)\u0000/g, (_m, i: string) => held[Number(i)] ?? '');
}

/**
 * Emphasis and escaping inside one line. Bold goes through a placeholder so `*` is not re-read
 * as italic. A span's text never holds its own delimiter, so each attempt stops at the next one.
 */
function inline(line: string): string {
  return escapeMrkdwn(line)
    .replace(/\*\*(?=\S)((?:[^*]|\*(?!\*)){1,1000}?)(?<=\S)\*\*/g, '\u0001$1\u0001')
    .replace(/__(?=\S)((?:[^_]|_(?!_)){1,1000}?)(?<=\S)__/g, '\u0001$1\u0001')
    .replace(/(^|[^\w*])\*(?=\S)([^*\n]{1,1000}?)(?<=\S)\*(?!\w)/g, '$1_$2_')
    .replace(/~~(?=\S)((?:[^~]|~(?!~)){1,1000}?)(?<=\S)~~/g, '~$1~')
    .replaceAll('\u0001', '*');
}

/** A heading's text without its closing `#`s (`## Title ##`), trimmed; no regex backtracking over the line. */
function headingText(text: string): string {
  let end = text.length;
  while (end > 0 && /\s/.test(text[end - 1]!)) end--;
  let hashes = end;
  while (hashes > 0 && text[hashes - 1] === '#') hashes--;
  if (hashes < end && (hashes === 0 || /\s/.test(text[hashes - 1]!))) end = hashes;
  return text.slice(0, end).trim();
}

/** A thematic break: three or more of one of `-`, `*`, `_`, spaces between, up to three spaces before. */
function isRule(line: string): boolean {
  const marks = line.replace(/[ \t]/g, '');
  const mark = marks[0];
  return (
    /^ {0,3}[-*_]/.test(line) &&
    marks.length >= 3 &&
    (mark === '-' || mark === '*' || mark === '_') &&
    !marks.split(mark).join('')
  );
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
  if (botUserId) out = out.replaceAll(new RegExp(`<@${botUserId}(?:\\|[^<>]{0,500})?>[ \\t\\n]{0,20}`, 'g'), '');
  out = out
    .replace(/<#([CGD][A-Z0-9]{1,40})(?:\|([^<>]{0,500}))?>/g, (_m, id: string, name?: string) => `#${name || id}`)
    .replace(/<!(here|channel|everyone)(?:\|[^<>]{0,500})?>/g, '@$1')
    .replace(/<!subteam\^[A-Z0-9]{1,40}\|([^<>]{0,500})>/g, '$1')
    .replace(/<((?:https?|mailto):[^<>|]{1,2000})\|([^<>]{0,500})>/g, (_m, url: string, label: string) =>
      label === url ? url : `${label} (${url})`,
    )
    .replace(/<((?:https?|mailto):[^<>|]{1,2000})>/g, '$1');
  return out.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&').trim();
}
