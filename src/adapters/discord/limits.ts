/**
 * Discord's message limits (https://discord.com/developers/docs/resources/message#create-message,
 * .../resources/message#embed-object-embed-limits, .../components/reference). Lengths are
 * counted in UTF-16 code units here, which is never less than what Discord counts.
 */
export const LIMITS = {
  content: 2_000,
  embedsPerMessage: 10,
  /** Title, description, field names and values, footer and author name of every embed in one message. */
  embedCharsPerMessage: 6_000,
  embedTitle: 256,
  embedDescription: 4_096,
  embedFields: 25,
  fieldName: 256,
  fieldValue: 1_024,
  footer: 2_048,
  buttonsPerRow: 5,
  rows: 5,
  customId: 100,
  buttonLabel: 80,
  filesPerMessage: 10,
  threadName: 100,
} as const;

/** The most messages one reply may take; anything beyond is left out with a note. */
export const MAX_MESSAGES_PER_REPLY = 6;
