/**
 * `conversations.replies` as Slack serves it: the parent message first, then its replies oldest
 * first, within `oldest`/`latest` (`inclusive` or not), `limit` a page (Slack's default 1000 when
 * absent), `cursor` to the next page (`has_more`, `response_metadata.next_cursor`).
 */
import type { FakeMessage } from './web-api.js';

export function repliesPage(all: readonly FakeMessage[], a: Record<string, unknown>): Record<string, unknown> {
  const channel = String(a.channel ?? '');
  const ts = String(a.ts ?? '');
  const thread = all
    .filter((m) => m.channel === channel && (m.ts === ts || m.thread_ts === ts))
    .sort((x, y) => cmp(x.ts, y.ts));
  const parent = thread.find((m) => m.ts === ts);
  // (Slack answers `thread_not_found` for an unknown thread; the fake knows only what was posted through it,
  // and a test's root message often was not, so an empty thread is answered as one.)
  const inclusive = a.inclusive === true || a.inclusive === 'true' || a.inclusive === '1';
  const oldest = typeof a.oldest === 'string' ? a.oldest : undefined;
  const latest = typeof a.latest === 'string' ? a.latest : undefined;
  const within = (m: FakeMessage) =>
    (!oldest || (inclusive ? cmp(m.ts, oldest) >= 0 : cmp(m.ts, oldest) > 0)) &&
    (!latest || (inclusive ? cmp(m.ts, latest) <= 0 : cmp(m.ts, latest) < 0));
  const replies = thread.filter((m) => m !== parent && within(m));
  const list = parent ? [parent, ...replies] : replies;
  const limit = Math.max(1, Math.min(1000, Number(a.limit ?? 1000) || 1000));
  const start = typeof a.cursor === 'string' && a.cursor ? Number(a.cursor.replace('page:', '')) : 0;
  const page = list.slice(start, start + limit);
  const next = start + limit < list.length ? `page:${start + limit}` : '';
  return {
    ok: true,
    messages: page.map(wire),
    has_more: next !== '',
    response_metadata: { next_cursor: next },
  };
}

/** A stored message as the Web API returns it (no empty `bot_id` on a person's message). */
function wire(m: FakeMessage): Record<string, unknown> {
  return {
    type: 'message',
    ...(m.subtype ? { subtype: m.subtype } : {}),
    ...(m.user ? { user: m.user } : {}),
    ...(m.bot_id ? { bot_id: m.bot_id } : {}),
    ...(m.bot_profile ? { bot_profile: m.bot_profile } : {}),
    ts: m.ts,
    thread_ts: m.thread_ts,
    text: m.text,
    blocks: m.blocks,
    metadata: m.metadata,
    ...(m.files ? { files: m.files } : {}),
    ...(m.edited ? { edited: m.edited } : {}),
  };
}

function cmp(a: string, b: string): number {
  const [as, au = '0'] = a.split('.');
  const [bs, bu = '0'] = b.split('.');
  return Number(as) - Number(bs) || Number(au.padEnd(6, '0')) - Number(bu.padEnd(6, '0'));
}
