import {
  ButtonStyle,
  ComponentType,
  type APIActionRowComponent,
  type APIButtonComponentWithCustomId,
  type APIEmbed,
  type APIEmbedField,
} from 'discord.js';
import type { Block, Button, Card, Field, Reply } from '../../reply/model.js';
import { renderTable } from '../../reply/plain-text.js';
import { LIMITS, MAX_MESSAGES_PER_REPLY } from './limits.js';
import { cutAt, splitText, truncate } from '../../reply/text.js';
import { inertDiscordText } from './inert.js';
import { deceptiveLink } from '../links.js';
import { feedbackRow } from './feedback-row.js';

export interface OutgoingFile {
  name: string;
  data: Buffer;
  description?: string;
}

/** One Discord message, already within every limit; the sinks hand it to discord.js as is. */
export interface OutgoingMessage {
  content: string;
  embeds: APIEmbed[];
  components: APIActionRowComponent<APIButtonComponentWithCustomId>[];
  files: OutgoingFile[];
}

export interface RenderOptions {
  /** The custom_id of each button, in the order `replyButtons(reply)` lists them. */
  customIds: readonly string[];
}

const COLOR = 0x5865f2;
/** Room kept free in `content` for the continuation and "shortened" notes. */
const NOTE_ROOM = 160;
export const SHORTENED_NOTE = '-# Parts of this reply were shortened to fit Discord’s limits.';
export const EMPTY_REPLY = '_(no answer)_';

/**
 * Renders the neutral reply as Discord messages: the text as message content, blocks as
 * embeds, buttons as action rows on the last message, files as attachments. Whatever does
 * not fit one message continues in the next, each continuation marked; anything cut short
 * ends with '…' and the reply says so.
 */
export function renderReply(reply: Reply, opts: RenderOptions): OutgoingMessage[] {
  const built = buildEmbeds(reply.blocks.map(inertBlock));
  const buttons = reply.blocks.flatMap((b) => (b.type === 'buttons' ? b.buttons : []));
  const rows = buttonRows(buttons, opts.customIds);
  // 👍/👎 under an answer (issue 47): a row of its own, last, within Discord's rows per message.
  const vote = feedbackRow(reply);
  if (vote) rows.rows = [...rows.rows.slice(0, LIMITS.rows - 1), vote];
  let shortened = built.shortened || rows.shortened;

  // Cut to what the reply can show before any rendering: never render 100,000 characters to show 12,000.
  const room = MAX_MESSAGES_PER_REPLY * LIMITS.content;
  if (reply.text.length > room) shortened = true;
  const text = inertDiscordText(cutAt(reply.text, room));
  const messages = splitText(text, LIMITS.content - NOTE_ROOM).map((content) => message(content));
  if (messages.length === 0) messages.push(message(''));
  let current = messages.at(-1)!;
  for (const embed of built.embeds) {
    if (
      current.embeds.length >= LIMITS.embedsPerMessage ||
      totalEmbedChars(current.embeds) + embedChars(embed) > LIMITS.embedCharsPerMessage
    ) {
      current = message('');
      messages.push(current);
    }
    current.embeds.push(embed);
  }
  for (const file of built.files) {
    if (current.files.length >= LIMITS.filesPerMessage) {
      current = message('');
      messages.push(current);
    }
    current.files.push(file);
  }
  current.components = rows.rows;

  if (messages.length > MAX_MESSAGES_PER_REPLY) {
    const dropped = messages.splice(MAX_MESSAGES_PER_REPLY);
    messages.at(-1)!.components = dropped.at(-1)!.components;
    shortened = true;
  }
  const total = messages.length;
  messages.forEach((m, i) => {
    if (i > 0) m.content = [`-# ↳ continued (${i + 1}/${total})`, m.content].filter(Boolean).join('\n');
  });
  const last = messages.at(-1)!;
  if (shortened) last.content = [last.content, SHORTENED_NOTE].filter(Boolean).join('\n');
  if (!last.content && last.embeds.length === 0 && last.files.length === 0) last.content = EMPTY_REPLY;
  return messages.map(inertMessage);
}

/**
 * The texts of a finished message made inert once more: each block was (before it was cut to
 * size), but the renderer's own joins (a citation's title and snippet, context items) could
 * still put a `[` of one part before the `](url)` of another.
 */
function inertMessage(m: OutgoingMessage): OutgoingMessage {
  const t = inertDiscordText;
  const embeds = m.embeds.map((e): APIEmbed => ({
    ...e,
    ...(e.title !== undefined ? { title: t(e.title) } : {}),
    ...(e.description !== undefined ? { description: t(e.description) } : {}),
    ...(e.fields ? { fields: e.fields.map((f) => ({ ...f, name: t(f.name), value: t(f.value) })) } : {}),
    ...(e.footer ? { footer: { ...e.footer, text: t(e.footer.text) } } : {}),
  }));
  return { ...m, content: t(m.content), embeds };
}

/**
 * The message shown while a turn runs: the text so far, then a small status line; `lead`, a line
 * of ours before the text (a continuation's mark).
 */
