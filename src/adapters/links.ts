/**
 * Links in text a platform will show: which hosts they name, and whether an operator's
 * allow-list (SLACK_UNFURL_DOMAINS, DISCORD_EMBED_DOMAINS) covers them. Shared by the
 * platform renderers, which decide from it whether a message may be previewed.
 */

/** http(s) URLs as chat clients find them: up to whitespace or a delimiter of Slack/markdown markup. */
const URL_PATTERN = /https?:\/\/[^\s<>|()[\]`"']+/gi;

/** The http(s) URLs in `text`, in order. */
export function linksIn(text: string): string[] {
  return text.match(URL_PATTERN) ?? [];
}

/** The host of a URL, lower-cased; undefined when it does not parse. */
export function hostOf(url: string): string | undefined {
  // No exception for what is no URL (a thrown error costs microseconds, for each link of a long text).
  if (!URL.canParse(url)) return undefined;
  return new URL(url).hostname.toLowerCase().replace(/\.$/, '');
}

/** Whether `url`'s host is one of `domains` or a subdomain of one. */
export function onDomains(url: string, domains: readonly string[]): boolean {
  const host = hostOf(url);
  if (!host) return false;
  return domains.some((d) => host === d || host.endsWith(`.${d}`));
}

/** Whether every link in `text` is on `domains` (vacuously true without links). */
export function allLinksOn(text: string, domains: readonly string[]): boolean {
  return linksIn(text).every((url) => onDomains(url, domains));
}

/** The longest markup construct (a Slack `<…>` token, a markdown link) read as one; longer ones are text. */
export const MAX_MARKUP = 2_000;

/** Where scanning for a construct stopped: its end (exclusive), or `open` when the text ran out first. */
export type ScanEnd = number | 'open' | undefined;

/**
 * Where each `[` of `text` is closed: the index of its matching `]` on the same line (brackets
 * nest, as in CommonMark and Discord: `[a [b] c](url)` is one link), -1 when the text ends
 * first (it may still close), -2 when its line ends first. One pass with a stack: linear.
 *
 * `code`: read as CommonMark does (Slack's markdown): a bracket inside a code span or fence is
 * code, not markup (`[good.example `]` b](url)` is one link, whose text holds a code span), and
 * a link's destination is read with its link, so a backtick in a URL opens no code span. Such
 * a `[` gets no pair (0).
 */
export function bracketPairs(text: string, code = false): Int32Array {
  if (code) return codeAwarePairs(text);
  const close = new Int32Array(text.length);
  const open: number[] = [];
  for (let i = text.indexOf('['), j = text.indexOf(']'), n = text.indexOf('\n'); ;) {
    if (i < 0) i = Infinity;
    if (j < 0) j = Infinity;
    if (n < 0) n = Infinity;
    const at = Math.min(i, j, n);
    if (at === Infinity) break;
    if (at === i) {
      open.push(i);
      i = text.indexOf('[', i + 1);
    } else if (at === j) {
      const o = open.pop();
      if (o !== undefined) close[o] = j;
      j = text.indexOf(']', j + 1);
    } else {
      for (const o of open.splice(0)) close[o] = -2;
      n = text.indexOf('\n', n + 1);
    }
  }
  for (const o of open) close[o] = -1;
  return close;
}

/** `bracketPairs(text, true)`: one left-to-right pass, each code span and destination read once (bounded). */
function codeAwarePairs(text: string): Int32Array {
  const close = new Int32Array(text.length);
  const open: number[] = [];
  const lineEnds = () => {
    for (const o of open.splice(0)) close[o] = -2;
  };
  for (let i = 0; i < text.length;) {
    const c = text[i];
    if (c === '[') open.push(i++);
    else if (c === ']') {
      const o = open.pop();
      if (o !== undefined) close[o] = i;
      const link = o === undefined || i - o > MAX_MARKUP ? undefined : destinationAfter(text, i, close);
      i = typeof link === 'object' ? link.end : i + 1;
    } else if (c === '\n') {
      lineEnds();
      i++;
    } else if (c === '`' && text.startsWith('```', i)) {
      const end = text.indexOf('```', i + 3);
      const body = text.slice(i, end < 0 ? text.length : end);
      if (body.includes('\n')) lineEnds();
      i = end < 0 ? text.length : end + 3;
    } else if (c === '`') {
      const end = runEnd(CODE_SPAN, text, i + 1);
      i = end < text.length && text[end] === '`' ? end + 1 : i + 1;
    } else i++;
  }
  for (const o of open) close[o] = -1;
  return close;
}

