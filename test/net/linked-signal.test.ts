import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { linkedSignal } from '../../src/net/linked-signal.js';

describe('linkedSignal', () => {
  it('aborts with the reason of whichever parent aborts first', () => {
    const a = new AbortController();
    const b = new AbortController();
    const link = linkedSignal([a.signal, undefined, b.signal]);
    b.abort(new Error('lease lost'));
    a.abort(new Error('later'));
    expect(link.signal.aborted).toBe(true);
    expect((link.signal.reason as Error).message).toBe('lease lost');
  });

  it('starts aborted when a parent already is', () => {
    const link = linkedSignal([AbortSignal.abort('gone')]);
    expect(link.signal.reason).toBe('gone');
  });

  it('times out with a TimeoutError, as AbortSignal.timeout does, so a turn timeout can be told from other aborts', async () => {
    const link = linkedSignal([new AbortController().signal], 10);
    await sleep(40);
    expect(link.signal.reason).toBeInstanceOf(DOMException);
    expect((link.signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it('after dispose, neither a parent nor the clock reaches it', async () => {
    const parent = new AbortController();
    const link = linkedSignal([parent.signal], 10);
    link.dispose();
    parent.abort();
    await sleep(40);
    expect(link.signal.aborted).toBe(false);
  });

  it('hangs any number of children off one parent without a listener each (no MaxListeners warning), and reaches only the live ones', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const parent = new AbortController();
      const links = Array.from({ length: 50 }, () => linkedSignal([parent.signal]));
      for (const link of links.slice(0, 10)) link.dispose();
      parent.abort(new Error('shutting down'));
      await sleep(10);
      expect(links.slice(0, 10).every((l) => !l.signal.aborted)).toBe(true);
      expect(links.slice(10).every((l) => (l.signal.reason as Error).message === 'shutting down')).toBe(true);
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });
});
