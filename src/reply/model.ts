/**
 * The platform-neutral reply. Tools and the agent build these; each adapter renders them
 * within its platform's limits (Slack Block Kit, Discord embeds, HTTP JSON, console text).
 */
export interface Field {
  label: string;
  value: string;
}

export interface Card {
  title: string;
  subtitle?: string;
  fields: Field[];
  body?: string;
}

export interface Button {
  /** Routed back to the core as `IncomingMessage.action.id`; ≤ 60 chars, `[a-z0-9_.:-]`. */
  actionId: string;
  label: string;
  value?: string;
  style?: 'primary' | 'danger';
}

export interface FileAttachment {
  name: string;
  mime: string;
  data: Uint8Array;
  /** A short text shown with the file (artifact preview, image prompt). */
  preview?: string;
  title?: string;
}

export type Block =
  | { type: 'markdown'; text: string }
  | { type: 'header'; text: string }
  | { type: 'fields'; fields: Field[] }
  | { type: 'cards'; cards: Card[] }
  | { type: 'table'; columns: string[]; rows: string[][]; caption?: string }
  | { type: 'buttons'; buttons: Button[] }
  | { type: 'citations'; sources: { title: string; url: string; snippet?: string }[] }
  | { type: 'context'; items: string[] }
  | { type: 'file'; file: FileAttachment }
  /** Asks for a vote on this answer (issue 47): 👍/👎 under the answer, naming its turn record. */
  | { type: 'feedback'; turnId: string };

export interface Reply {
  /** The plain answer: what notifications, screen readers and plain-text fallbacks show. */
  text: string;
  blocks: Block[];
}
