/**
 * Model text is data in a Discord chat. Nobody is pinged whatever it says (every send and edit
 * carries `allowed_mentions: { parse: [] }`, src/adapters/discord/sinks.ts), and the renderer
 * also makes the text itself inert, so a mention never even looks live and a path that forgot
 * the flag still could not ping:
 *
 * - `@everyone` and `@here` get a zero-width space after the `@` (the way Discord's own
 *   clients quote them); user, role and channel-less mentions (`<@id>`, `<@!id>`, `<@&id>`)
 *   become plain text (`@id`, `@&id`).
 * - A masked link whose text names another site than its target (`[https://good](https://evil)`)
 *   is shown as its bare URL.
 *
 * Code is rewritten too: the renderer splits long text between messages, and a split inside a
 * code span would show its text live. One left-to-right scan with bounded look-aheads, linear
 * in the text; its output read again is unchanged.
 */
import { bracketPairs, deceptiveLink, markdownLinkAt, plainUrl, runEnd } from '../links.js';

const MENTION = /^<@[!&]?\d{1,25}>/;
const EVERYONE = /^@(everyone|here)/i;
/** Discord makes a masked link only of an http(s) URL. */
const WEB = /^https?:\/\//i;
/** Text that starts no construct. */
const PLAIN = /[^<@[]*/y;

/** Discord message text (content, an embed's text) with no live mention and no deceptive link. */
export function inertDiscordText(text: string): string {
  const out: string[] = [];
  let plainFrom = 0;
  let i = 0;
  const pairs = bracketPairs(text);
  while (i < text.length) {
    // Straight to the next character that may start a construct (a native scan).
    i = runEnd(PLAIN, text, i);
    if (i >= text.length) break;
    const c = text[i]!;
    let end: number | undefined;
    let piece: string | undefined;
    if (c === '<') {
      const m = MENTION.exec(text.slice(i, i + 30));
      if (m) [end, piece] = [i + m[0].length, `@${m[0].slice(2, -1).replace('!', '')}`];
    } else if (c === '@') {
      const m = EVERYONE.exec(text.slice(i, i + 9));
      if (m) [end, piece] = [i + m[0].length, `@\u200b${m[1]}`];
    } else if (c === '[') {
      const link = markdownLinkAt(text, i, pairs);
      if (link && link !== 'open' && link.urls.some((url) => WEB.test(url) && deceptiveLink(link.label, url)))
        [end, piece] = [link.end, `<${plainUrl(link.url)}>`];
    }
    if (end === undefined || piece === undefined) {
      i++;
      continue;
    }
    out.push(text.slice(plainFrom, i));
    // A bare `<` just before a rewritten mention must not close around it into another (`<<@1>>`).
    if (out.at(-1)?.endsWith('<')) out.push(`${out.pop()!.slice(0, -1)}‹`);
    out.push(piece);
    i = plainFrom = end;
  }
  out.push(text.slice(plainFrom));
  return out.join('');
}
