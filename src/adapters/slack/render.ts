import type { types } from '@slack/bolt';
import type { Block, Button, Card, Field, FileAttachment, Reply } from '../../reply/model.js';
import { SLACK_LIMITS as L } from './limits.js';
import { escapeMrkdwn, toMrkdwn } from './text.js';
import { cutAt, splitText, truncate } from '../../reply/text.js';
import { feedbackBlock } from './feedback-blocks.js';

export type SlackBlock = types.KnownBlock;

/** One `chat.postMessage` worth of content. */
export interface SlackMessage {
  /** Notification and screen-reader text (mrkdwn). */
  text: string;
  blocks: SlackBlock[];
}

export interface RenderedReply {
  /** The first message, then continuation messages; empty when there is nothing to show. */
  messages: SlackMessage[];
  files: FileAttachment[];
  /** Whether anything was cut (a note is shown in the message concerned). */
  shortened: boolean;
}

export interface RenderOptions {
  /** The answer text is already in the thread (streamed): render only the blocks. */
  omitText?: boolean;
  /** Markdown characters already used in the first message (the streamed text). */
  firstMessageMarkdownUsed?: number;
}

/** A group of blocks that stays in one message. */
interface Unit {
  blocks: SlackBlock[];
  markdownChars: number;
  table: boolean;
  shortened: boolean;
}

export const SHORTENED_NOTE = '✂️ _Parts of this reply were shortened to fit Slack’s limits._';
export const CONTINUED_NOTE = '_Continued in the next message ↓_';
const CONTINUATION_TEXT = '(continued)';
/** Room kept in every message for the continuation and shortened notes. */
const RESERVED_BLOCKS = 2;
const MARKDOWN_PIECE = 3_000;

/** Renders the neutral reply as Block Kit messages within Slack's limits. */
export function renderReply(reply: Reply, opts: RenderOptions = {}): RenderedReply {
  const units: Unit[] = [];
  if (!opts.omitText && reply.text.trim()) units.push(...markdownUnits(reply.text));
  const files: FileAttachment[] = [];
  for (const block of reply.blocks) {
    if (block.type === 'file') files.push(block.file);
    else units.push(...blockUnits(block));
  }
  const pages = paginate(units, L.markdownPerMessage - (opts.firstMessageMarkdownUsed ?? 0));
  const fallback = fallbackText(reply);
  const messages = pages.map((page, i): SlackMessage => {
    const blocks = page.flatMap((u) => u.blocks);
    if (page.some((u) => u.shortened)) blocks.push(contextBlock([SHORTENED_NOTE]));
    if (i < pages.length - 1) blocks.push(contextBlock([CONTINUED_NOTE]));
    return { text: i === 0 ? fallback : CONTINUATION_TEXT, blocks: uniqueActionIds(blocks) };
  });
  return { messages, files, shortened: units.some((u) => u.shortened) };
}

/** A short message rendered the same way (errors, notices). */
export function noticeMessage(text: string, emoji = ':warning:'): SlackMessage {
  const body = truncate(`${emoji} ${toMrkdwn(cutAt(text, L.sectionText))}`, L.sectionText);
  return { text: truncate(text, L.fallbackText), blocks: [{ type: 'section', text: { type: 'mrkdwn', text: body } }] };
}

/** The answer as markdown blocks (Slack renders standard markdown in them). */
export function markdownBlocks(markdown: string): SlackBlock[] {
  return markdownUnits(markdown).flatMap((u) => u.blocks);
}

function markdownUnits(markdown: string): Unit[] {
  // Cut to what a reply shows before anything else reads it; pieces well under the per-message
  // budget pack more tightly behind a streamed answer.
  const shortened = markdown.length > L.answerText;
  const units = splitText(cutAt(markdown, L.answerText).trim(), MARKDOWN_PIECE).map((text) =>
    unit([{ type: 'markdown', text }], { markdownChars: text.length }),
  );
  if (shortened && units.length) units.at(-1)!.shortened = true;
  return units;
}

