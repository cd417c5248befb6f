import type { Block, Reply } from './model.js';

/**
 * Renders the neutral reply as readable monospace text: the console adapter's output and
 * any platform's plain fallback. Files are listed by name; the caller decides where they go.
 */
export function renderPlainText(reply: Reply, opts: { width?: number } = {}): string {
  const width = opts.width ?? 100;
  const parts = reply.text ? [reply.text] : [];
  let buttonNo = 0;
  for (const block of reply.blocks) {
    const rendered = renderBlock(block, width, () => ++buttonNo);
    if (rendered) parts.push(rendered);
  }
  return parts.join('\n\n');
}

function renderBlock(block: Block, width: number, nextButton: () => number): string {
  switch (block.type) {
    case 'markdown':
      return block.text;
    case 'header':
      return `${block.text}\n${'─'.repeat(Math.min(width, block.text.length))}`;
    case 'fields':
      return block.fields.map((f) => `${f.label}: ${f.value}`).join('\n');
    case 'cards':
      return block.cards
        .map((card, i) => {
          const lines = [`${i + 1}. ${card.title}${card.subtitle ? ` · ${card.subtitle}` : ''}`];
          for (const f of card.fields) lines.push(`   ${f.label}: ${f.value}`);
          if (card.body) lines.push(`   ${card.body.replaceAll('\n', '\n   ')}`);
          return lines.join('\n');
        })
        .join('\n');
    case 'table':
      return renderTable(block.columns, block.rows, block.caption);
    case 'buttons':
      return block.buttons.map((b) => `[${nextButton()}] ${b.label}`).join('   ');
    case 'citations':
      return ['Sources:', ...block.sources.map((s, i) => `  [${i + 1}] ${s.title} — ${s.url}`)].join('\n');
    case 'context':
      return block.items.map((i) => `· ${i}`).join('  ');
    case 'feedback':
      return '';
    case 'file':
      return `📎 ${block.file.title ?? block.file.name} (${block.file.mime}, ${block.file.data.byteLength} bytes)${block.file.preview ? `\n${block.file.preview}` : ''}`;
  }
}

/** A monospace table with aligned columns; cells are single-line. */
export function renderTable(columns: string[], rows: string[][], caption?: string): string {
  const clean = (s: string) => s.replaceAll('\n', ' ');
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => clean(r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => clean(c).padEnd(widths[i] ?? 0))
      .join(' │ ')
      .trimEnd();
  const out = [line(columns), widths.map((w) => '─'.repeat(w)).join('─┼─'), ...rows.map(line)];
  if (caption) out.unshift(caption);
  return out.join('\n');
}

/** The buttons of a reply in display order, so a console user can pick one by number. */
export function replyButtons(reply: Reply) {
  return reply.blocks.flatMap((b) => (b.type === 'buttons' ? b.buttons : []));
}
