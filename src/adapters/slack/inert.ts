/**
 * Model text is data in a Slack chat. Everything Switchboard posts, updates or streams into
 * Slack passes through here (ThreadPoster, StreamDelivery, the handlers' own notices), so no
 * delivery path can forget it:
 *
 * - Special mentions (`<!channel>`, `<!here>`, `<!everyone>`, `<!subteam^…>`) are never live:
 *   they render as plain text (`@channel`). `<!date…>` is formatting and stays.
 * - A user mention (`<@U…>`) stays live only for people already in the conversation (the
 *   asker, people the thread's messages mentioned); anyone else is plain text (`@name`).
 * - Markdown images are links, never images.
 * - Posts and updates carry `unfurl_links: false, unfurl_media: false` unless every link in
 *   the message is on SLACK_UNFURL_DOMAINS. Slack's streaming methods take no unfurl flags,
 *   so streamed text shows links off that list as code (copyable, never fetched by Slack).
 */
import type { types } from '@slack/bolt';
import { linksIn, onDomains } from '../links.js';

/** Who a mention in our text may still ping, and which links Slack may preview. */
export interface SlackAudience {
  /** People already in the conversation: the asker and those the thread's messages mention. */
  people: ReadonlySet<string>;
  /** SLACK_UNFURL_DOMAINS: hosts (and their subdomains) whose links may unfurl. */
  unfurlDomains: readonly string[];
}

/** Slack's mention markup: users, special mentions (`<!here>`, `<!subteam^S1|@team>`, `<!date^…>`). */
const MENTION = /<(@[UWB][A-Z0-9]+|![a-z]+(?:\^[^>|\n]*)?)(?:\|([^>\n]*))?>/gi;
/** Links as Slack markup, markdown, or bare; one pass, so a rewritten link is not read again. */
const LINK =
  /<(https?:[^>|\s]+)(?:\|([^>\n]*))?>|\[([^\]\n]*)\]\((https?:[^)\s]+)(?:\s+"[^"]*")?\)|(https?:\/\/[^\s<>|()[\]`"']+)/gi;