function blockUnits(block: Exclude<Block, { type: 'file' }>): Unit[] {
  switch (block.type) {
    case 'markdown':
      return block.text.trim() ? markdownUnits(block.text) : [];
    case 'header': {
      const text = block.text.replace(/\s+/g, ' ').trim();
      if (!text) return [];
      return [
        unit([{ type: 'header', text: { type: 'plain_text', text: truncate(text, L.headerText), emoji: true } }], {
          shortened: text.length > L.headerText,
        }),
      ];
    }
    case 'fields':
      return fieldSections(block.fields).map((s) => unit([s.block], { shortened: s.shortened }));
    case 'cards':
      return block.cards.map((card, i) => cardUnit(card, i < block.cards.length - 1));
    case 'table':
      return tableUnits(block.columns, block.rows, block.caption);
    case 'buttons':
      return buttonUnits(block.buttons);
    case 'citations':
      return sectionUnits(
        ['*Sources*', ...block.sources.map((s, i) => `${i + 1}. ${link(s.url, s.title)}`)].join('\n'),
      );
    case 'context':
      return contextUnits(block.items);
    case 'feedback':
      return [unit([feedbackBlock(block.turnId)])];
  }
}

function cardUnit(card: Card, divider: boolean): Unit {
  let shortened = false;
  const headline = [
    `*${escapeMrkdwn(card.title.trim() || 'Untitled')}*`,
    card.subtitle ? escapeMrkdwn(card.subtitle) : '',
  ]
    .filter(Boolean)
    .join('\n');
  shortened ||= headline.length > L.sectionText;
  const blocks: SlackBlock[] = [{ type: 'section', text: { type: 'mrkdwn', text: truncate(headline, L.sectionText) } }];
  for (const s of fieldSections(card.fields)) {
    blocks.push(s.block);
    shortened ||= s.shortened;
  }
  if (card.body?.trim()) {
    for (const piece of splitText(toMrkdwn(cutAt(card.body, L.answerText)), L.sectionText))
      blocks.push({ type: 'section', text: { type: 'mrkdwn', text: piece } });
  }
  if (divider) blocks.push({ type: 'divider' });
  return unit(blocks, { shortened });
}

function fieldSections(fields: Field[]): { block: SlackBlock; shortened: boolean }[] {
  const out: { block: SlackBlock; shortened: boolean }[] = [];
  const texts = fields
    .filter((f) => f.label.trim() || f.value.trim())
    .map((f) => {
      const text = `*${escapeMrkdwn(cutAt(f.label.trim(), L.fieldText))}*\n${toMrkdwn(cutAt(f.value.trim() || '—', L.fieldText))}`;
      return { text: truncate(text, L.fieldText), shortened: text.length > L.fieldText };
    });
  for (let i = 0; i < texts.length; i += L.fieldsPerSection) {
    const chunk = texts.slice(i, i + L.fieldsPerSection);
    out.push({
      block: { type: 'section', fields: chunk.map((t) => ({ type: 'mrkdwn', text: t.text })) },
      shortened: chunk.some((t) => t.shortened),
    });
  }
  return out;
}

/** A native table block per 99 rows (one table per message, so each is its own unit). */
function tableUnits(columns: string[], rows: string[][], caption?: string): Unit[] {
  const width = Math.min(columns.length, L.tableColumns);
  if (width === 0) return [];
  const shortened = columns.length > L.tableColumns || rows.some((r) => r.length > L.tableColumns);
  const cell = (text: string | undefined): types.RawTextElement => ({
    type: 'raw_text',
    text: text?.trim() ? text : '–',
  });
  const header = columns.slice(0, width).map(cell);
  const perTable = L.tableRows - 1;
  const units: Unit[] = [];
  for (let i = 0; i < Math.max(rows.length, 1); i += perTable) {
    const body = rows.slice(i, i + perTable).map((r) => Array.from({ length: width }, (_, c) => cell(r[c])));
    const blocks: SlackBlock[] = [];
    if (caption?.trim()) {
      const suffix =
        rows.length > perTable ? ` (rows ${i + 1}–${Math.min(i + perTable, rows.length)} of ${rows.length})` : '';
      blocks.push(contextBlock([truncate(toMrkdwn(caption.trim()) + suffix, L.contextText)]));
    }
    blocks.push({ type: 'table', rows: [header, ...body] });
    units.push(unit(blocks, { table: true, shortened }));
  }
  return units;
}

