/**
 * Model text is data in a Slack chat. Everything Switchboard posts, updates or streams into
 * Slack passes through here (ThreadPoster, StreamDelivery, the handlers' own notices), so no
 * delivery path can forget it:
 *
 * - Special mentions (`<!channel>`, `<!here>`, `<!everyone>`, `<!subteam^…>`) are never live:
 *   they render as plain text (`@channel`). `<!date…>` is formatting and stays, without its link.
 * - A user mention (`<@U…>`) stays live only for people already in the conversation (the
 *   asker, people the thread's messages mentioned); anyone else is plain text (`@name`).
 *   A channel mention loses its label (Slack shows the channel's real name).
 * - A link whose text names another site than its target (`<https://evil|https://good>`) is
 *   shown as its bare URL. Markdown images are links, never images.
 * - Posts and updates carry `unfurl_links: false, unfurl_media: false` unless every link in
 *   the message is on SLACK_UNFURL_DOMAINS. Slack's streaming methods take no unfurl flags,
 *   so streamed text shows links off that list as code (copyable, never fetched by Slack).
 *
 * The text is read left to right, Slack's tokens first, then the markdown, with look-aheads that
 * stop at the first character their syntax cannot hold (and at MAX_MARKUP): linear in the text.
 * A `<` that opens no well-formed token is shown as `‹`, so nothing it leaves (`<@U1|<!here>>`)
 * closes into a live token; what the scanner writes, read again, is unchanged (a fixed point:
 * test/adapters/slack/inert.property.test.ts).
 */
import type { types } from '@slack/bolt';
import {
  bracketPairs,
  deceptiveLink,
  linksIn,
  markdownLinkAt,
  onDomains,
  plainUrl,
  runEnd,
  type ScanEnd,
} from '../links.js';

/** Who a mention in our text may still ping, and which links Slack may preview. */
export interface SlackAudience {
  /** People already in the conversation: the asker and those the thread's messages mention. */
  people: ReadonlySet<string>;
  /** SLACK_UNFURL_DOMAINS: hosts (and their subdomains) whose links may unfurl. */
  unfurlDomains: readonly string[];
}

/** How the scanner writes links: kept (a post, whose unfurl flags are set) or, off the list, as code (a stream). */
interface Scan {
  audience: SlackAudience;
  stream: boolean;
  /** The text is a stream's last append: nothing can follow what it ends inside. */
  last: boolean;
}

/** Mentions, deceptive links and images in one piece of text (mrkdwn, markdown or plain) made inert. */
export function inertText(text: string, audience: SlackAudience): string {
  return scanText(text, { audience, stream: false, last: true }).text;
}

/**
 * Streamed text: `inertText`, and links off SLACK_UNFURL_DOMAINS shown as code (a stream takes
 * no unfurl flags). `inFence`: the text continues a code fence opened in an earlier append.
 * A construct the text ends inside (`<!chan`, an open backtick) is made harmless, so the next
 * append cannot complete it; unless the append is the `last` one, so is an unfinished
 * markdown link (`[the rep` becomes `［the rep`). The writer holds such pieces back
 * (streamableLength), so this only shows where it gave up waiting.
 */
export function inertStreamText(text: string, audience: SlackAudience, inFence = false, last = true): string {
  return inertStreamAppend(text, audience, inFence, last).text;
}

/**
 * One append of a stream made inert (`inertStreamText`), and whether it leaves a code fence open
 * for the next append, as the scanner read it: a ``` inside a code span (`` `a```b ``) or a
 * Slack token opens nothing, so counting ``` would put the next append's links in a fence that
 * Slack never opened.
 */
