import { describe, expect, it } from 'vitest';
import { normalizeAction } from '../../../src/adapters/slack/normalize.js';
import { CONTINUED_NOTE, renderReply, SHORTENED_NOTE, type SlackMessage } from '../../../src/adapters/slack/render.js';
import { slackToPlain, toMrkdwn } from '../../../src/adapters/slack/text.js';
import { splitText } from '../../../src/reply/text.js';
import type { Block, Reply } from '../../../src/reply/model.js';
import { blockKitProblems } from '../../fakes/slack/block-kit.js';

const reply = (blocks: Block[], text = ''): Reply => ({ text, blocks });
const json = (m: SlackMessage) => JSON.stringify(m.blocks);

function expectValid(messages: SlackMessage[], firstExtraMarkdown = 0) {
  messages.forEach((m, i) =>
    expect(blockKitProblems(m.blocks, i === 0 ? firstExtraMarkdown : 0), `message ${i}`).toEqual([]),
  );
}

describe('Block Kit rendering', () => {
  it('has a validator that catches what Slack refuses', () => {
    expect(blockKitProblems([{ type: 'section' }]).length).toBeGreaterThan(0);
    expect(
      blockKitProblems([{ type: 'header', text: { type: 'plain_text', text: 'x'.repeat(151) } }]).length,
    ).toBeGreaterThan(0);
    expect(
      blockKitProblems([
        { type: 'table', rows: [[{ type: 'raw_text', text: 'a' }]] },
        { type: 'table', rows: [[{ type: 'raw_text', text: 'b' }]] },
      ]),
    ).toEqual(['2 tables (max 1 per message)']);
  });

  it('renders every neutral block as schema-valid Block Kit', () => {
    const { messages, files, shortened } = renderReply(
      reply(
        [
          { type: 'header', text: 'Campaigns this week' },
          { type: 'markdown', text: 'Some **notes** from a tool.' },
          {
            type: 'fields',
            fields: [
              { label: 'Spend', value: '€1,200' },
              { label: 'Clicks', value: '3 400' },
            ],
          },
          {
            type: 'cards',
            cards: [
              {
                title: 'Spring sale',
                subtitle: 'Acme',
                fields: [{ label: 'CTR', value: '2.1%' }],
                body: 'A [link](https://example.com) & more',
              },
              { title: 'Second', fields: [] },
            ],
          },
          {
            type: 'table',
            columns: ['Name', 'Value'],
            rows: [
              ['a', '1'],
              ['b', ''],
            ],
            caption: 'Totals',
          },
          {
            type: 'buttons',
            buttons: [
              { actionId: 'campaigns.more', label: 'Show more', value: 'page:2' },
              { actionId: 'suggest.1', label: 'Compare', style: 'primary' },
            ],
          },
          { type: 'citations', sources: [{ title: 'Example | site', url: 'https://example.com/a' }] },
          { type: 'context', items: ['Data from _today_'] },
          { type: 'file', file: { name: 'q.pdf', mime: 'application/pdf', data: new Uint8Array([1, 2, 3]) } },
        ],
        'Here is the **summary**.',
      ),
    );
    expect(messages).toHaveLength(1);
    expectValid(messages);
    expect(shortened).toBe(false);
    expect(files.map((f) => f.name)).toEqual(['q.pdf']);
    const [m] = messages;
    expect(m!.text).toBe('Here is the *summary*.');
    expect(m!.blocks[0]).toEqual({ type: 'markdown', text: 'Here is the **summary**.' });
    expect(json(m!)).toContain('<https://example.com|link> &amp; more');
    expect(json(m!)).toContain('"type":"table"');
    expect(json(m!)).toContain('"action_id":"campaigns.more"');
    expect(json(m!)).not.toContain(SHORTENED_NOTE);
  });

  it('splits over-long replies into continuation messages within every limit', () => {
    const cards = Array.from({ length: 60 }, (_, i) => ({
      title: `Card ${i}`,
      fields: [{ label: 'n', value: String(i) }],
      body: 'x'.repeat(100),
    }));
    const { messages } = renderReply(
      reply(
        [
          { type: 'cards', cards },
          { type: 'markdown', text: 'word '.repeat(6_000) },
        ],
        'intro',
      ),
    );
    expect(messages.length).toBeGreaterThan(3);
    expectValid(messages);
    for (const m of messages.slice(0, -1)) expect(json(m)).toContain(CONTINUED_NOTE);
    expect(json(messages.at(-1)!)).not.toContain(CONTINUED_NOTE);
    expect(messages.slice(1).every((m) => m.text === '(continued)')).toBe(true);
    // Nothing lost: every card title appears once.
    const all = messages.map(json).join('');
    for (let i = 0; i < 60; i++) expect(all).toContain(`*Card ${i}*`);
  });

  it('keeps one table per message and shows a note when columns are cut', () => {
    const columns = Array.from({ length: 25 }, (_, i) => `c${i}`);
    const rows = Array.from({ length: 150 }, (_, r) => columns.map((_, c) => `${r}:${c}`));
    const { messages, shortened } = renderReply(
      reply([
        { type: 'table', columns, rows, caption: 'Big' },
        { type: 'table', columns: ['a'], rows: [['1']] },
      ]),
    );
    expect(shortened).toBe(true);
    expect(messages).toHaveLength(3);
    expectValid(messages);
    expect(json(messages[0]!)).toContain(SHORTENED_NOTE);
    expect(json(messages[0]!)).toContain('rows 1–99 of 150');
  });

  it('truncates what cannot be split (header, field, button label) and says so', () => {
    const { messages, shortened } = renderReply(
      reply([
        { type: 'header', text: 'H'.repeat(200) },
        {
          type: 'fields',
          fields: Array.from({ length: 23 }, (_, i) => ({ label: `f${i}`, value: i === 0 ? 'v'.repeat(2_500) : 'ok' })),
        },
        {
          type: 'buttons',
          buttons: [
            { actionId: 'a.long', label: 'L'.repeat(90) },
            { actionId: 'a.big', label: 'Big', value: 'x'.repeat(2_001) },
          ],
        },
      ]),
    );
    expect(shortened).toBe(true);
    expectValid(messages);
    const blocks = messages[0]!.blocks;
    expect(blocks.filter((b) => b.type === 'section')).toHaveLength(3);
    expect(json(messages[0]!)).toContain(SHORTENED_NOTE);
    expect(json(messages[0]!)).not.toContain('a.big');
  });

  it('makes repeated action ids unique in a message, and a click maps back to the original id', () => {
    const { messages } = renderReply(
      reply([
        {
          type: 'buttons',
          buttons: [1, 2, 3].map((i) => ({ actionId: 'suggest.pick', label: `Option ${i}`, value: `v${i}` })),
        },
      ]),
    );
    expectValid(messages);
    const ids = (messages[0]!.blocks[0] as { elements: { action_id: string }[] }).elements.map((e) => e.action_id);
    expect(ids).toEqual(['suggest.pick', 'suggest.pick#2', 'suggest.pick#3']);
    const click = normalizeAction(
      {
        type: 'block_actions',
        user: { id: 'U1' },
        team: { id: 'T1' },
        channel: { id: 'C1' },
        message: { ts: '1.1', thread_ts: '1.0' },
        actions: [{ action_id: ids[2], value: 'v3', action_ts: '2.0' }],
      },
      {},
    );
    expect(click?.message).toMatchObject({
      threadId: '1.0',
      channelId: 'C1',
      workspaceId: 'T1',
      action: { id: 'suggest.pick', value: 'v3' },
    });
  });

  it('leaves room for streamed text: blocks after a full stream move to a continuation', () => {
    const { messages } = renderReply(reply([{ type: 'markdown', text: 'm'.repeat(2_000) }]), {
      omitText: true,
      firstMessageMarkdownUsed: 11_000,
    });
    expect(messages).toHaveLength(2);
    expect(messages[0]!.blocks).toEqual([{ type: 'context', elements: [{ type: 'mrkdwn', text: CONTINUED_NOTE }] }]);
    expectValid(messages, 11_000);
  });
});

