/**
 * Cleans text from the model (queries, filter values) before it reaches SQL or the
 * embedding endpoint. SQL injection is not the concern here (everything is a bound
 * parameter); what breaks searches is text Postgres refuses (NUL bytes, lone surrogates)
 * and text that looks like one thing but is another: full-width letters, zero-width
 * joiners and bidi overrides that make "ａｎｎｕａｌ" or "ann\u200Bual" miss "annual".
 */

// A high surrogate without its low half, or a low one without its high half.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
// Format characters: zero-width (joiner, space, BOM), soft hyphen, bidi embeddings and isolates.
const FORMAT = /\p{Cf}/gu;
// Control characters, NUL, newlines and tabs included.
const CONTROL = /\p{Cc}/gu;

export function cleanText(raw: string): string {
  return raw
    .replace(LONE_SURROGATE, ' ')
    .normalize('NFKC')
    .replace(FORMAT, '')
    .replace(CONTROL, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Terms a full-text query keeps: Postgres's ranking and snippets slow down sharply with many. */
export const MAX_QUERY_TERMS = 24;

/**
 * Bounds a web-search-syntax query: repeated words (outside quotes) are dropped, and only
 * the first MAX_QUERY_TERMS words are kept (a phrase counts its words; `OR` is free).
 * Pasting a paragraph or repeating a word a hundred times then costs milliseconds, not seconds.
 */
export function boundQueryTerms(query: string): { query: string; cut: boolean } {
  const tokens = query.match(/-?"[^"]*"?|\S+/g) ?? [];
  const seen = new Set<string>();
  const kept: string[] = [];
  let words = 0;
  let cut = false;
  for (const token of tokens) {
    if (/^or$/i.test(token)) {
      kept.push(token);
      continue;
    }
    const key = token.toLowerCase();
    if (!token.includes('"') && seen.has(key)) continue;
    seen.add(key);
    const inToken = token.split(/\s+/).filter(Boolean);
    if (words + inToken.length > MAX_QUERY_TERMS) {
      cut = true;
      const room = MAX_QUERY_TERMS - words;
      if (room > 0 && token.includes('"')) kept.push(`${inToken.slice(0, room).join(' ').replace(/"?$/, '"')}`);
      break;
    }
    kept.push(token);
    words += inToken.length;
  }
  while (kept.length && /^or$/i.test(kept.at(-1) ?? '')) kept.pop();
  return { query: kept.join(' '), cut };
}
