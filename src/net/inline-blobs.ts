import { randomUUID } from 'node:crypto';

/**
 * Large bytes that go inside a JSON request body as base64 (a shared image, as a data URL in
 * the chat request), without ever being one string. The body carries a short marker where the
 * base64 goes; the HTTP call (node-request.ts) writes the base64 in slices in its place. So a
 * message with eight 5 MB images holds their 40 MB of bytes, not 53 MB of base64 plus the
 * JSON.stringify of it (about three times that, bench/attachments.ts).
 *
 * The registry holds each blob weakly: it lives as long as whoever holds its bytes (the turn
 * that read the file), and its marker stops resolving once they are collected.
 */

const PREFIX = 'sb-blob-';
const MARKER = /sb-blob-[0-9a-f-]{36}/g;
const blobs = new Map<string, WeakRef<Uint8Array>>();
const forget = new FinalizationRegistry<string>((marker) => blobs.delete(marker));

/** A marker to put where `bytes`' base64 goes; valid while `bytes` is held. */
export function blobMarker(bytes: Uint8Array): string {
  const marker = `${PREFIX}${randomUUID()}`;
  blobs.set(marker, new WeakRef(bytes));
  forget.register(bytes, marker);
  return marker;
}

/** A body whose markers were resolved: its parts in order and its length in bytes. */
export interface ExpandedBody {
  length: number;
  /** Text parts and blobs (written as base64), in order. */
  parts: (string | Uint8Array)[];
}

/** The body split around its markers; undefined when it has none it can resolve (then it goes as is). */
export function expandBlobs(body: string): ExpandedBody | undefined {
  if (!body.includes(PREFIX)) return undefined;
  const parts: (string | Uint8Array)[] = [];
  let length = 0;
  let at = 0;
  let found = false;
  for (const match of body.matchAll(MARKER)) {
    const bytes = blobs.get(match[0])?.deref();
    if (!bytes) continue;
    found = true;
    const text = body.slice(at, match.index);
    parts.push(text, bytes);
    length += Buffer.byteLength(text) + Math.ceil(bytes.byteLength / 3) * 4;
    at = match.index + match[0].length;
  }
  if (!found) return undefined;
  const rest = body.slice(at);
  parts.push(rest);
  length += Buffer.byteLength(rest);
  return { length, parts };
}

/** Base64 of `bytes` in slices (3 MB of bytes each), so no slice's string is large. */
export function* base64Slices(bytes: Uint8Array, sliceBytes = 3 * 1024 * 1024): Generator<string> {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 0; at < buf.length; at += sliceBytes) yield buf.subarray(at, at + sliceBytes).toString('base64');
}
