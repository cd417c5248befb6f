/** Slack's message limits (https://docs.slack.dev/reference/block-kit), in one place. */
export const SLACK_LIMITS = {
  blocksPerMessage: 50,
  sectionText: 3_000,
  headerText: 150,
  fieldsPerSection: 10,
  fieldText: 2_000,
  buttonText: 75,
  buttonValue: 2_000,
  actionsElements: 25,
  contextElements: 10,
  contextText: 3_000,
  /** Cumulative over every markdown block (and streamed markdown) of one message. */
  markdownPerMessage: 12_000,
  /**
   * Ours, not Slack's: the most of one answer's text (or one markdown block) shown, four full
   * messages; beyond it the text is cut before it is rendered, with the shortened note.
   */
  answerText: 48_000,
  tablesPerMessage: 1,
  /** Rows of one table block, the header row included. */
  tableRows: 100,
  tableColumns: 20,
  /** The notification / fallback `text` of a message; Slack truncates far above this. */
  fallbackText: 3_000,
  actionId: 255,
} as const;
