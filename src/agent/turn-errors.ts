import { isConnectionError } from '../contract/infra-errors.js';
import { LlmError } from '../contract/llm.js';
import { UserFacingError } from '../contract/turn.js';
import { lostThreadLock, ThreadLockTimeoutError } from './thread-lock.js';

/**
 * What a user is told when a turn fails: a `UserFacingError` as it is, anything else mapped to a
 * safe code and message (never the error's own text, which may hold a stack or a secret).
 * `signal` is the one the turn ran under, so its timeout can be told from other aborts.
 */
export function toUserError(err: unknown, signal: AbortSignal | undefined): UserFacingError {
  if (err instanceof UserFacingError) return err;
  if (signal?.aborted && signal.reason instanceof DOMException && signal.reason.name === 'TimeoutError') {
    return new UserFacingError(
      'turn_timeout',
      'That took too long and I stopped working on it. Try a narrower question.',
    );
  }
  if (lostThreadLock(signal)) {
    return new UserFacingError(
      'turn_timeout',
      'I stopped this answer: the server stalled and another run took over this thread. Ask again if the answer is missing.',
    );
  }
  if (err instanceof ThreadLockTimeoutError) {
    return new UserFacingError(
      'turn_timeout',
      'I am still working on an earlier message in this thread. Please wait for that answer and try again.',
    );
  }
  if (err instanceof LlmError) {
    if (err.kind === 'unreachable' || err.kind === 'timeout' || err.kind === 'server') {
      return new UserFacingError(
        'llm_unavailable',
        'I can’t reach the language model right now. Please try again in a minute.',
      );
    }
    if (err.kind === 'rate_limited')
      return new UserFacingError(
        'llm_unavailable',
        'The language model is rate-limiting us. Please try again in a minute.',
      );
    if (err.kind === 'auth')
      return new UserFacingError(
        'llm_error',
        'The language model rejected our credentials. An admin needs to check OPENAI_API_KEY.',
      );
    if (err.kind === 'aborted')
      return new UserFacingError('turn_timeout', 'This request was cancelled before it finished.');
    return new UserFacingError('llm_error', 'The language model could not handle that request. Try rephrasing it.');
  }
  if (isConnectionError(err)) return new UserFacingError('unavailable', UNAVAILABLE_TEXT);
  return new UserFacingError('internal', 'Something went wrong on my side while answering. The error has been logged.');
}

/** What a user is told when Redis or Postgres stayed unreachable (past the inbox's retries, or over HTTP). */
export const UNAVAILABLE_TEXT =
  'I could not reach my storage to answer that, and it is still unreachable. Please try again in a few minutes.';

/**
 * Redis or Postgres could not be reached (the model's endpoint is not storage: an unreachable
 * model is told as such, after its own retries and failover).
 */
export function isStorageUnreachable(err: unknown): boolean {
  return !(err instanceof LlmError) && isConnectionError(err);
}
