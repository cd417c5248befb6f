import type { IncomingMessage, TurnFlag } from '../contract/turn.js';
import type { Logger } from '../telemetry/logger.js';
import { fenceFlaggedMessage } from '../security/fence.js';
import type { GuardVerdict } from '../security/guard.js';
import { detectInjection, type InjectionVerdict } from '../security/injection.js';

/** The user's text as the model and the history read it, and what the screening found. */
export interface ScreenedMessage {
  /** The text as the user sent it (after sanitizing). */
  original: string;
  /** What the model reads: the original, or the original fenced as untrusted when it was flagged. */
  text: string;
  /** The turn's flags; the same array the turn summary holds, so a later flag reaches its record. */
  flags: TurnFlag[];
  verdict: InjectionVerdict;
}

/** A flagged message is still answered, but the model reads it fenced as untrusted (and so does the history). */
export function screenMessage(original: string, message: IncomingMessage, log: Logger): ScreenedMessage {
  const verdict = detectInjection(original);
  const flags: TurnFlag[] = verdict.flagged ? ['prompt_injection'] : [];
  if (verdict.flagged)
    log.warn(
      {
        flags,
        score: verdict.score,
        modelScore: verdict.modelScore,
        families: verdict.families,
        userId: message.userId,
      },
      'message flagged as a prompt injection; answered fenced',
    );
  return { original, text: verdict.flagged ? fenceFlaggedMessage(original) : original, flags, verdict };
}

/**
 * The classifier model's verdict (`GUARD_MODEL`), which arrives after the first step: too late
 * to fence this turn's input, but the turn is flagged and the history keeps the text fenced, so
 * every later turn reads it as untrusted.
 */
export function applyGuardVerdict(
  screened: ScreenedMessage,
  guardVerdict: GuardVerdict | undefined,
  message: IncomingMessage,
  log: Logger,
): void {
  if (!guardVerdict?.flagged || screened.verdict.flagged) return;
  screened.flags.push('prompt_injection');
  screened.text = fenceFlaggedMessage(screened.original);
  log.warn(
    {
      flags: screened.flags,
      guardLabel: guardVerdict.label,
      score: screened.verdict.score,
      modelScore: screened.verdict.modelScore,
      userId: message.userId,
    },
    'message flagged as a prompt injection by GUARD_MODEL; kept fenced in the history',
  );
}
