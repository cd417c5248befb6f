/**
 * Issue 43 on the console (the terminal adapter), through the real app on PGlite: a `write` call
 * waits, the console asks "Approve? (y/n)", `y` runs it once and the turn goes on, `n` tells the
 * model the person declined. Two write calls of one step are one message; `y` approves both
 * ("Approve all").
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTerminalSession } from '../../src/adapters/terminal/session.js';
import type { AdminDataPort } from '../../src/data/index.js';
import { openPgliteTestPort } from '../helpers/db.js';
import { sentMessages, startHarness, type Harness } from '../helpers/harness.js';
import { createNoteTool } from '../helpers/note-tool.js';

const { tool: noteTool, written } = createNoteTool();

let port: AdminDataPort;
let h: Harness;
beforeAll(async () => {
  port = await openPgliteTestPort();
  h = await startHarness({ data: port, tools: [noteTool] });
});
afterAll(async () => {
  await h?.close();
  await port?.close();
});
beforeEach(() => {
  written.length = 0;
  h.llm.reset();
});

function session() {
  let out = '';
  const s = createTerminalSession(h.sb.agent, { write: (t) => (out += t) }, { filesDir: '.data/test-files' });
  return { send: s.send, out: () => out, clear: () => (out = '') };
}

describe('approvals on the console', () => {
  it('asks y/n; y runs the call once and the answer follows', async () => {
    const c = session();
    h.llm.script({ toolCalls: [{ name: 'write_note', arguments: { text: 'buy milk' } }] }, { text: 'Noted it.' });
    await c.send('note: buy milk');
    expect(c.out()).toContain('I need an OK before I go on');
    expect(c.out()).toContain('Writing a note (write_note): text: buy milk');
    expect(c.out()).toContain('Approve? (y/n)');
    expect(written).toEqual([]);
    c.clear();
    await c.send('y');
    expect(written).toEqual(['buy milk']);
    expect(c.out()).toContain('Noted it.');
    // `y` again is an ordinary message now: nothing waits.
    h.llm.script({ text: 'Yes?' });
    await c.send('y');
    expect(written).toEqual(['buy milk']);
  });

  it('n: the model is told the person declined', async () => {
    const c = session();
    h.llm.script({ toolCalls: [{ name: 'write_note', arguments: { text: 'x' } }] }, { text: 'OK, I left it.' });
    await c.send('note x');
    await c.send('n');
    expect(written).toEqual([]);
    expect(c.out()).toContain('OK, I left it.');
    const last = h.llm.requestsTo('/chat/completions').at(-1)!;
    expect(JSON.stringify(sentMessages(last.body))).toContain('the person declined this call');
  });

  it('two calls of one step are one approval message; y approves both', async () => {
    const c = session();
    h.llm.script(
      {
        toolCalls: [
          { name: 'write_note', arguments: { text: 'one' } },
          { name: 'write_note', arguments: { text: 'two' } },
        ],
      },
      { text: 'Both written.' },
    );
    await c.send('two notes');
    expect(c.out()).toMatch(/Approve write_note.*Deny write_note.*Approve all/s);
    await c.send('y');
    expect(written.sort()).toEqual(['one', 'two']);
    expect(c.out()).toContain('Both written.');
  });

  it('nobody answers y/n in time: the prompt gives up, the call expires and the model is told', async () => {
    let out = '';
    const fires: { fire: () => Promise<void>; ms: number }[] = [];
    const c = createTerminalSession(
      h.sb.agent,
      { write: (t) => (out += t) },
      {
        filesDir: '.data/test-files',
        approvalTimeoutMs: 900_000,
        // The give-up timer, fired by the test once the approval is past its time.
        schedule: (fire, ms) => (fires.push({ fire, ms }), () => {}),
      },
    );
    h.llm.script(
      { toolCalls: [{ name: 'write_note', arguments: { text: 'late' } }] },
      { text: 'No one approved it in time, so I left it.' },
    );
    await c.send('note: late');
    expect(out).toContain('Approve? (y/n)');
    expect(fires.map((f) => f.ms)).toEqual([900_000]);
    await port.transport.sql!.query(
      "update public.tool_approvals set expires_at = now() - interval '1 second' where state = 'pending'",
    );
    await fires[0]!.fire();
    expect(out).toContain('⌛ No answer in time: the approval expired.');
    expect(out).toContain('No one approved it in time, so I left it.');
    expect(written).toEqual([]);
    const last = h.llm.requestsTo('/chat/completions').at(-1)!;
    expect(JSON.stringify(sentMessages(last.body))).toContain('no one approved this call in time');
    // `y` now is an ordinary message: nothing waits.
    h.llm.script({ text: 'Yes?' });
    await c.send('y');
    expect(written).toEqual([]);
  });
});
