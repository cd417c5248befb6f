import { DELIVERED_MARK } from '../../inbox/inbox.js';

/**
 * What a Slack turn records in its inbox entry as it goes, so a replay on any replica knows what
 * an earlier run already did. One marker a string in the entry; this module is the only place
 * that knows their spelling (kept as it always was, so entries recorded by an older build replay).
 *
 *   post:<ts>               a message we posted in the thread (edited, not re-posted, by a replay)
 *   stream:<ts>             a message we streamed (stopped, then edited, by a replay)
 *   stream-intent:<secs>    a stream was about to start at this unix time: a stream carries no
 *                           metadata until stopped, so a run that dies between Slack starting it
 *                           and recording its ts leaves only this; a replay looks for our untagged
 *                           message from that moment on
 *   files                   the reply's files were uploaded
 *   root:<ts>               a slash command's visible root message (posted once)
 *   delivered               the whole answer is in Slack: a replay has nothing left to do
 */
export type ReplayMarker =
  | { kind: 'post'; ts: string }
  | { kind: 'stream'; ts: string }
  | { kind: 'stream-intent'; at: number }
  | { kind: 'files' }
  | { kind: 'root'; ts: string }
  | { kind: 'delivered' };

export function formatMarker(marker: ReplayMarker): string {
  switch (marker.kind) {
    case 'post':
    case 'stream':
    case 'root':
      return `${marker.kind}:${marker.ts}`;
    case 'stream-intent':
      return `stream-intent:${marker.at.toFixed(3)}`;
    case 'files':
    case 'delivered':
      return marker.kind;
  }
}

/** The marker a recorded string spells; undefined for anything else (another adapter's, or garbage). */
export function parseMarker(recorded: string): ReplayMarker | undefined {
  if (recorded === 'files' || recorded === DELIVERED_MARK) return { kind: recorded };
  const colon = recorded.indexOf(':');
  if (colon <= 0) return undefined;
  const kind = recorded.slice(0, colon);
  const value = recorded.slice(colon + 1);
  if (!value) return undefined;
  if (kind === 'post' || kind === 'stream' || kind === 'root') return { kind, ts: value };
  if (kind === 'stream-intent') {
    const at = Number(value);
    return Number.isFinite(at) ? { kind, at } : undefined;
  }
  return undefined;
}

export function parseMarkers(recorded: readonly string[]): ReplayMarker[] {
  return recorded.flatMap((r) => {
    const marker = parseMarker(r);
    return marker ? [marker] : [];
  });
}

/** The messages in the thread an earlier run recorded, in order: a replay edits these. */
export function earlierMessages(markers: readonly ReplayMarker[]): { ts: string; stream: boolean }[] {
  return markers.flatMap((m) =>
    m.kind === 'post' || m.kind === 'stream' ? [{ ts: m.ts, stream: m.kind === 'stream' }] : [],
  );
}

/** The first marker of a kind, typed. */
export function findMarker<K extends ReplayMarker['kind']>(
  markers: readonly ReplayMarker[],
  kind: K,
): Extract<ReplayMarker, { kind: K }> | undefined {
  return markers.find((m): m is Extract<ReplayMarker, { kind: K }> => m.kind === kind);
}
