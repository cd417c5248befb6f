import { describe, expect, it, vi } from 'vitest';
import type * as Unpdf from 'unpdf';
import { extractText } from '../../src/attachments/extract.js';
import { makePdf } from '../helpers/sample-files.js';

/**
 * The extraction timeout stops pdf.js's work, not only the wait for it (issue 42): pdf.js runs in
 * this thread, so a PDF still being read after its timeout would hold the CPU and the file's bytes.
 * unpdf is wrapped to see which pages were asked for and whether the document was destroyed; the
 * abort comes from inside that hook, so nothing here depends on timing.
 */
const hooks = vi.hoisted(() => ({
  onPage: (_n: number): void => {},
  pages: [] as number[],
  docs: [] as { loadingTask: { destroyed: boolean } }[],
}));

vi.mock('unpdf', async (importOriginal) => {
  const real = await importOriginal<typeof Unpdf>();
  return {
    ...real,
    getDocumentProxy: async (
      ...args: Parameters<typeof real.getDocumentProxy>
    ): ReturnType<typeof real.getDocumentProxy> => {
      const doc = await real.getDocumentProxy(...args);
      const getPage = doc.getPage.bind(doc);
      doc.getPage = (n: number) => {
        hooks.pages.push(n);
        hooks.onPage(n);
        return getPage(n);
      };
      hooks.docs.push(doc);
      return doc;
    },
  };
});

const PAGES = 40;
// A fresh file each time: pdf.js takes (detaches) the bytes it is given.
const pdf = () => makePdf(Array.from({ length: PAGES }, (_, i) => `Page ${i + 1} of the brief`));
const PDF = { kind: 'pdf' } as const;

describe('the extraction timeout stops the work', () => {
  it('a PDF aborted on its third page asks for no later page and is destroyed', async () => {
    hooks.pages.length = 0;
    hooks.docs.length = 0;
    const stop = new AbortController();
    hooks.onPage = (n) => {
      if (n === 3) stop.abort(new Error('extraction timeout'));
    };
    await expect(extractText(PDF, pdf(), 8_000, stop.signal)).rejects.toThrow('extraction timeout');
    expect(hooks.pages).toEqual([1, 2, 3]);
    expect(hooks.docs).toHaveLength(1);
    expect(hooks.docs[0]!.loadingTask.destroyed).toBe(true);
  });

  it('without an abort the same PDF is read to its last page (the hook changes nothing else)', async () => {
    hooks.pages.length = 0;
    hooks.onPage = () => {};
    const read = await extractText(PDF, pdf(), 8_000, new AbortController().signal);
    expect(hooks.pages).toHaveLength(PAGES);
    expect(read.text).toContain(`Page ${PAGES} of the brief`);
    expect(read.truncated).toBeUndefined();
  });

  it('an already aborted signal reads nothing: no PDF opened, no table parsed', async () => {
    hooks.docs.length = 0;
    const stop = new AbortController();
    stop.abort(new Error('too late'));
    await expect(extractText(PDF, pdf(), 8_000, stop.signal)).rejects.toThrow('too late');
    expect(hooks.docs).toHaveLength(0);
    const csv = new TextEncoder().encode('a,b\n1,2\n');
    await expect(extractText({ kind: 'table', delimiter: ',' }, csv, 8_000, stop.signal)).rejects.toThrow('too late');
  });
});