export function inertStreamAppend(
  text: string,
  audience: SlackAudience,
  inFence = false,
  last = true,
): { text: string; inFence: boolean } {
  const open = inFence ? '```\n' : '';
  const out = scanText(open + text, { audience, stream: true, last });
  return { text: out.text.slice(open.length), inFence: out.fenceOpen };
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

/** Characters after `<` that make it a Slack token: a mention, a special mention, a channel, a link. */
const TOKEN_START = /^(?:[@!#]|(?:https?|mailto):)/i;

/**
 * Whether the `<` at `at` starts a Slack token, or may once the text goes on (`<`, `<htt` at
 * its end). Anything else (`a < b`, `<div>`) is text.
 */
function opensToken(text: string, at: number): boolean {
  const after = text.slice(at + 1, at + 9);
  if (TOKEN_START.test(after)) return true;
  return at + 9 >= text.length && ['http:', 'https:', 'mailto:'].some((p) => p.startsWith(after.toLowerCase()));
}

/** The output of one scan: a rewritten construct never lets a bare `<` before it join it into a token. */
function writer() {
  const out: string[] = [];
  return {
    text(piece: string): void {
      if (piece) out.push(piece);
    },
    rewritten(piece: string): void {
      const last = out.at(-1);
      if (last?.endsWith('<')) out[out.length - 1] = `${last.slice(0, -1)}‹`;
      out.push(piece);
    },
    /** Drops the `!`s that would make the link written next an image. */
    dropBangs(): void {
      while (out.length && out.at(-1)!.endsWith('!')) {
        const last = out.at(-1)!;
        let end = last.length;
        while (end > 0 && last[end - 1] === '!') end--;
        if (end > 0) out[out.length - 1] = last.slice(0, end);
        else out.pop();
      }
    },
    toString: () => out.join(''),
  };
}

/** Text that starts no construct: in a post, up to a backtick, `<` or `[`; in a stream also `h` (a URL). */
const NEXT_IN_POST = /[^`<[]*/y;
const NEXT_IN_STREAM = /[^`<[hH]*/y;

/**
 * The scan, and whether the text ends inside a code fence (one still open runs to the end).
 * Slack reads its tokens (`<…>`) before any markdown, even in code: they are rewritten first, in
 * a pass of their own, and the markdown, code and URLs read on that text. The other way round,
 * a token's rewrite could join the text around it into a construct the scan had not read
 * (`[](<!here><)` into the link `[](@here<)`, `<!subteam^S|h>ttps://…` into a URL).
 */
function scanText(raw: string, s: Scan): { text: string; fenceOpen: boolean } {
  const text = slackTokens(raw, s);
  const w = writer();
  let fenceOpen = false;
  let plainFrom = 0;
  let i = 0;
  const next = s.stream ? NEXT_IN_STREAM : NEXT_IN_POST;
  const pairs = bracketPairs(text, true);
  while (i < text.length) {
    // Straight to the next character that may start a construct (a native scan).
    i = runEnd(next, text, i);
    if (i >= text.length) break;
    const c = text[i]!;
    let end: number | undefined;
    let piece: string | undefined;
    if (c === '`' && text.startsWith('```', i)) {
      // A fence (still open: to the end) is code, kept as written (its tokens were read first).
      const close = text.indexOf('```', i + 3);
      end = close < 0 ? text.length : close + 3;
      fenceOpen = close < 0;
      piece = text.slice(i, end);
    } else if (c === '`') {
      const close = codeSpanEnd(text, i);
      // An empty code span in a stream would join a link written as code after it (or the next
      // append's) into a fence: `` `` `` + `` `https://…` `` reads as ```` ```https://…` ````.
      if (close === i + 2 && s.stream) [end, piece] = [close, 'ˋˋ'];
      else if (typeof close === 'number') [end, piece] = [close, text.slice(i, close)];
      // A backtick that opens nothing would pair with the backticks of a link shown as code.
      else if (s.stream) [end, piece] = [i + 1, 'ˋ'];
    } else if (c === '<' && opensToken(text, i)) {
      const close = angleEnd(text, i);
      [end, piece] = typeof close === 'number' ? [close, slackToken(text.slice(i + 1, close - 1), s)] : [i + 1, '‹'];
    } else if (c === '[') {
      const link = markdownLinkAt(text, i, pairs);
      if (link && link !== 'open') {
        w.text(text.slice(plainFrom, i));
        plainFrom = i;
        // An image (`![…](…)`) is shown as a link: every `!` before it goes.
        w.dropBangs();
        [end, piece] = [link.end, markdownLink(link.label, link.url, link.urls, s)];
      } else if (link === 'open' && !s.last) [end, piece] = [i + 1, '［'];
    } else if (s.stream && (c === 'h' || c === 'H') && /^https?:\/\//i.test(text.slice(i, i + 8))) {
      end = runEnd(BARE_URL, text, i);
      piece = streamUrl(text.slice(i, end), s);
    }
    if (end === undefined || piece === undefined) {
      i++;
      continue;
    }
    w.text(text.slice(plainFrom, i));
    w.rewritten(piece);
    i = plainFrom = end;
  }
  w.text(text.slice(plainFrom));
  return { text: w.toString(), fenceOpen };
}

/** What an inline code span may hold: anything to the next backtick on its line. */
const CODE_SPAN = /[^`\n]*/y;

/** The end of a code span opened at `start` (the next backtick on its line), or `open`/undefined. */
function codeSpanEnd(text: string, start: number): ScanEnd {
  const i = runEnd(CODE_SPAN, text, start + 1);
  if (i >= text.length) return 'open';
  return text[i] === '`' ? i + 1 : undefined;
}

/** The end of a Slack token `<…>` opened at `start`: no `<`, `>` or newline inside, at most MAX_MARKUP long. */
function angleEnd(text: string, start: number): ScanEnd {
  const i = runEnd(TOKEN_BODY, text, start + 1);
  if (i >= text.length) return 'open';
  return text[i] === '>' ? i + 1 : undefined;
}

/**
 * What a Slack token's inside and a bare URL may hold (sticky, bounded by MAX_MARKUP): a URL
 * ends where chat clients end it (URL_PATTERN in src/adapters/links.ts).
 */
const TOKEN_BODY = /[^<>\n]{0,2000}/y;
const BARE_URL = /[^\s<>|()[\]`"']{1,2000}/y;

/**
 * Every Slack token in the text rewritten (`slackToken`), links as in a post, and a `<` that may
 * open one but does not close shown as `‹`; everything else, code too, is left as it is (Slack
 * reads its tokens even in code).
 */
function slackTokens(text: string, s: Scan): string {
  if (!text.includes('<')) return text;
  const w = writer();
  let from = 0;
  for (let i = text.indexOf('<'); i >= 0; i = text.indexOf('<', Math.max(i + 1, from))) {
    if (!opensToken(text, i)) continue;
    const close = angleEnd(text, i);
    w.text(text.slice(from, i));
    // In code a link stays a link (never code within code); a deceptive one still shows its URL.
    if (typeof close === 'number') w.rewritten(slackToken(text.slice(i + 1, close - 1), { ...s, stream: false }));
    else w.rewritten('‹');
    from = typeof close === 'number' ? close : i + 1;
  }
  w.text(text.slice(from));
  return w.toString();
}

/** A Slack token's inside (`@U1|name`, `!here`, `#C1|general`, `https://…|label`) as it may be shown. */
function slackToken(body: string, s: Scan): string {
  const bar = body.indexOf('|');
  const target = bar < 0 ? body : body.slice(0, bar);
  const label = bar < 0 ? undefined : body.slice(bar + 1);
  const name = label === undefined ? '' : mentionName(label);
  if (/^@[UWB][A-Z0-9]{1,40}$/.test(target))
    return s.audience.people.has(target.slice(1)) ? `<${target}>` : `@${name || target.slice(1)}`;
  if (/^#[CGD][A-Z0-9]{1,40}$/.test(target)) return `<${target}>`;
  if (/^![a-z]/i.test(target)) {
    const [special = '', ...args] = target.slice(1).split('^');
    const kind = special.toLowerCase();
    // A date is formatting; its optional fourth part is a link, which goes.
    if (kind === 'date' && args.length >= 2 && /^\d{1,12}$/.test(args[0]!)) {
      const fallback = label === undefined ? '' : plainLabel(label);
      return `<!date^${args[0]}^${args[1]!.replace(/[^\w{} ,:/.-]/g, '')}${fallback ? `|${fallback}` : ''}>`;
    }
    if (kind === 'subteam') return `@${name || 'group'}`;
    return `@${kind.replace(/[^a-z]/g, '') || 'mention'}`;
  }
  if (/^(?:https?|mailto):\S+$/i.test(target)) {
    // Slack reads the token before any markdown in it, but a markdown reader would not: brackets
    // and backticks in its URL (`<https://[good](evil)>`) could make a link or code span of its pieces.
    const url = target.replace(/[[\]`]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    const text = plainLabel(label ?? '');
    if (deceptiveLink(text, url)) return linkShown(url, s);
    if (s.stream && !onDomains(url, s.audience.unfurlDomains)) return labelled(text, url, s);
    return text && text !== url ? `<${url}|${text}>` : `<${url}>`;
  }
  return `‹${labelText(body, s)}›`;
}

/**
 * A markdown link as it may be shown, judged on its text as shown (the same, read again):
 * deceptive to any URL a reader may take (`urls`) → its URL, or its text for a URL off the web
 * (`[https://good.example]()`); in a stream, a URL off the list or holding one (`[](](https://…`)
 * → `label (url)`, the URL as code. A text without `.` or `:` names no site: checked at once.
 */
function markdownLink(label: string, written: string, urls: readonly string[], s: Scan): string {
  const url = plainUrl(written);
  const text = plainLabel(label);
  const web = /^https?:\/\//i.test(url);
  if (/[.:]/.test(text) && urls.some((u) => deceptiveLink(text, u === written ? url : plainUrl(u))))
    return web ? linkShown(url, s) : url ? labelled(text, url, s) : labelText(label, s);
  if (s.stream && (web || /https?:\/\//i.test(url)) && !onDomains(url, s.audience.unfurlDomains))
    return labelled(text, url, s);
  return `[${text}](${url})`;
}

/** A link shown as its bare URL: a Slack link in a post, in a stream code unless it is on the list. */
function linkShown(url: string, s: Scan): string {
  return s.stream ? streamUrl(url, s) : `<${url}>`;
}

/** `label (url)` in a stream, the URL as code unless it is on the list. */
function labelled(label: string, url: string, s: Scan): string {
  return label && label !== url ? `${labelText(label, s)} (${streamUrl(url, s)})` : streamUrl(url, s);
}

/** A URL in a stream: on SLACK_UNFURL_DOMAINS as is, else as code (copyable, never fetched). */
function streamUrl(url: string, s: Scan): string {
  return onDomains(url, s.audience.unfurlDomains) ? url : `\`${url.replaceAll('`', '')}\``;
}

/** A name from a mention's label: letters, digits and a few separators, nothing that is markup. */
function mentionName(label: string): string {
  return label
    .replace(/[^\p{L}\p{N}._' -]/gu, '')
    .trim()
    .slice(0, 80);
}

/** A label shown as text: without the characters that open or close markup. */
function plainLabel(label: string): string {
  return label.replace(/[<>[\]`|]/g, '').trim();
}

/** A label placed in running text: plain, and in a stream its URLs shown as code like any other. */
function labelText(label: string, s: Scan): string {
  const text = plainLabel(label);
  return s.stream ? scanText(text, s).text : text;
}

/**
 * How much of `text` may be streamed now: a Slack token (`<…>`), a markdown link, a code span
 * or a URL still being written waits for its end, so its pieces are never made inert apart
 * (`<!chan` and `nel>` in two appends would join into a live mention). Linear, with the scanner's
 * look-aheads. A wait longer than MAX_HELD gives up: the piece goes out with its `<` harmless.
 */
export function streamableLength(text: string): number {
  const lineStart = text.lastIndexOf('\n') + 1;
  const line = text.slice(lineStart);
  // The last word may be the start of a URL or a token (`h`, `<`, `[`): it waits for the space after it.
  let cut = line.length;
  while (cut > 0 && !/\s/.test(line[cut - 1]!)) cut--;
  // A token, link or code span that started before it and is not finished (or is, but runs past the cut) waits whole.
  const pairs = bracketPairs(line, true);
  for (let i = 0; i < cut;) {
    const c = line[i];
    let end: ScanEnd;
    if (c === '`' && line.startsWith('```', i)) end = i + 3;
    else if (c === '`') end = codeSpanEnd(line, i);
    else if (c === '<' && opensToken(line, i)) end = angleEnd(line, i);
    else if (c === '[') {
      const link = markdownLinkAt(line, i, pairs);
      end = link === 'open' ? 'open' : link?.end;
    }
    if (end === 'open' || (typeof end === 'number' && end > cut)) {
      cut = i;
      // The `!` of an image waits with its link.
      while (c === '[' && cut > 0 && line[cut - 1] === '!') cut--;
      break;
    }
    i = typeof end === 'number' ? end : i + 1;
  }
  return line.length - cut > MAX_HELD ? text.length : lineStart + cut;
}

const MAX_HELD = 300;
