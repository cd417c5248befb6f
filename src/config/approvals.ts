import { z } from 'zod';
import { int } from './fields.js';

/**
 * How long a tool call waits for a person's OK (issue 43): `15m`, `900s`, `1h`, or a number of
 * seconds. Past it the call is not run and the model is told it expired.
 */
const duration = z
  .string()
  .trim()
  .default('15m')
  .transform((v, ctx) => {
    const m = /^(\d+)\s*(s|m|h)?$/i.exec(v);
    const seconds = m ? Number(m[1]) * { s: 1, m: 60, h: 3600 }[(m[2] ?? 's').toLowerCase() as 's' | 'm' | 'h'] : NaN;
    if (!(seconds >= 10 && seconds <= 7 * 24 * 3600)) {
      ctx.addIssue({ code: 'custom', message: 'expected a duration from 10s to 168h, e.g. 15m, 900s or 2h' });
      return z.NEVER;
    }
    return seconds * 1000;
  });

export const approvalSettingsEnv = z.object({
  /** How long a call that needs a person's OK waits for one (ms once parsed): `15m`, `900s`, `1h`. */
  APPROVAL_TIMEOUT: duration,
  /** How often each replica looks for approvals past their time that nobody decided (ms; 100 ms to 1 h). */
  APPROVAL_SWEEP_MS: int(30_000, 100, 3_600_000),
});
