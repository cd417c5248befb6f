/**
 * Text from users is normalized before the model or a tool sees it: NFKC
 * (full-width and compatibility forms become the letters they look like, so a detector and
 * the model read the same words) and characters that render as nothing but still reach the
 * model are removed. Those carry hidden instructions ("ASCII smuggling" with the tag block,
 * bidi overrides that make text read differently than it displays, zero-width runs and
 * variation selectors that encode bytes). Tool output loses the same hidden characters but
 * keeps its exact form (no NFKC): see {@link stripInvisible}.
 *
 * Removed:
 *  - tag characters U+E0000–U+E007F (invisible copies of ASCII);
 *  - bidi embeddings, overrides and isolates U+202A–U+202E, U+2066–U+2069, and the marks
 *    U+200E, U+200F, U+061C;
 *  - every other format character (Unicode category Cf: U+200B zero-width space, U+2060–U+2064,
 *    U+FEFF, soft hyphen U+00AD, U+180E, …) except a single zero-width joiner or non-joiner
 *    between two visible characters (emoji sequences, Persian and Indic orthography);
 *  - variation selectors U+E0100–U+E01EF and U+FE00–U+FE0D (U+FE0E/U+FE0F, text and emoji
 *    presentation, stay when they follow a visible character);
 *  - C0/C1 controls other than tab and newline (carriage returns become newlines).
 *
 * Not removed: ordinary letters of any script, emoji, combining marks. Subdivision flags
 * (England, Scotland, Wales) are built from tag characters and lose their tags: they show as
 * a black flag.
 */

const TAGS = /[\u{E0000}-\u{E007F}]/gu;
const VARIATION_SELECTORS_SUPPLEMENT = /[\u{E0100}-\u{E01EF}]/gu;
/** Format characters, minus ZWNJ/ZWJ (handled below). */
const FORMAT = /(?![\u200C\u200D])\p{Cf}/gu;
/** Runs of joiners, or a joiner not between two visible characters. */
const STRAY_JOINERS = /[\u200C\u200D]{2,}|^[\u200C\u200D]|[\u200C\u200D]$|(?<=\s)[\u200C\u200D]|[\u200C\u200D](?=\s)/gu;
const SELECTORS = /[\uFE00-\uFE0D]|(?<![^\s\uFE0E\uFE0F])[\uFE0E\uFE0F]|(?<=[\uFE0E\uFE0F])[\uFE0E\uFE0F]+/gu;
// eslint-disable-next-line no-control-regex -- control characters are what this removes.
const CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;

export interface Sanitized {
  text: string;
  /** How many UTF-16 code units were removed (NFKC's own changes are not counted). */
  removed: number;
}

export function sanitizeText(input: string, opts: { nfkc?: boolean } = {}): Sanitized {
  const nfkc = opts.nfkc ?? true;
  let removed = 0;
  const strip = (text: string, pattern: RegExp) => {
    const out = text.replace(pattern, '');
    removed += text.length - out.length;
    return out;
  };
  let text = input.replace(/\r\n?/g, '\n');
  // Before NFKC (it must not fold a hidden character into a visible one) and after (it can make new ones).
  for (const pattern of [TAGS, VARIATION_SELECTORS_SUPPLEMENT, FORMAT, CONTROLS]) text = strip(text, pattern);
  if (nfkc) text = text.normalize('NFKC');
  for (const pattern of [FORMAT, STRAY_JOINERS, SELECTORS]) text = strip(text, pattern);
  return { text, removed };
}

/** User input: NFKC and the hidden characters removed. */
export function clean(input: string): string {
  return sanitizeText(input).text;
}

/**
 * Tool output: the hidden characters removed, but no NFKC. Data keeps its exact form ("m²",
 * "…", "½"), and a detector does not read tool output (every result is fenced instead).
 */
export function stripInvisible(input: string): string {
  return sanitizeText(input, { nfkc: false }).text;
}