function buttonUnits(buttons: Button[]): Unit[] {
  let shortened = false;
  const elements: types.Button[] = [];
  for (const b of buttons) {
    // A value Slack would refuse cannot be cut without changing what the click means: drop the button.
    if ((b.value?.length ?? 0) > L.buttonValue || !b.actionId) {
      shortened = true;
      continue;
    }
    const label = b.label.trim() || b.actionId;
    shortened ||= label.length > L.buttonText;
    elements.push({
      type: 'button',
      action_id: b.actionId,
      text: { type: 'plain_text', text: truncate(label, L.buttonText), emoji: true },
      ...(b.value ? { value: b.value } : {}),
      ...(b.style ? { style: b.style } : {}),
    });
  }
  const units: Unit[] = [];
  for (let i = 0; i < elements.length; i += L.actionsElements) {
    units.push(
      unit([{ type: 'actions', elements: elements.slice(i, i + L.actionsElements) }], {
        shortened: shortened && i === 0,
      }),
    );
  }
  if (units.length === 0 && shortened)
    units.push(unit([contextBlock(['_A button could not be shown._'])], { shortened }));
  return units;
}

function sectionUnits(mrkdwn: string): Unit[] {
  return splitText(mrkdwn, L.sectionText).map((text) => unit([{ type: 'section', text: { type: 'mrkdwn', text } }]));
}

function contextUnits(items: string[]): Unit[] {
  const texts = items.map((i) => i.trim()).filter(Boolean);
  const units: Unit[] = [];
  for (let i = 0; i < texts.length; i += L.contextElements) {
    const chunk = texts.slice(i, i + L.contextElements).map((t) => toMrkdwn(cutAt(t, L.contextText + 1)));
    units.push(
      unit([contextBlock(chunk.map((t) => truncate(t, L.contextText)))], {
        shortened: chunk.some((t) => t.length > L.contextText),
      }),
    );
  }
  return units;
}

export function contextBlock(mrkdwnItems: string[]): SlackBlock {
  return { type: 'context', elements: mrkdwnItems.map((text) => ({ type: 'mrkdwn', text })) };
}

/** Greedy packing: block count, cumulative markdown and one table per message. */
function paginate(units: Unit[], firstMarkdownBudget: number): Unit[][] {
  const capacity = L.blocksPerMessage - RESERVED_BLOCKS;
  const pages: Unit[][] = [];
  let page: Unit[] = [];
  let blocks = 0;
  let markdown = 0;
  let tables = 0;
  const budget = () => (pages.length === 0 ? firstMarkdownBudget : L.markdownPerMessage);
  const split = (u: Unit): Unit[] =>
    u.blocks.map((b) =>
      unit([b], {
        table: b.type === 'table',
        shortened: u.shortened,
        markdownChars: b.type === 'markdown' ? b.text.length : 0,
      }),
    );
  for (const u of units.flatMap((u) => (u.blocks.length > capacity ? split(u) : [u]))) {
    const fits =
      blocks + u.blocks.length <= capacity &&
      markdown + u.markdownChars <= budget() &&
      tables + (u.table ? 1 : 0) <= L.tablesPerMessage;
    // The first message may already be full of streamed text: then it gets no blocks of its own.
    if (!fits && (page.length > 0 || (pages.length === 0 && u.markdownChars > budget()))) {
      pages.push(page);
      page = [];
      blocks = markdown = tables = 0;
    }
    page.push(u);
    blocks += u.blocks.length;
    markdown += u.markdownChars;
    tables += u.table ? 1 : 0;
  }
  if (page.length > 0) pages.push(page);
  return pages;
}

/** Slack wants action ids unique within a message; repeats get `#n`, which normalize strips. */
function uniqueActionIds(blocks: SlackBlock[]): SlackBlock[] {
  const seen = new Map<string, number>();
  for (const block of blocks) {
    if (block.type !== 'actions') continue;
    for (const el of block.elements) {
      if (el.type !== 'button' || !el.action_id) continue;
      const n = (seen.get(el.action_id) ?? 0) + 1;
      seen.set(el.action_id, n);
      if (n > 1) el.action_id = truncate(el.action_id, L.actionId - 6) + `#${n}`;
    }
  }
  return blocks;
}

function fallbackText(reply: Reply): string {
  const header = reply.blocks.find((b): b is Extract<Block, { type: 'header' }> => b.type === 'header');
  const text = reply.text.trim() || header?.text || 'Switchboard replied.';
  return truncate(toMrkdwn(cutAt(text, L.fallbackText)), L.fallbackText);
}

function link(url: string, title: string): string {
  const label = escapeMrkdwn(title.trim() || url).replaceAll('|', '¦');
  return /^https?:\/\//.test(url) ? `<${url}|${label}>` : label;
}

function unit(blocks: SlackBlock[], over: Partial<Omit<Unit, 'blocks'>> = {}): Unit {
  return { blocks, markdownChars: 0, table: false, shortened: false, ...over };
}
