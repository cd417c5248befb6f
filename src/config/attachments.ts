import { z } from 'zod';
import { int } from './fields.js';

/** Files and images shared with a message (src/attachments/, README "Files and images"). */
export const attachmentSettings = z.object({
  /** `auto`: images go to the model when the model is known to take them; `on`/`off` decide for it. */
  MODEL_INPUT_IMAGES: z.enum(['auto', 'on', 'off']).default('auto'),
  /** Tokens of text all of one message's files may add; past it a file is cut ("[truncated: pages 1–12 of 40]"). */
  ATTACHMENT_MAX_TOKENS: int(8_000, 100, 200_000),
  /** The largest file read, in bytes (downloads stop there). */
  ATTACHMENT_MAX_BYTES: int(20 * 1024 * 1024, 1_024, 200 * 1024 * 1024),
  /** Files read per message; the rest are named in the reply as not read. */
  ATTACHMENT_MAX_FILES: int(8, 1, 50),
  /** One file's download, in ms. */
  ATTACHMENT_DOWNLOAD_TIMEOUT_MS: int(15_000, 100, 300_000),
  /** One file's text extraction, in ms. */
  ATTACHMENT_EXTRACT_TIMEOUT_MS: int(10_000, 100, 300_000),
});
