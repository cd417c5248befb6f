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
  try {
    return new URL(url).hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return undefined;
  }
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
 */
export function bracketPairs(text: string): Int32Array {
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

/**
 * A markdown link or image at `start` (its `[`): `[label](url)`, `[label](<url>)`, with an
 * optional `"title"`; the label may hold balanced brackets (`pairs`: bracketPairs(text)), the
 * URL balanced parentheses and backslash escapes (Discord's reading, wider than CommonMark's).
 * Each part is one bounded native scan, so reading every `[` of a text is linear in its length.
 * `open`: the text ended inside what may still become a link (a stream waits for the rest).
 */
export function markdownLinkAt(
  text: string,
  start: number,
  pairs: Int32Array,
): { end: number; label: string; url: string } | 'open' | undefined {
  const close = pairs[start]!;
  if (close === -1) return 'open';
  if (close < 0 || close - start > MAX_MARKUP) return undefined;
  const label = text.slice(start + 1, close);
  let i = close + 1;
  if (i >= text.length) return 'open';
  if (text[i] !== '(') return undefined;
  i = runEnd(SPACES, text, i + 1);
  let url: string;
  if (text[i] === '<') {
    const end = runEnd(ANGLED_URL, text, i + 1);
    if (end >= text.length) return 'open';
    if (text[end] !== '>') return undefined;
    url = text.slice(i + 1, end);
    i = end + 1;
  } else {
    const end = runEnd(URL_RUN, text, i);
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
  return { end: i + 1, label, url };
}

/** Runs of what each part of a markdown link may hold (sticky, bounded: a scan never passes MAX_MARKUP). */
const ANGLED_URL = /[^<>\n]{0,2000}/y;
const URL_RUN = /(?:[^\s()\\]|\\\S|\((?:[^\s()\\]|\\\S){0,200}\)){0,2000}/y;
const TITLE = /[^"\n]{0,300}/y;
const SINGLE_QUOTED_TITLE = /[^'\n]{0,300}/y;
const SPACES = /[ \t]{0,20}/y;

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
