/**
 * The markdown of one turn's live Slack message, against the per-message budget: what the
 * message already shows, what waits for the next flush, and what no longer fits (posted as a
 * continuation once the turn ends). Pure bookkeeping: no Slack calls.
 */
export class MarkdownBudget {
  /** Markdown already in the live message. */
  shown = '';
  /** Markdown waiting for the next flush. */
  pending = '';
  /** Markdown beyond the budget; once anything overflows, everything after it does too (order is kept). */
  overflow = '';

  constructor(private readonly max: number) {}

  /** What the live message holds once flushed. */
  get live(): string {
    return this.shown + this.pending;
  }

  /** Characters the live message uses (shown and pending). */
  get used(): number {
    return this.shown.length + this.pending.length;
  }

  get empty(): boolean {
    return !this.shown && !this.pending;
  }

  append(text: string): void {
    if (this.overflow || this.used + text.length > this.max) this.overflow += text;
    else this.pending += text;
  }

  /** `text` (the head of `pending`) reached the message. */
  flushed(text: string): void {
    this.shown += text;
    this.pending = this.pending.slice(text.length);
  }

  /** Everything pending reached the message; returns what it was. */
  flushAll(): string {
    const text = this.pending;
    this.flushed(text);
    return text;
  }

  /**
   * The live message is done (what it shows stays there) and a continuation message takes over:
   * what was pending and the overflow move into it, as much as fits, cut after a whitespace
   * where one is near the end; the rest stays overflow.
   */
  nextMessage(): void {
    const rest = this.pending + this.overflow;
    this.shown = '';
    let cut = Math.min(rest.length, this.max);
    if (cut < rest.length) {
      const space = Math.max(rest.lastIndexOf('\n', cut - 1), rest.lastIndexOf(' ', cut - 1));
      if (space >= this.max * 0.8) cut = space + 1;
      // Never between the halves of a surrogate pair.
      else if (/[\uD800-\uDBFF]/.test(rest[cut - 1] ?? '')) cut -= 1;
    }
    this.pending = rest.slice(0, cut);
    this.overflow = rest.slice(cut);
  }

  /** A new message will show it all again (the switch from a stream to post-and-update). */
  unflush(): void {
    this.pending = this.shown + this.pending;
    this.shown = '';
  }
}