/** Code spans and fences (a fence still open runs to the end): a link inside is already inert. */
const CODE = /(```[\s\S]*?(?:```|$)|`[^`\n]*`)/;

/** Mentions and images in one piece of text (mrkdwn, markdown or plain) made inert. */
export function inertText(text: string, audience: SlackAudience): string {
  return text
    .replace(MENTION, (whole, target: string, label: string | undefined) => {
      const name = label?.trim().replace(/^@/, '');
      if (target.startsWith('@')) return audience.people.has(target.slice(1)) ? whole : `@${name || target.slice(1)}`;
      const special = target.slice(1).toLowerCase();
      if (special.startsWith('date')) return whole;
      if (special.startsWith('subteam')) return `@${name || 'group'}`;
      return `@${special.split('^')[0]}`;
    })
    .replace(/!\[([^\]\n]*)\]\(/g, '[$1](');
}

/**
 * Streamed text: `inertText`, and links off SLACK_UNFURL_DOMAINS shown as code (a stream takes
 * no unfurl flags). `inFence`: the text continues a code fence opened in an earlier append.
 */
export function inertStreamText(text: string, audience: SlackAudience, inFence = false): string {
  const open = inFence ? '```\n' : '';
  const parts = inertText(open + text, audience).split(CODE);
  return parts
    .map((part, i) => (i % 2 === 1 ? part : defang(part, audience.unfurlDomains)))
    .join('')
    .slice(open.length)
    .replace(/<(?=[@!#]|https?:|mailto:)(?=[^>\n]*$)/i, '‹');
}

function defang(text: string, domains: readonly string[]): string {
  const code = (url: string) => `\`${url.replaceAll('`', '')}\``;
  return text.replace(
    LINK,
    (whole, slackUrl?: string, slackLabel?: string, mdLabel?: string, mdUrl?: string, bare?: string) => {
      const url = slackUrl ?? mdUrl ?? bare ?? '';
      if (onDomains(url, domains)) return whole;
      const label = (slackLabel ?? mdLabel ?? '').trim();
      return label && label !== url ? `${label} (${code(url)})` : code(url);
    },
  );
}

/** A message as chat.postMessage / chat.update take it. */
export interface SlackMessageArgs {
  text: string;
  blocks: types.KnownBlock[];
}

/** Whether a message may unfurl: only when it holds links and all of them are on SLACK_UNFURL_DOMAINS. */
export interface UnfurlFlags {
  unfurl_links: boolean;
  unfurl_media: boolean;
}

/** A whole message made inert, with its unfurl flags: what every post and update sends. */
export function inertMessage<M extends SlackMessageArgs>(message: M, audience: SlackAudience): M & UnfurlFlags {
  const strings: string[] = [];
  const text = inertText(message.text, audience);
  strings.push(text);
  const blocks = mapTexts(message.blocks, (s) => {
    const out = inertText(s, audience);
    strings.push(out);
    return out;
  });
  const links = strings.flatMap(linksIn);
  const unfurl = links.length > 0 && links.every((url) => onDomains(url, audience.unfurlDomains));
  return { ...message, text, blocks, unfurl_links: unfurl, unfurl_media: unfurl };
}

/** Blocks for the end of a stream (chat.stopStream): inert, links off the list as code. */
export function inertStreamBlocks(blocks: types.KnownBlock[], audience: SlackAudience): types.KnownBlock[] {
  return mapTexts(blocks, (s) => inertStreamText(s, audience));
}

/** A copy of `value` with every string under a `text` key passed through `fn`. */
function mapTexts<T>(value: T, fn: (s: string) => string): T {
  if (Array.isArray(value)) return value.map((v: unknown) => mapTexts(v, fn)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      out[k] = k === 'text' && typeof v === 'string' ? fn(v) : mapTexts(v, fn);
    return out as T;
  }
  return value;
}

/**
 * How much of `text` may be streamed now: a Slack token (`<…>`), a markdown link or a URL
 * still being written waits for its end, so the pieces are never made inert apart (a
 * `<!chan` and a `nel>` in two appends would join into a live mention in Slack). A wait
 * longer than MAX_HELD gives up: the piece goes out with its `<` made harmless.
 */
export function streamableLength(text: string): number {
  const lineStart = text.lastIndexOf('\n') + 1;
  const line = text.slice(lineStart);
  let cut = line.length;
  const lt = line.lastIndexOf('<');
  if (lt >= 0 && !line.includes('>', lt)) cut = Math.min(cut, lt);
  const br = line.lastIndexOf('[');
  if (br >= 0 && /^\[[^\]]*(?:\](?:\([^)\s]*)?)?$/.test(line.slice(br)))
    cut = Math.min(cut, br > 0 && line[br - 1] === '!' ? br - 1 : br);
  // The last word may be the start of a URL or a token (`h`, `<`, `[`): it waits for the space after it.
  const word = /\S*$/.exec(line)?.[0] ?? '';
  cut = Math.min(cut, line.length - word.length);
  // An inline code span still open waits for its closing backtick.
  let tick = -1;
  for (const m of line.matchAll(/```|`/g)) if (m[0] === '`') tick = tick < 0 ? m.index : -1;
  if (tick >= 0) cut = Math.min(cut, tick);
  // Never inside a finished token, markdown link or code span: it goes out whole, next time.
  for (const m of line.matchAll(/<[^>\n]*>|!?\[[^\]\n]*\]\([^)\s]*\)|`[^`\n]*`/g)) {
    if (m.index < cut && cut < m.index + m[0].length) cut = m.index;
  }
  return line.length - cut > MAX_HELD ? text.length : lineStart + cut;
}

const MAX_HELD = 300;
