import { describe, expect, it } from 'vitest';
import { createActionStore } from '../../../src/adapters/discord/custom-id.js';
import { LIMITS } from '../../../src/adapters/discord/limits.js';
import { splitText, truncate } from '../../../src/reply/text.js';
import {
  EMPTY_REPLY,
  renderProgress,
  renderReply,
  SHORTENED_NOTE,
  totalEmbedChars,
  type OutgoingMessage,
} from '../../../src/adapters/discord/render.js';
import type { Block, Reply } from '../../../src/reply/model.js';
import { replyButtons } from '../../../src/reply/plain-text.js';
import { createMemoryKv } from '../../../src/state/kv.js';
import { checkMessageLimits } from '../../fakes/discord/limits.js';
import { specValidator } from '../../fakes/discord/openapi.js';

const ids = (reply: Reply) => replyButtons(reply).map((_, i) => `b${i}`);
const render = (reply: Reply) => renderReply(reply, { customIds: ids(reply) });

/** What discord.js would send for the message, checked as Discord checks it. */
function problems(m: OutgoingMessage): string[] {
  const body = {
    content: m.content,
    embeds: m.embeds,
    components: m.components,
    attachments: m.files.map((f, i) => ({
      id: String(i),
      filename: f.name,
      ...(f.description ? { description: f.description } : {}),
    })),
  };
  return [
    ...specValidator().checkRequest('POST', '/channels/1/messages', body, 'json'),
    ...checkMessageLimits('/channels/1/messages', body),
  ];
}

function expectWithinLimits(messages: OutgoingMessage[]): void {
  for (const m of messages) {
    expect(problems(m)).toEqual([]);
    expect(m.content.length).toBeLessThanOrEqual(LIMITS.content);
    expect(m.embeds.length).toBeLessThanOrEqual(LIMITS.embedsPerMessage);
    expect(totalEmbedChars(m.embeds)).toBeLessThanOrEqual(LIMITS.embedCharsPerMessage);
    expect(m.files.length).toBeLessThanOrEqual(LIMITS.filesPerMessage);
  }
}

