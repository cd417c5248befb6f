import { describe, expect, it } from 'vitest';
import { LlmError } from '../../src/contract/llm.js';
import { UserFacingError } from '../../src/contract/turn.js';
import { ThreadLockLostError, ThreadLockTimeoutError } from '../../src/agent/thread-lock.js';
import { isStorageUnreachable, toUserError } from '../../src/agent/turn-errors.js';

// What a user reads when a turn fails: a code the adapters act on and a message that never
// carries the error's own text (a provider's body, a key, a stack).
const SECRET = 'sk-live-123 at Object.<anonymous> (/app/src/provider/openai.ts:42:7)';

describe('toUserError', () => {
  it.each([
    ['unreachable', 'llm_unavailable', /can’t reach the language model/],
    ['timeout', 'llm_unavailable', /can’t reach the language model/],
    ['server', 'llm_unavailable', /can’t reach the language model/],
    ['rate_limited', 'llm_unavailable', /rate-limiting us/],
    ['auth', 'llm_error', /rejected our credentials.*OPENAI_API_KEY/],
    ['aborted', 'turn_timeout', /cancelled before it finished/],
    ['bad_request', 'llm_error', /could not handle that request/],
  ] as const)('a model error of kind %s is %s, in words a user can act on', (kind, code, words) => {
    const safe = toUserError(new LlmError(kind, SECRET, 500), undefined);
    expect(safe.code).toBe(code);
    expect(safe.message).toMatch(words);
    expect(safe.message).not.toContain('sk-live');
  });

  it('a turn stopped by its own timeout says it took too long, whatever error the abort caused', () => {
    const signal = AbortSignal.abort(new DOMException('timed out', 'TimeoutError'));
    const safe = toUserError(new LlmError('aborted', SECRET), signal);
    expect(safe.code).toBe('turn_timeout');
    expect(safe.message).toMatch(/took too long/);
  });

  it('a turn whose thread another run took (after part of it was shown) says it stopped, and to ask again', () => {
    const signal = AbortSignal.abort(new ThreadLockLostError('switchboard:lock:slack:t:c:th'));
    const safe = toUserError(new LlmError('aborted', SECRET), signal);
    expect(safe.code).toBe('turn_timeout');
    expect(safe.message).toMatch(/another run took over this thread.*Ask again/);
    expect(safe.message).not.toContain('switchboard:lock');
  });

  it('a thread still busy with an earlier message asks the user to wait for that answer', () => {
    const safe = toUserError(new ThreadLockTimeoutError('slack:t:c:th', 30_000), undefined);
    expect(safe.code).toBe('turn_timeout');
    expect(safe.message).toMatch(/earlier message in this thread/);
    expect(safe.message).not.toContain('slack:t:c:th');
  });

  it('an unexpected error is internal and its text stays in the log', () => {
    const safe = toUserError(new Error(SECRET), undefined);
    expect(safe.code).toBe('internal');
    expect(safe.message).not.toContain('sk-live');
    expect(safe.message).not.toContain('openai.ts');
  });

  it('a refusal the turn raised itself reaches the user as it is', () => {
    const refusal = new UserFacingError('rate_limited', 'Slow down.', { resetAt: '2026-01-01T00:00:00Z' });
    expect(toUserError(refusal, undefined)).toBe(refusal);
  });

  it('Redis or Postgres out of reach is `unavailable` (HTTP 503), never the driver’s text; an unreachable model stays the model’s', () => {
    const refused = Object.assign(new Error(`connect ECONNREFUSED 10.0.0.5:5432 ${SECRET}`), { code: 'ECONNREFUSED' });
    const safe = toUserError(new Error('Database call resolve_tenant failed', { cause: refused }), undefined);
    expect(safe.code).toBe('unavailable');
    expect(safe.message).toMatch(/could not reach my storage/);
    expect(safe.message).not.toMatch(/ECONNREFUSED|10\.0\.0\.5|sk-live/);
    expect(isStorageUnreachable(refused)).toBe(true);
    const model = new LlmError('unreachable', 'fetch failed', undefined, { cause: refused });
    expect(isStorageUnreachable(model)).toBe(false);
    expect(toUserError(model, undefined).code).toBe('llm_unavailable');
  });
});