describe('Slack text', () => {
  it('converts LLM markdown to mrkdwn', () => {
    const md = [
      '# Title',
      '**bold** and *it* and ~~gone~~',
      '- one',
      '* two',
      '> quoted <b>',
      'see [docs](https://x.test/a?b=1&c=2) or https://y.test',
      '```ts',
      'const a = 1 < 2 && **x**;',
      '```',
      'keep `a*b*c` and <@U123>',
    ].join('\n');
    expect(toMrkdwn(md)).toBe(
      [
        '*Title*',
        '*bold* and _it_ and ~gone~',
        '• one',
        '• two',
        '> quoted &lt;b&gt;',
        'see <https://x.test/a?b=1&c=2|docs> or <https://y.test>',
        '```',
        'const a = 1 < 2 && **x**;',
        '```',
        'keep `a*b*c` and <@U123>',
      ].join('\n'),
    );
  });

  it('reads Slack markup as plain text without the bot mention', () => {
    expect(slackToPlain('<@UBOT> see <#C1|general>, <https://a.test|the doc> &amp; <!here> <@U2>', 'UBOT')).toBe(
      'see #general, the doc (https://a.test) & @here <@U2>',
    );
  });

  it('splits text at boundaries and never leaves a code fence open', () => {
    const text = `intro\n\n\`\`\`\n${'line\n'.repeat(200)}\`\`\`\nafter`;
    const pieces = splitText(text, 300);
    expect(pieces.length).toBeGreaterThan(3);
    for (const p of pieces) {
      expect(p.length).toBeLessThanOrEqual(300);
      expect((p.match(/```/g)?.length ?? 0) % 2).toBe(0);
    }
  });
});
