import { z } from 'zod';
import { text } from './fields.js';

/** Settings per channel (issue 46): rows of `channel_settings` and the turns page's sources. */

export const channelSettingsRow = z.object({ channel_id: text, settings: z.record(z.string(), z.unknown()) });
export const channelSettingsListRow = z.object({
  tenant: text,
  channel_id: text,
  settings: z.record(z.string(), z.unknown()),
  updated_at: text,
});
export const channelClearedRow = z.object({ cleared: z.boolean() });
export const turnSettingsRow = z.object({
  id: z.coerce.number().int(),
  settings: z.record(z.string(), z.string()),
});
