import { z } from 'zod';

/** Feedback on answers (issue 47; README "Feedback on answers"). */
export const feedbackSettings = z.object({
  /** `off`: answers carry no 👍/👎 controls (votes already recorded stay; POST /api/feedback and /good, /bad still record). */
  FEEDBACK: z.enum(['on', 'off']).default('on'),
});
