/**
 * An optional third opinion on a user message: a classifier model (e.g. a Prompt Guard or Llama
 * Guard model) behind any OpenAI-compatible chat-completions endpoint, named by `GUARD_MODEL`.
 * It is asked once per turn, beside the first LLM step (the turn does not wait for it before
 * answering), within a small budget (`GUARD_TIMEOUT_MS`, 300 ms). It fails open: no answer in
 * time, an HTTP error or an unreadable body leaves the message unflagged by it, with one warning
 * line for the operator; the rules and the learned scorer still apply.
 *
 * The answer is read as a label: a reply that names an attack (`INJECTION`, `JAILBREAK`,
 * `unsafe`, `malicious`) flags the message; anything else (`BENIGN`, `safe`) does not.
 */
import type { Config } from '../config/index.js';
import type { Logger } from '../telemetry/logger.js';

export interface GuardVerdict {
  flagged: boolean;
  /** The classifier's label, shortened (for logs; never the user's text). */
  label: string;
}

export interface Guard {
  /** The classifier's verdict, or `undefined` when it did not answer in time or failed (fail-open). */
  check(text: string, log: Logger): Promise<GuardVerdict | undefined>;
}

export type GuardConfig = Pick<Config, 'GUARD_MODEL' | 'GUARD_BASE_URL' | 'GUARD_API_KEY' | 'GUARD_TIMEOUT_MS'> &
  Partial<Pick<Config, 'OPENAI_BASE_URL' | 'OPENAI_API_KEY'>>;

const ATTACK = /\b(?:unsafe|injection|jailbreak|malicious|attack)\b/i;
const CLEAR = /^\W*(?:safe|benign|label_0|0)\b/i;
/** Only this much of a long message is sent to the classifier (Prompt Guard reads 512 tokens). */
const GUARD_CHARS = 2_000;

/** `undefined` when `GUARD_MODEL` is unset. */
export function createGuard(config: GuardConfig, fetchImpl: typeof fetch = fetch): Guard | undefined {
  const model = config.GUARD_MODEL;
  if (!model) return undefined;
  // Like the image endpoint: the chat key goes only to the chat endpoint.
  const base = (config.GUARD_BASE_URL ?? config.OPENAI_BASE_URL ?? 'https://api.openai.com/v1').replace(/\/+$/, '');
  const key = config.GUARD_BASE_URL ? config.GUARD_API_KEY : (config.GUARD_API_KEY ?? config.OPENAI_API_KEY);
  const budget = config.GUARD_TIMEOUT_MS;
  return {
    async check(text, log) {
      const started = performance.now();
      const failOpen = (reason: string) => {
        log.warn(
          { code: 'guard_unavailable', reason, ms: Math.round(performance.now() - started), budgetMs: budget },
          `GUARD_MODEL (${model} at GUARD_BASE_URL) gave no verdict (${reason}); the message goes on without it (fail-open)`,
        );
        return undefined;
      };
      try {
        const res = await fetchImpl(`${base}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
          body: JSON.stringify({
            model,
            messages: [{ role: 'user', content: text.slice(0, GUARD_CHARS) }],
            max_tokens: 10,
            temperature: 0,
          }),
          signal: AbortSignal.timeout(budget),
        });
        if (!res.ok) {
          await res.body?.cancel().catch(() => {});
          return failOpen(`HTTP ${res.status}`);
        }
        const body = (await res.json()) as { choices?: { message?: { content?: unknown } }[] };
        const content = body.choices?.[0]?.message?.content;
        if (typeof content !== 'string') return failOpen('a body without choices[0].message.content');
        const label = content.trim().slice(0, 40);
        return { flagged: !CLEAR.test(label) && ATTACK.test(label), label };
      } catch (err) {
        const name = err instanceof Error ? err.name : '';
        if (name === 'TimeoutError' || name === 'AbortError') return failOpen(`no answer within ${budget} ms`);
        if (err instanceof SyntaxError) return failOpen('a body that is not JSON');
        return failOpen(err instanceof Error ? err.message.slice(0, 120) : 'request failed');
      }
    },
  };
}
