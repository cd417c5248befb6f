import { describe, expect, it } from 'vitest';
import {
  earlierMessages,
  findMarker,
  formatMarker,
  parseMarker,
  parseMarkers,
  type ReplayMarker,
} from '../../../src/adapters/slack/replay-marker.js';

describe('Slack replay markers', () => {
  const all: ReplayMarker[] = [
    { kind: 'root', ts: '1700000000.000100' },
    { kind: 'stream-intent', at: 1700000001.25 },
    { kind: 'stream', ts: '1700000001.000200' },
    { kind: 'post', ts: '1700000002.000300' },
    { kind: 'files' },
    { kind: 'delivered' },
  ];

  it('keeps the spelling entries recorded by earlier builds carry, so they still replay', () => {
    expect(all.map(formatMarker)).toEqual([
      'root:1700000000.000100',
      'stream-intent:1700000001.250',
      'stream:1700000001.000200',
      'post:1700000002.000300',
      'files',
      'delivered',
    ]);
  });

  it('parses what it formats', () => {
    expect(parseMarkers(all.map(formatMarker))).toEqual(all);
  });

  it("ignores what is not a Slack marker (another adapter's, an empty value, a bad time)", () => {
    for (const other of ['msg:123', 'thread:9', 'post:', 'stream-intent:soon', '', ':x', 'filesx']) {
      expect(parseMarker(other), other).toBeUndefined();
    }
  });

  it('lists the messages an earlier run left, in order, and finds a marker by kind', () => {
    expect(earlierMessages(all)).toEqual([
      { ts: '1700000001.000200', stream: true },
      { ts: '1700000002.000300', stream: false },
    ]);
    expect(findMarker(all, 'stream-intent')?.at).toBe(1700000001.25);
    expect(findMarker([], 'delivered')).toBeUndefined();
  });
});
