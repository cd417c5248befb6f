import { z } from 'zod';
import { int, optionalString, optionalUrl } from './fields.js';

/** The tool families' own settings, family by family (their models share the chat endpoint's key unless told). */
export const toolSettings = z.object({
  // Images
  IMAGE_MODEL: optionalString,
  /** Images from another OpenAI-compatible endpoint than chat (e.g. https://openrouter.ai/api/v1); default OPENAI_BASE_URL. */
  IMAGE_BASE_URL: optionalUrl,
  /** The key for IMAGE_BASE_URL (the chat key is never sent there); default OPENAI_API_KEY on the chat endpoint. */
  IMAGE_API_KEY: optionalString,
  /** `images` (/images/generations), `chat` (chat completions with image output) or `auto` (chat for OpenRouter and Gemini image models). */
  IMAGE_API: z.enum(['auto', 'images', 'chat']).default('auto'),
  // Artifacts
  /** The model that writes generate_artifact's code (same endpoint); default OPENAI_MODEL. */
  ARTIFACT_MODEL: optionalString,
  // Web search
  /** A faster model for web-search query rewriting (same endpoint); default OPENAI_MODEL. */
  REWRITE_MODEL: optionalString,
  TAVILY_API_KEY: optionalString,
  TAVILY_API_URL: optionalUrl,
  // Business lookups (docs/business.md: the router's limits)
  /** One business lookup gives up after this long (the seed: 200–400 ms). */
  BUSINESS_TOOL_TIMEOUT_MS: int(400, 50, 60_000),
  /** All business lookups of one turn together; then they fail at once with the fallback. */
  BUSINESS_TURN_BUDGET_MS: int(1_000, 50, 120_000),
  /** Business tool calls per turn; more are refused with an error the model can act on. */
  BUSINESS_MAX_CALLS: int(2, 1, 20),
  /** Failed booking lookups (no booking, or a wrong phone/email) one user may make per hour; then lookups pause (0: off). */
  BOOKING_LOOKUP_FAILURES_PER_HOUR: int(5, 0, 10_000),
});
