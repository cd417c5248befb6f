/**
 * The live reply's throttling and failure paths, against a recording sink (the end-to-end
 * tests drive the same code through discord.js and the fake Discord).
 */
import type { Message, SendableChannels } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { CONTINUED, createLiveReply, LIVE_PIECE } from '../../../src/adapters/discord/live-reply.js';
import type { OutgoingMessage } from '../../../src/adapters/discord/render.js';
import {
  INTERACTION_WINDOW_MS,
  interactionSink,
  type InteractionHook,
  type MessageRef,
  type ReplySink,
} from '../../../src/adapters/discord/sinks.js';
import { silentLogger } from '../../../src/telemetry/logger.js';

interface Write {
  op: 'open' | 'send' | 'edit' | 'fail' | 'notice';
  content: string;
  at: number;
}

function recordingSink(opts: { failEdits?: boolean } = {}): { sink: ReplySink; writes: Write[] } {
  const writes: Write[] = [];
  let n = 0;
  const log = (op: Write['op'], content: string) => writes.push({ op, content, at: performance.now() });
  const ref = (): MessageRef => ({ id: `m${++n}`, messageId: `m${n}` });
  return {
    writes,
    sink: {
      open: async (m) => (log('open', m.content), ref()),
      send: async (m) => (log('send', m.content), ref()),
      async edit(_ref, m) {
        log('edit', m.content);
        if (opts.failEdits) throw Object.assign(new Error('Missing Access'), { code: 50001 });
      },
      fail: async (text, live) => void log('fail', `${live?.id ?? '-'} ${text}`),
      notice: async (text) => void log('notice', text),
    },
  };
}