describe('text helpers', () => {
  it('truncate marks a cut with an ellipsis and never splits a surrogate pair', () => {
    expect(truncate('short', 10)).toBe('short');
    expect(truncate('abcdefghij', 5)).toBe('abcd…');
    expect(truncate('ab😀cd', 4)).toBe('ab…');
  });

  it('splitText prefers paragraph and line breaks and reopens a code fence it had to cut', () => {
    const text = [
      'First paragraph.',
      'Second paragraph is here.',
      '```ts',
      ...Array.from({ length: 20 }, (_, i) => `const x${i} = ${i};`),
      '```',
      'After.',
    ].join('\n\n');
    const chunks = splitText(text, 120);
    expect(chunks.every((c) => c.length <= 120)).toBe(true);
    expect(chunks[0]!.startsWith('First paragraph.\n\nSecond paragraph is here.')).toBe(true);
    expect(chunks.every((c) => !c.endsWith(' ') && !c.startsWith('\n'))).toBe(true);
    for (const c of chunks) expect((c.match(/^```/gm) ?? []).length % 2).toBe(0);
    expect(chunks[0]!.endsWith('\n```')).toBe(true);
    expect(chunks[1]!.startsWith('```ts\nconst')).toBe(true);
    expect(chunks.join('\n').replaceAll(/\n?```(ts)?\n?/g, '')).toContain('const x19 = 19;');
  });
});

describe('renderReply', () => {
  it('maps each block kind to embeds, buttons to an action row and files to attachments', () => {
    const reply: Reply = {
      text: 'Here is the summary.',
      blocks: [
        { type: 'header', text: 'Campaigns' },
        { type: 'markdown', text: 'Three campaigns matched.' },
        {
          type: 'fields',
          fields: [
            { label: 'Channel', value: 'Facebook' },
            { label: 'Offer', value: '' },
          ],
        },
        {
          type: 'cards',
          cards: [
            {
              title: 'Acme Energy',
              subtitle: 'Facebook',
              fields: [{ label: 'Offer', value: 'Free month' }],
              body: 'Green power.',
            },
          ],
        },
        { type: 'table', columns: ['Product', 'Price'], rows: [['A', '1 EUR']], caption: 'Prices' },
        { type: 'citations', sources: [{ title: 'Docs [v2]', url: 'https://example.com/a', snippet: 'About A' }] },
        { type: 'context', items: ['3 results', 'updated today'] },
        {
          type: 'file',
          file: { name: 'a.csv', mime: 'text/csv', data: new Uint8Array([65]), title: 'Export', preview: 'A' },
        },
        {
          type: 'buttons',
          buttons: [
            { actionId: 'campaigns.more', label: 'Show more', style: 'primary' },
            { actionId: 'x.danger', label: 'Delete', style: 'danger' },
          ],
        },
      ],
    };
    const [m, ...rest] = render(reply);
    expect(rest).toEqual([]);
    expect(m!.content).toBe('Here is the summary.');
    expect(m!.embeds.map((e) => e.title ?? null)).toEqual([
      'Campaigns',
      null,
      'Acme Energy',
      null,
      'Sources',
      'Export',
    ]);
    expect(m!.embeds[0]!.description).toBe('Three campaigns matched.');
    expect(m!.embeds[1]!.fields).toEqual([
      { name: 'Channel', value: 'Facebook', inline: true },
      { name: 'Offer', value: '—', inline: true },
    ]);
    expect(m!.embeds[2]).toMatchObject({
      description: '*Facebook*\nGreen power.',
      fields: [{ name: 'Offer', value: 'Free month' }],
    });
    expect(m!.embeds[3]!.description).toMatch(/^Prices\n```\nProduct │ Price\n/);
    expect(m!.embeds[4]!.description).toBe('1. [Docs ［v2］](https://example.com/a) — About A');
    expect(m!.embeds[4]!.footer).toEqual({ text: '3 results · updated today' });
    expect(m!.files).toMatchObject([{ name: 'a.csv', description: 'Export' }]);
    expect(m!.components).toEqual([
      {
        type: 1,
        components: [
          { type: 2, style: 1, label: 'Show more', custom_id: 'b0' },
          { type: 2, style: 4, label: 'Delete', custom_id: 'b1' },
        ],
      },
    ]);
    expectWithinLimits([m!]);
  });

  it('continues what does not fit over further messages, marks them, and says when it had to leave things out', () => {
    const text = 'word '.repeat(1_500); // 7,500 characters
    const rows = Array.from({ length: 300 }, (_, i) => [`Row ${i}`, 'x'.repeat(30)]);
    const blocks: Block[] = [
      { type: 'table', columns: ['Name', 'Value'], rows },
      { type: 'fields', fields: Array.from({ length: 60 }, (_, i) => ({ label: `F${i}`, value: 'v'.repeat(1_200) })) },
      {
        type: 'buttons',
        buttons: Array.from({ length: 30 }, (_, i) => ({
          actionId: `p.${i}`,
          label: `Button ${i} ${'long label '.repeat(10)}`,
        })),
      },
    ];
    const messages = render({ text, blocks });
    expectWithinLimits(messages);
    expect(messages).toHaveLength(6);
    messages.slice(1).forEach((m, i) => expect(m.content.startsWith(`-# ↳ continued (${i + 2}/6)`)).toBe(true));
    expect(messages.at(-1)!.content.endsWith(SHORTENED_NOTE)).toBe(true);
    const buttons = messages.at(-1)!.components.flatMap((r) => r.components);
    expect(buttons).toHaveLength(25);
    expect(messages.at(-1)!.components).toHaveLength(5);
    expect(buttons.every((b) => (b.label ?? '').length <= LIMITS.buttonLabel)).toBe(true);
  });

  it('continues a long table in further embeds under its header, losing no row', () => {
    const rows = Array.from({ length: 300 }, (_, i) => [`Row ${i}`, 'x'.repeat(30)]);
    const messages = render({ text: 'The list:', blocks: [{ type: 'table', columns: ['Name', 'Value'], rows }] });
    expectWithinLimits(messages);
    const tables = messages.flatMap((m) => m.embeds).map((e) => e.description ?? '');
    expect(tables.length).toBeGreaterThan(2);
    expect(tables.every((d) => d.startsWith('```\nName') && d.endsWith('\n```'))).toBe(true);
    const shown = tables.flatMap((d) =>
      d
        .split('\n')
        .filter((l) => l.startsWith('Row '))
        .map((l) => l.split(' ')[1]),
    );
    expect(shown).toEqual(rows.map((_, i) => String(i)));
    expect(messages.at(-1)!.content).not.toContain(SHORTENED_NOTE);
  });

  it('keeps each embed and each message under 6,000 characters, and shortens fields visibly', () => {
    const cards = Array.from({ length: 3 }, (_, i) => ({
      title: `Card ${i} ${'t'.repeat(300)}`,
      body: 'b'.repeat(5_000),
      fields: Array.from({ length: 30 }, (_, j) => ({ label: `L${j}${'l'.repeat(300)}`, value: 'v'.repeat(2_000) })),
    }));
    const messages = render({ text: '', blocks: [{ type: 'cards', cards }] });
    expectWithinLimits(messages);
    const embeds = messages.flatMap((m) => m.embeds);
    expect(embeds[0]!.title!.length).toBe(LIMITS.embedTitle);
    expect(embeds[0]!.title!.endsWith('…')).toBe(true);
    expect(embeds.flatMap((e) => e.fields ?? []).every((f) => f.name.length <= 256 && f.value.length <= 1_024)).toBe(
      true,
    );
    expect(messages.at(-1)!.content).toContain(SHORTENED_NOTE);
  });

  it('never sends an empty message', () => {
    expect(render({ text: '', blocks: [] })).toEqual([{ content: EMPTY_REPLY, embeds: [], components: [], files: [] }]);
  });

  it('renders progress as the text so far plus a status line, within 2,000 characters', () => {
    expect(renderProgress('', '⏳ Thinking…')).toBe('-# ⏳ Thinking…');
    expect(renderProgress('Partial answer', '✓ 3 results')).toBe('Partial answer\n-# ✓ 3 results');
    const long = renderProgress('x'.repeat(5_000), '⏳ Working…');
    expect(long.length).toBeLessThanOrEqual(LIMITS.content);
    expect(long.endsWith('…\n-# ⏳ Working…')).toBe(true);
  });
});

describe('button custom_ids', () => {
  it('carries short actions inline and long or repeated ones through the kv store', async () => {
    const kv = createMemoryKv();
    const store = createActionStore(kv, 60_000);
    const long = 'Compare these campaigns with the ones from last quarter, broken down by channel and by offer, please';
    const buttons = [
      { actionId: 'campaigns.more', label: 'More' },
      { actionId: 'suggest', label: 'Short', value: 'Why | how?' },
      { actionId: 'suggest', label: 'Long', value: long },
      { actionId: 'suggest', label: 'Again', value: 'Why | how?' },
    ];
    const encoded = await store.encode(buttons);
    expect(encoded.slice(0, 2)).toEqual(['campaigns.more', 'suggest|Why | how?']);
    expect(encoded[2]).toMatch(/^~[\w-]{12}$/);
    expect(encoded[3]).toMatch(/^~/); // a duplicate custom_id would be refused by Discord
    expect(new Set(encoded).size).toBe(4);
    expect(encoded.every((id) => id.length <= LIMITS.customId)).toBe(true);
    expect(await Promise.all(encoded.map((id) => store.decode(id)))).toEqual([
      { id: 'campaigns.more' },
      { id: 'suggest', value: 'Why | how?' },
      { id: 'suggest', value: long },
      { id: 'suggest', value: 'Why | how?' },
    ]);
    expect(await store.decode('~unknownref00')).toBeUndefined();
    await kv.close();
  });
});