export function renderProgress(text: string, status: string | undefined, lead = ''): string {
  const statusLine = status ? `-# ${inertDiscordText(truncate(status.replaceAll('\n', ' '), 200))}` : '';
  const room = LIMITS.content - statusLine.length - 1 - (lead ? lead.length + 1 : 0);
  // Cut to what the message shows (with room for what inert text adds), then made inert, then cut to fit.
  const body = truncate(inertDiscordText(cutAt(text.trim(), 2 * room)), room);
  return [lead, body, statusLine].filter(Boolean).join('\n') || '-# …';
}

/** A block's texts made inert (src/adapters/discord/inert.ts); ids, values and file data are not text Discord shows. */
function inertBlock(block: Block): Block {
  const t = inertDiscordText;
  const fields = (fs: Field[]) => fs.map((f) => ({ ...f, label: t(f.label), value: t(f.value) }));
  switch (block.type) {
    case 'markdown':
    case 'header':
      return { ...block, text: t(block.text) };
    case 'fields':
      return { ...block, fields: fields(block.fields) };
    case 'cards':
      return {
        ...block,
        cards: block.cards.map((c) => ({
          ...c,
          title: t(c.title),
          fields: fields(c.fields),
          ...(c.subtitle !== undefined ? { subtitle: t(c.subtitle) } : {}),
          ...(c.body !== undefined ? { body: t(c.body) } : {}),
        })),
      };
    case 'table':
      return {
        ...block,
        columns: block.columns.map(t),
        rows: block.rows.map((r) => r.map(t)),
        ...(block.caption !== undefined ? { caption: t(block.caption) } : {}),
      };
    case 'citations':
      return {
        ...block,
        sources: block.sources.map((s) => ({
          ...s,
          title: t(s.title),
          ...(s.snippet !== undefined ? { snippet: t(s.snippet) } : {}),
        })),
      };
    case 'context':
      return { ...block, items: block.items.map(t) };
    case 'feedback':
      return block;
    case 'file':
      return {
        ...block,
        file: {
          ...block.file,
          ...(block.file.title !== undefined ? { title: t(block.file.title) } : {}),
          ...(block.file.preview !== undefined ? { preview: t(block.file.preview) } : {}),
        },
      };
    case 'buttons':
      return block;
  }
}

export function embedChars(e: APIEmbed): number {
  const fields = (e.fields ?? []).reduce((n, f) => n + f.name.length + f.value.length, 0);
  return (
    (e.title?.length ?? 0) +
    (e.description?.length ?? 0) +
    (e.footer?.text.length ?? 0) +
    (e.author?.name.length ?? 0) +
    fields
  );
}

export function totalEmbedChars(embeds: APIEmbed[]): number {
  return embeds.reduce((n, e) => n + embedChars(e), 0);
}

function message(content: string): OutgoingMessage {
  return { content, embeds: [], components: [], files: [] };
}

interface Built {
  embeds: APIEmbed[];
  files: OutgoingFile[];
  shortened: boolean;
}

/** Blocks → embeds, each within the per-embed limits and 6,000 characters on its own. */
function buildEmbeds(blocks: Block[]): Built {
  const out: Built = { embeds: [], files: [], shortened: false };
  let pendingTitle: string | undefined;
  const cut = (text: string, max: number) => {
    const cutText = truncate(text, max);
    if (cutText !== text) out.shortened = true;
    return cutText;
  };
  const push = (embed: APIEmbed) => out.embeds.push({ color: COLOR, ...embed });
  const takeTitle = () => {
    const title = pendingTitle;
    pendingTitle = undefined;
    return title;
  };
  const flushTitle = () => {
    const title = takeTitle();
    if (title) push({ title });
  };
  /** Long text as descriptions, continued over as many embeds as it needs. */
  const pushText = (full: string, title: string | undefined) => {
    // Cut first: more than a reply's worth of embeds is never rendered.
    const text = cut(full, LIMITS.embedCharsPerMessage * MAX_MESSAGES_PER_REPLY);
    splitText(text, LIMITS.embedDescription).forEach((description, i) =>
      push({ ...(i === 0 && title ? { title } : {}), description }),
    );
  };
  const pushFields = (first: APIEmbed, fields: Field[]) => {
    let embed: APIEmbed = { ...first, fields: [] };
    for (const f of fields) {
      const field: APIEmbedField = {
        name: cut(f.label.trim() || '\u200b', LIMITS.fieldName),
        value: cut(f.value.trim() || '—', LIMITS.fieldValue),
        inline: true,
      };
      const full =
        embed.fields!.length >= LIMITS.embedFields ||
        embedChars(embed) + field.name.length + field.value.length > LIMITS.embedCharsPerMessage;
      if (full) {
        push(embed);
        embed = { fields: [] };
      }
      embed.fields!.push(field);
    }
    if (embed.fields!.length === 0) delete embed.fields;
    if (embed.title || embed.description || embed.fields) push(embed);
  };

  for (const block of blocks) {
    switch (block.type) {
      case 'header':
        flushTitle();
        pendingTitle = cut(block.text.trim(), LIMITS.embedTitle);
        break;
      case 'markdown':
        if (block.text.trim()) pushText(block.text, takeTitle());
        break;
      case 'fields':
        pushFields(titled(takeTitle()), block.fields);
        break;
      case 'cards':
        flushTitle();
        for (const card of block.cards) pushFields(cardEmbed(card, cut), card.fields);
        break;
      case 'table':
        pushTable(block.columns, block.rows, block.caption, takeTitle(), push, cut);
        break;
      case 'citations': {
        flushTitle();
        // Titles and snippets are kept short on purpose: a source list is for skimming.
        const lines = block.sources.map(
          (s, i) =>
            `${i + 1}. ${sourceLink(truncate(s.title, 200), s.url)}${s.snippet ? ` — ${truncate(s.snippet, 300)}` : ''}`,
        );
        if (lines.length) pushText(lines.join('\n'), 'Sources');
        break;
      }
      case 'context': {
        const text = cut(block.items.join(' · '), LIMITS.footer);
        const last = out.embeds.at(-1);
        if (last && !last.footer && embedChars(last) + text.length <= LIMITS.embedCharsPerMessage)
          last.footer = { text };
        else push({ footer: { text } });
        break;
      }
      case 'file':
        out.files.push({
          name: block.file.name,
          data: Buffer.from(block.file.data),
          ...(block.file.title ? { description: cut(block.file.title, 1_024) } : {}),
        });
        if (block.file.preview)
          pushText(block.file.preview, cut(block.file.title ?? block.file.name, LIMITS.embedTitle));
        break;
      case 'buttons':
      case 'feedback':
        break;
    }
  }
  flushTitle();
  return out;
}