/** What an inline code span may hold: anything to the next backtick on its line. */
const CODE_SPAN = /[^`\n]*/y;

/** A markdown link read at its `[`: where it ends, its label and its URL. */
export interface MarkdownLink {
  end: number;
  label: string;
  url: string;
  /**
   * Every URL a reader may take it to: `url`, and the URL cut at its first `)` when that reading
   * is a link too (`[a](https://x/(y))` is a link to `https://x/(y` for Discord, whose URL match
   * is lazy). A link is judged on each.
   */
  urls: string[];
}

/**
 * A markdown link or image at `start` (its `[`): `[label](url)`, `[label](<url>)`, with an
 * optional `"title"`; the label may hold balanced brackets (`pairs`: bracketPairs(text)), the
 * URL balanced parentheses and backslash escapes (CommonMark's reading). A reader that ends the
 * URL at its first `)` (Discord) may see a link where that reading sees none yet
 * (`[a](https://x/(y)` at the end of a cut text) or another URL: that reading is returned when
 * it is the only link, and its URL is among `urls` when both are.
 * Each part is one bounded native scan, so reading every `[` of a text is linear in its length.
 * `open`: the text ended inside what may still become a link (a stream waits for the rest).
 */
export function markdownLinkAt(text: string, start: number, pairs: Int32Array): MarkdownLink | 'open' | undefined {
  const close = pairs[start]!;
  if (close === -1) return 'open';
  if (close <= start || close - start > MAX_MARKUP) return undefined;
  const label = text.slice(start + 1, close);
  const link = destinationAfter(text, close, pairs);
  return typeof link === 'object' ? { ...link, label } : link;
}

/** The destination after a link's `]` at `close`, in both readings (see markdownLinkAt). */
function destinationAfter(
  text: string,
  close: number,
  pairs: Int32Array,
): Omit<MarkdownLink, 'label'> | 'open' | undefined {
  if (close + 1 >= text.length) return 'open';
  if (text[close + 1] !== '(') return undefined;
  const from = runEnd(SPACES, text, close + 2);
  const balanced = destinationAt(text, from, balancedUrlEnd);
  const first = text[from] === '<' ? undefined : destinationAt(text, from, (at) => firstParenUrlEnd(text, at, pairs));
  if (typeof balanced === 'object') {
    const urls = typeof first === 'object' && first.url !== balanced.url ? [balanced.url, first.url] : [balanced.url];
    return { ...balanced, urls };
  }
  if (typeof first === 'object') return { ...first, urls: [first.url] };
  return balanced;
}

/** A link's destination from `i` (after `(` and spaces) to its `)`: the URL and the end, `open`, or undefined. */
function destinationAt(
  text: string,
  i: number,
  urlEnd: (from: number, text: string) => number,
): { end: number; url: string } | 'open' | undefined {
  let url: string;
  if (text[i] === '<') {
    const end = runEnd(ANGLED_URL, text, i + 1);
    if (end >= text.length) return 'open';
    if (text[end] !== '>') return undefined;
    url = text.slice(i + 1, end);
    i = end + 1;
  } else {
    const end = urlEnd(i, text);
    url = text.slice(i, end);
    i = end;
  }
  const spaced = runEnd(SPACES, text, i);
  if (spaced > i && (text[spaced] === '"' || text[spaced] === "'")) {
    i = runEnd(text[spaced] === '"' ? TITLE : SINGLE_QUOTED_TITLE, text, spaced + 1);
    if (i >= text.length) return 'open';
    if (text[i] !== text[spaced]) return undefined;
    i = runEnd(SPACES, text, i + 1);
  } else i = spaced;
  if (i >= text.length) return 'open';
  if (text[i] !== ')') return undefined;
  return { end: i + 1, url };
}

