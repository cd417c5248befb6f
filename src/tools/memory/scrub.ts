import { scrubSecrets } from '../../telemetry/logger.js';
import { stripInvisible } from '../../security/sanitize.js';
import type { UserRole } from '../../contract/turn.js';

/** The longest note, in characters (after scrubbing). */
export const MAX_NOTE_CHARS = 500;

// Bounded, linear expressions: an address, and a phone number (7–15 digits with the usual separators).
const EMAIL = /[\p{L}\p{N}._%+-]{1,64}@[\p{L}\p{N}-]{1,63}(?:\.[\p{L}\p{N}-]{1,63}){1,8}/gu;
const PHONE = /(?<![\p{L}\p{N}])\+?\d(?:[ ().-]{0,2}\d){6,14}(?![\p{L}\p{N}])/gu;

export interface ScrubbedNote {
  text: string;
  /** What was taken out, for the tool's answer (never the values themselves). */
  removed: ('secret' | 'email' | 'phone')[];
}

/**
 * A note as it may be stored: invisible characters dropped, whitespace folded, anything that looks
 * like a credential redacted the way the logger redacts it (src/telemetry/logger.ts), and from a
 * guest, email addresses and phone numbers removed (a guest's contact details are never kept).
 */
export function scrubNote(raw: string, role: UserRole): ScrubbedNote {
  const removed: ScrubbedNote['removed'] = [];
  // Bounded before any expression runs over it: a note is at most MAX_NOTE_CHARS, so 4× is plenty.
  let text = stripInvisible(raw.slice(0, MAX_NOTE_CHARS * 4))
    .replace(/\s+/g, ' ')
    .trim();
  const secretless = scrubSecrets(text);
  if (secretless !== text) removed.push('secret');
  text = secretless;
  if (role === 'guest') {
    const noEmail = text.replace(EMAIL, '[email removed]');
    if (noEmail !== text) removed.push('email');
    const noPhone = noEmail.replace(PHONE, '[phone removed]');
    if (noPhone !== noEmail) removed.push('phone');
    text = noPhone;
  }
  return { text, removed };
}

/** Whether anything but redaction marks is left to remember. */
export function hasSubstance(text: string): boolean {
  return /[\p{L}\p{N}]/u.test(
    text.replace(/\[(?:redacted[^\]]*|email removed|phone removed)\]|\b\w+=\[redacted\]/g, ''),
  );
}
