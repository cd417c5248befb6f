import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { LlmError } from '../contract/llm.js';
import { scrubSecrets } from '../telemetry/logger.js';

/** What the OpenAI SDK throws, as the LlmError kinds the rest of the app reasons about. */

interface ErrorContext {
  apiKey: string;
  baseURL: string;
}

/** Maps whatever the SDK threw to an LlmError whose message is safe to log. */
export function toLlmError(err: unknown, ctx: ErrorContext): LlmError {
  if (err instanceof LlmError) return err;
  const clean = (text: string) => redact(text, ctx.apiKey);
  const detail = clean(err instanceof Error ? err.message : String(err));
  const options = { cause: err };
  // Order matters: the timeout and abort errors are subclasses of the broader ones.
  if (err instanceof APIUserAbortError || isAbortError(err)) {
    return new LlmError('aborted', 'the LLM request was cancelled', undefined, options);
  }
  if (err instanceof APIConnectionTimeoutError) {
    return new LlmError('timeout', `the LLM at ${ctx.baseURL} did not answer in time`, undefined, options);
  }
  if (err instanceof APIConnectionError) {
    const reason = clean(rootCause(err).message);
    return new LlmError('unreachable', `cannot reach the LLM at ${ctx.baseURL} (${reason})`, undefined, options);
  }
  // The SDK's message already starts with the status, which our label repeats.
  if (err instanceof APIError) return fromStatus(err.status, detail.replace(/^\d{3} /, ''), options);
  if (err instanceof TypeError && /terminated|fetch failed|socket|ECONN/i.test(`${err.message} ${String(err.cause)}`)) {
    return new LlmError('unreachable', `the connection to the LLM broke: ${detail}`, undefined, options);
  }
  return new LlmError('server', `unexpected LLM failure: ${detail}`, undefined, options);
}

function fromStatus(status: number | undefined, detail: string, options: { cause: unknown }): LlmError {
  const kind = statusKind(status);
  const label = status === undefined ? 'the LLM stream reported an error' : `the LLM answered ${status}`;
  return new LlmError(kind, `${label}: ${detail}`, status, options);
}

function statusKind(status: number | undefined): LlmError['kind'] {
  if (status === undefined) return 'server'; // an error event inside a 200 stream
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate_limited';
  if (status === 408) return 'timeout';
  if (status >= 500) return 'server';
  return 'bad_request';
}

/** undici hides the useful part ("connect ECONNREFUSED …") two causes deep, under "fetch failed". */
function rootCause(err: Error): Error {
  let current = err;
  for (let depth = 0; depth < 5 && current.cause instanceof Error; depth += 1) current = current.cause;
  return current;
}

function isAbortError(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}

/** Error text from providers sometimes echoes the key (or part of it) back. */
export function redact(text: string, apiKey: string): string {
  const withoutKey = apiKey.length >= 8 ? text.split(apiKey).join('[redacted]') : text;
  return scrubSecrets(withoutKey);
}