/** Runs of what each part of a markdown link may hold (sticky, bounded: a scan never passes MAX_MARKUP). */
const ANGLED_URL = /[^<>\n]{0,2000}/y;
const URL_RUN = /(?:[^\s()\\]|\\\S|\((?:[^\s()\\]|\\\S){0,200}\)){0,2000}/y;
const TITLE = /[^"\n]{0,300}/y;
const SINGLE_QUOTED_TITLE = /[^'\n]{0,300}/y;
const SPACES = /[ \t]{0,20}/y;

/** Where a URL with balanced parentheses that starts at `from` ends. */
const balancedUrlEnd = (from: number, text: string) => runEnd(URL_RUN, text, from);

/**
 * The first `)` or space at or after an index, per text (keyed by its bracket pairs): a text's
 * `[`s are read left to right, so one search serves every link until the stop it found.
 */
const firstStops = new WeakMap<Int32Array, { from: number; stop: number }>();
const STOP = /[\s)]/g;

/** Where a URL read to its first `)` or space (a `(` in it is a character like any other) ends: at most MAX_MARKUP on. */
function firstParenUrlEnd(text: string, from: number, pairs: Int32Array): number {
  let memo = firstStops.get(pairs);
  if (!memo || from < memo.from || from > memo.stop) {
    STOP.lastIndex = from;
    const stop = STOP.exec(text)?.index ?? text.length;
    firstStops.set(pairs, (memo = { from, stop }));
  }
  // Past MAX_MARKUP the URL stops where no `)` can follow, so it is no link.
  return Math.min(memo.stop, from + MAX_MARKUP + 1);
}

/** Where a run of `pattern` (sticky, bounded) that starts at `from` ends: one native scan. */
export function runEnd(pattern: RegExp, text: string, from: number): number {
  pattern.lastIndex = from;
  return from + (pattern.exec(text)?.[0].length ?? 0);
}

/** A URL as written in a link, with the characters that are markup in a chat (`<`, `>`, `|`, brackets, quotes) percent-encoded. */
export function plainUrl(url: string): string {
  return url.replace(/[<>|`[\]"'\\\s]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/** Name endings that are files or languages, not sites: `report.pdf`, `Node.js` in a link's text name no host. */
const NOT_TLDS = new Set(
  'pdf txt csv tsv png jpg jpeg gif svg webp bmp doc docx xls xlsx ppt pptx zip gz tar rar json xml yaml yml md html htm css js mjs cjs ts tsx jsx py rb go rs java kt cs cpp h sh sql log env ini toml lock exe dmg pkg deb rpm mp3 mp4 mov wav avi'.split(
    ' ',
  ),
);

/** Whether a name's last word could be a TLD (`com`, `example`), not a file type (`pdf`) or a number. */
const tldLike = (word: string) => /^\p{L}{2,24}$/u.test(word) && !NOT_TLDS.has(word.toLowerCase());

/**
 * The hosts a link's visible text names, wherever they are in it: after a scheme
 * (`https://good.example/x`) or an `@` (`help@good.example`), before a path, as `www.…`, or
 * ending in a word that could be a TLD (`good.com`, `good.example`), even with more after it
 * (`good.example-0`, `good.com.1`, `good.example漢字`: a reader sees the site and skips the rest); `report.pdf` and
 * `v1.2` are not sites.
 */
export function hostsNamedIn(label: string): string[] {
  const hosts: string[] = [];
  const text = label.slice(0, MAX_MARKUP);
  for (const m of text.matchAll(/[\p{L}\p{N}.-]+/gu)) {
    let name = m[0].replace(/^[.-]+|[.-]+$/g, '');
    const parts = name.split('.');
    if (parts.length < 2 || parts.some((p) => !p || p.length > 63)) continue;
    const before = text.slice(Math.max(0, m.index - 3), m.index);
    const after = text[m.index + m[0].length] ?? '';
    let named =
      before.endsWith('://') || before.endsWith('@') || after === '/' || /^www\./i.test(name) || tldLike(parts.at(-1)!);
    // The longest head of the name that ends in a TLD: `good.example` in `good.example-0` or `good.example漢字0`.
    for (let i = parts.length - 1; !named && i >= 1; i--) {
      const word = /^(?:[a-z]+|\p{L}+)/iu.exec(parts[i]!)?.[0] ?? '';
      if (tldLike(word)) [named, name] = [true, [...parts.slice(0, i), word].join('.')];
    }
    const host = named ? hostOf(`http://${name}`) : undefined;
    if (host) hosts.push(host);
  }
  return hosts;
}

/**
 * Whether a link's visible text names a site other than where it goes (`[https://good.example](https://evil.example)`):
 * a reader would trust the text. Text naming the target's host or a parent of it is fine.
 */
export function deceptiveLink(label: string, url: string): boolean {
  const mail = /^mailto:[^@]*@([^?]+)/i.exec(url);
  const target = (mail ? hostOf(`http://${mail[1]}`) : hostOf(url))?.replace(/^www\./, '');
  const elsewhere = (named: string) => {
    const host = named.toLowerCase().replace(/^www\./, '');
    return !target || !(target === host || target.endsWith(`.${host}`));
  };
  // Text that shows a URL (`https://…`) names whatever follows its scheme, even a name no host
  // could have (`<https://-`), and even glued to a word before it (`0https://good`): a reader
  // takes it for the address, so it must be the target's.
  for (const m of label.slice(0, MAX_MARKUP).matchAll(/[a-z][a-z0-9+.-]{0,15}:\/\/([^\s/?#<>|\\]{0,253})/gi))
    if (
      elsewhere(
        (m[1] ?? '')
          .replace(/^[^@]*@/, '')
          .replace(/:\d*$/, '')
          .replace(/\.$/, ''),
      )
    )
      return true;
  return hostsNamedIn(label).some(elsewhere);
}
