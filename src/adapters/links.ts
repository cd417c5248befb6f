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