const msg = (content: string): OutgoingMessage => ({ content, embeds: [], components: [], files: [] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const INTERVAL = 120;

describe('live reply', () => {
  it('posts at once, then coalesces updates into at most one edit per interval, and finishes after the interval', async () => {
    const { sink, writes } = recordingSink();
    const live = createLiveReply(sink, { minIntervalMs: INTERVAL, log: silentLogger() });
    live.update({ status: '⏳ Thinking…' });
    await sleep(5);
    for (let i = 1; i <= 20; i++) {
      live.update({ text: `word `.repeat(i).trim() });
      await sleep(15);
    }
    const refs = await live.finish([msg('Final answer.'), msg('Continued.')]);
    expect(writes[0]).toMatchObject({ op: 'open', content: '-# ⏳ Thinking…' });
    expect(writes.slice(-2).map((w) => [w.op, w.content])).toEqual([
      ['edit', 'Final answer.'],
      ['send', 'Continued.'],
    ]);
    const edits = writes.filter((w) => w.op !== 'send');
    // 20 updates were coalesced, and writes kept the interval (timers may fire a ms early).
    expect(edits.length).toBeLessThan(20);
    for (let i = 1; i < edits.length; i++) expect(edits[i]!.at - edits[i - 1]!.at).toBeGreaterThanOrEqual(INTERVAL - 2);
    expect(refs.map((r) => r.id)).toEqual(['m1', 'm2']);
  });

  it('shows an error in place of the progress, or after an answer that was posted', async () => {
    const before = recordingSink();
    const quiet = createLiveReply(before.sink, { minIntervalMs: INTERVAL, log: silentLogger() });
    await quiet.fail('No luck.');
    expect(before.writes.map((w) => [w.op, w.content])).toEqual([['fail', '- No luck.']]);

    const during = recordingSink();
    const working = createLiveReply(during.sink, { minIntervalMs: INTERVAL, log: silentLogger() });
    working.update({ status: '⏳ Thinking…' });
    await sleep(5);
    await working.fail('Model down.');
    expect(during.writes.map((w) => [w.op, w.content])).toEqual([
      ['open', '-# ⏳ Thinking…'],
      ['fail', 'm1 Model down.'],
    ]);

    const after = recordingSink();
    const answered = createLiveReply(after.sink, { minIntervalMs: INTERVAL, log: silentLogger() });
    await answered.finish([msg('Answer.')]);
    await answered.fail('Could not post part two.');
    expect(after.writes.map((w) => w.op)).toEqual(['open', 'notice']);
  });

  it('seals a full live message and goes on in a new one, one write per interval; the final reply continues it', async () => {
    const { sink, writes } = recordingSink();
    const live = createLiveReply(sink, { minIntervalMs: 30, log: silentLogger() });
    const text = Array.from({ length: 800 }, (_, i) => `w${i}`).join(' ');
    expect(text.length).toBeGreaterThan(2 * LIVE_PIECE);
    live.update({ text });
    while (writes.length < 3) await sleep(10);
    let head: string | undefined;
    const refs = await live.finish((sealed) => {
      head = sealed;
      return { messages: [msg(text.slice(sealed!.length).trim())], continuing: true };
    });
    expect(head && text.startsWith(head)).toBe(true);
    expect(writes.map((w) => w.op)).toEqual(['open', 'send', 'send', 'edit']);
    for (const w of writes) expect(w.content.length).toBeLessThanOrEqual(2_000);
    for (const w of writes.slice(1)) expect(w.content.startsWith(`${CONTINUED}\n`)).toBe(true);
    // The words, in order, once each: the sealed pieces and the final message.
    const shown = [writes[0]!, writes[1]!, writes[3]!].map((w) => w.content.replace(`${CONTINUED}\n`, '')).join(' ');
    expect(shown.split(/\s+/)).toEqual(text.split(' '));
    for (let i = 1; i < writes.length; i++) expect(writes[i]!.at - writes[i - 1]!.at).toBeGreaterThanOrEqual(28);
    expect(refs.map((r) => r.id)).toEqual(['m1', 'm2', 'm3']);
  });

  it('replaces every live message with the final ones when the text started again (a new step)', async () => {
    const { sink, writes } = recordingSink();
    const removed: string[] = [];
    sink.remove = async (ref) => void removed.push(ref.id);
    const live = createLiveReply(sink, { minIntervalMs: 20, log: silentLogger() });
    live.update({ text: 'x '.repeat(1_000) });
    while (writes.length < 2) await sleep(5);
    live.update({ text: 'The answer.' });
    const refs = await live.finish((sealed) => {
      expect(sealed).toBeUndefined();
      return { messages: [msg('The answer.')], continuing: false };
    });
    expect(writes.at(-1)).toMatchObject({ op: 'edit', content: 'The answer.' });
    expect(refs).toHaveLength(1);
    expect(removed.length).toBeGreaterThan(0);
  });

  it('skips progress edits Discord refuses and still attempts the final one', async () => {
    const { sink, writes } = recordingSink({ failEdits: true });
    const live = createLiveReply(sink, { minIntervalMs: 30, log: silentLogger() });
    live.update({ status: '⏳ One' });
    await sleep(5);
    live.update({ status: '⏳ Two' });
    await sleep(60);
    await expect(live.finish([msg('Final.')])).rejects.toThrow('Missing Access');
    expect(writes.map((w) => w.op)).toEqual(['open', 'edit', 'edit']);
  });
});

describe('interaction sink', () => {
  it('moves to the channel when the 15-minute interaction token is about to expire', async () => {
    const sent: string[] = [];
    const edited: string[] = [];
    let clock = 0;
    const channel = {
      isSendable: () => true,
      send: async (o: { content: string }) => (
        sent.push(o.content),
        { id: `c${sent.length}`, edit: async (e: { content: string }) => void edited.push(e.content) }
      ),
    } as unknown as SendableChannels;
    const webhook: InteractionHook = {
      send: async () => {
        throw new Error('no follow-ups expected');
      },
      editMessage: async (_id: unknown, o: unknown) =>
        (edited.push(`webhook: ${(o as { content: string }).content}`), { id: 'orig' }) as unknown as Message,
      deleteMessage: async () => undefined,
    };
    const sink = interactionSink({
      webhook,
      ownsOriginal: true,
      channel: async () => channel,
      interactionId: '1',
      receivedAt: 0,
      now: () => clock,
      log: silentLogger(),
      embedDomains: [],
    });
    const live = await sink.open(msg('Thinking…'));
    expect(live).toEqual({ id: '@original', messageId: 'orig' });
    clock = INTERACTION_WINDOW_MS + 1;
    await sink.edit(live, msg('Still working…')); // the deferred reply cannot be edited any more: replaced in the channel
    await sink.edit(live, msg('Final answer.'));
    await sink.notice('Late warning.');
    expect(sent).toEqual(['Still working…', '⚠️ Late warning.']);
    expect(edited).toEqual(['webhook: Thinking…', 'Final answer.']);
  });
});