const titled = (title: string | undefined): APIEmbed => (title ? { title } : {});

function cardEmbed(card: Card, cut: (text: string, max: number) => string): APIEmbed {
  const description = [card.subtitle ? `*${card.subtitle}*` : '', card.body ?? ''].filter(Boolean).join('\n');
  return {
    title: cut(card.title.trim() || '\u200b', LIMITS.embedTitle),
    ...(description ? { description: cut(description, LIMITS.embedDescription) } : {}),
  };
}

/** A monospace table in code blocks; rows that do not fit continue in the next embed under the same header. */
function pushTable(
  columns: string[],
  rows: string[][],
  caption: string | undefined,
  title: string | undefined,
  push: (e: APIEmbed) => void,
  cut: (text: string, max: number) => string,
): void {
  const lines = renderTable(columns, rows)
    .split('\n')
    .map((l) => cut(l, 400).replaceAll('```', "'''"));
  const head = lines.slice(0, 2);
  const body = lines.slice(2);
  const intro = caption ? `${cut(caption, 500)}\n` : '';
  const frame = (parts: string[], withIntro: boolean) =>
    `${withIntro ? intro : ''}\`\`\`\n${[...head, ...parts].join('\n')}\n\`\`\``;
  let part: string[] = [];
  let first = true;
  for (const line of body) {
    if (part.length > 0 && frame([...part, line], first).length > LIMITS.embedDescription) {
      push({ ...(first ? titled(title) : {}), description: frame(part, first) });
      first = false;
      part = [];
    }
    part.push(line);
  }
  push({ ...(first ? titled(title) : {}), description: frame(part, first) });
}

function buttonRows(
  buttons: Button[],
  customIds: readonly string[],
): { rows: OutgoingMessage['components']; shortened: boolean } {
  const max = LIMITS.buttonsPerRow * LIMITS.rows;
  const shown = buttons.slice(0, max);
  const rows: OutgoingMessage['components'] = [];
  shown.forEach((b, i) => {
    const customId = customIds[i];
    if (!customId) throw new Error(`no custom_id for button ${i} (${b.actionId})`);
    if (i % LIMITS.buttonsPerRow === 0) rows.push({ type: ComponentType.ActionRow, components: [] });
    rows.at(-1)!.components.push({
      type: ComponentType.Button,
      style:
        b.style === 'primary' ? ButtonStyle.Primary : b.style === 'danger' ? ButtonStyle.Danger : ButtonStyle.Secondary,
      label: truncate(b.label.trim() || b.actionId, LIMITS.buttonLabel),
      custom_id: customId,
    });
  });
  return { rows, shortened: buttons.length > max || shown.some((b) => b.label.length > LIMITS.buttonLabel) };
}

/** A source as a masked link, unless its title names another site: then the title, then the bare URL. */
function sourceLink(title: string, url: string): string {
  return deceptiveLink(title, url) ? `${title} <${url}>` : `[${escapeLinkText(title)}](${url})`;
}

/**
 * A title as a masked link's text: its brackets as full-width ones, which close nothing. A
 * backslash escape (`\]`) is read differently by different markdown readers, so one of them
 * could see a link inside the title (`[<https://evil…>\](](https://…)`).
 */
function escapeLinkText(text: string): string {
  return text.replace(/[[\]]/g, (c) => (c === '[' ? '［' : '］'));
}
