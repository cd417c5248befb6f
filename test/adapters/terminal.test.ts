import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTerminalSession } from '../../src/adapters/terminal/session.js';
import { PLAIN_STYLE, TTY_STYLE } from '../../src/adapters/terminal/terminal-markdown.js';
import { defineTool } from '../../src/contract/tool.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { testTools } from '../helpers/test-tools.js';

const fileTool = defineTool({
  name: 'make_file',
  title: 'Making a file',
  description: 'Produces a small file.',
  input: z.object({}),
  async run() {
    return {
      content: 'File delivered.',
      blocks: [
        {
          type: 'file',
          file: {
            name: 'note.txt',
            mime: 'text/plain',
            data: new TextEncoder().encode('hello file'),
            preview: 'hello…',
          },
        },
        { type: 'buttons', buttons: [{ actionId: 'suggest.0', label: 'Tell me more', value: 'Tell me more' }] },
      ],
    };
  },
});

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ tools: [...testTools, fileTool] });
});
afterAll(() => h.close());

describe('console adapter', () => {
  it('shows tool progress, streams the answer, renders blocks, saves files and presses buttons', async () => {
    const filesDir = await mkdtemp(join(tmpdir(), 'sb-console-'));
    let out = '';
    const session = createTerminalSession(h.sb.agent, { write: (t) => (out += t) }, { filesDir });
    h.llm.script(
      {
        toolCalls: [
          { name: 'get_weather', arguments: { city: 'Oslo' } },
          { name: 'make_file', arguments: {} },
        ],
      },
      { text: 'Here you go.' },
    );
    await session.send('weather and a file please');
    expect(out).toContain('⏳ Checking the weather');
    expect(out).toContain('✓ get_weather: Oslo: 18°C, light rain');
    expect(out).toContain('Here you go.');
    expect(out).toContain('City: Oslo');
    expect(out).toContain('[1] Tell me more');
    const saved = /saved to (\S+)/.exec(out)?.[1];
    expect(saved).toBeDefined();
    expect(await readFile(saved!, 'utf8')).toBe('hello file');

    h.llm.script({ text: 'More details.' });
    out = '';
    await session.send(':1');
    expect(out).toContain('More details.');
    const last = h.llm.lastRequest('/chat/completions')!.body.messages as { role: string; content: string }[];
    expect(last.at(-1)).toEqual({ role: 'user', content: 'Tell me more' });

    out = '';
    await session.send(':9');
    expect(out).toMatch(/No button 9/);
  });

  it('puts a blank line between the streamed answer and its cards, and shows search highlights without raw asterisks', async () => {
    const highlighted = defineTool({
      name: 'find_campaign',
      title: 'Searching',
      description: 'Finds a campaign.',
      input: z.object({}),
      async run() {
        return {
          content: 'Found one.',
          blocks: [
            {
              type: 'cards',
              cards: [{ title: 'Autumn promo', fields: [], body: 'A **cash-back** offer for **autumn**.' }],
            },
          ],
        };
      },
    });
    const local = await startHarness({ tools: [highlighted], llm: h.llm });
    try {
      let out = '';
      const session = createTerminalSession(local.sb.agent, { write: (t) => (out += t) }, { filesDir: tmpdir() });
      h.llm.script({ toolCalls: [{ name: 'find_campaign', arguments: {} }] }, { text: 'One campaign matches.' });
      await session.send('cash-back campaigns?');
      expect(out).toMatch(/One campaign matches\.\n\n/);
      expect(out).toContain('A cash-back offer for autumn.');
      expect(out).not.toContain('**');
    } finally {
      await local.close();
    }
  });

  it('renders the model’s Markdown for a terminal as it streams, line by line, with status lines on their own', async () => {
    const answer =
      '## Plan\n**Bold** and _quiet_ words, see [the docs](https://docs.example/a) or ![chart](https://img.example/c.png).\n' +
      '- first\n- second\n```\nconst a = b * c * d; // *not italic*\n```\nDone.';
    h.llm.script({ text: answer });
    let tty = '';
    const session = createTerminalSession(
      h.sb.agent,
      { write: (t) => (tty += t) },
      { filesDir: tmpdir(), style: TTY_STYLE },
    );
    await session.send('plan please');
    expect(tty).toContain('\x1b[1mPlan\x1b[22m\n');
    expect(tty).toContain('\x1b[1mBold\x1b[22m and \x1b[3mquiet\x1b[23m words');
    expect(tty).toContain('the docs (https://docs.example/a) or chart (https://img.example/c.png).');
    expect(tty).toContain('• first\n• second\n');
    expect(tty).toContain('\x1b[36m  const a = b * c * d; // *not italic*\x1b[39m');
    expect(tty).not.toMatch(/\*\*|\]\(|```/);

    h.llm.script({ text: answer });
    let plain = '';
    const piped = createTerminalSession(
      h.sb.agent,
      { write: (t) => (plain += t) },
      { filesDir: tmpdir(), style: PLAIN_STYLE },
    );
    await piped.send('plan please');
    expect(plain).not.toContain('\x1b[');
    expect(plain).toContain('Bold and quiet words, see the docs (https://docs.example/a)');
  });

  it('never runs a tool line into streamed text, and ends the turn on a new line', async () => {
    h.llm.script(
      { text: 'Checking the weather first.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { text: 'It is 18°C in Oslo.' },
    );
    let out = '';
    const session = createTerminalSession(h.sb.agent, { write: (t) => (out += t) }, { filesDir: tmpdir() });
    await session.send('weather?');
    expect(out).toMatch(/Checking the weather first\.\n {2}⏳ Checking the weather\n/);
    expect(out.endsWith('\n')).toBe(true);
  });
});
