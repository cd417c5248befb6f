/**
 * Whether a message asks to remember or forget something: the memory tools are offered only then,
 * so the tools array of every other turn (and its prompt cache) stays as it was, and a turn that
 * does not ask costs no token for them. The words are English and the languages the bot is most
 * often set to answer in; the text is bounded and the expression linear (no backtracking).
 */
const INTENT =
  /\b(remember|remembers|memori[sz]e|forget|forgets|unremember|keep in mind|note that|from now on|make a note|husk|glem|kom ihåg|glöm|merk dir|merke dir|vergiss|vergessen|souviens|retiens|oublie|recuerda|olvida|onthoud|vergeet)\b/iu;
const SCANNED_CHARS = 2_000;

export function asksToRememberOrForget(text: string | undefined): boolean {
  return typeof text === 'string' && INTENT.test(text.slice(0, SCANNED_CHARS));
}
