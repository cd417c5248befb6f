import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTerminalSession } from '../../src/adapters/terminal/session.js';
import { sentMessages, startHarness, type Harness } from '../helpers/harness.js';
import { makeDocx } from '../helpers/sample-files.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('console: /attach <path>', () => {
  it('sends the file with the next message, read into fenced text', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sb-attach-'));
    const path = join(dir, 'plan.docx');
    await writeFile(path, makeDocx(['Launch plan', 'Ship on Monday.']));
    let out = '';
    const session = createTerminalSession(h.sb.agent, { write: (t) => (out += t) }, { filesDir: dir });
    await session.send(`/attach ${path}`);
    expect(out).toContain('📎 plan.docx goes with your next message.');
    await session.send('/attach /no/such/file.txt');
    expect(out).toContain('No file at /no/such/file.txt.');
    h.llm.script({ text: 'Monday it is.' });
    await session.send('When do we ship?');
    expect(out).toContain('Monday it is.');
    const user = sentMessages(h.llm.lastRequest('/chat/completions')!.body).at(-1)!;
    expect(user.content).toContain('When do we ship?');
    expect(user.content).toContain(
      '<attachment name="plan.docx" type="Word document">\nLaunch plan\n\nShip on Monday.\n</attachment>',
    );
    // Sent once: the next message goes without it.
    h.llm.script({ text: 'ok' });
    await session.send('thanks');
    expect(sentMessages(h.llm.lastRequest('/chat/completions')!.body).at(-1)!.content).toBe('thanks');
  });
});
