import { open } from 'node:fs/promises';
import type { AttachmentFetcher, Platform } from '../contract/turn.js';
import { AttachmentProblem } from './problem.js';

/*
 * The fetchers behind `AttachmentFetcher` (src/contract/turn.ts): streamed, the download stops
 * as soon as it passes the byte cap, and the file is the only one whose bytes are held (the
 * caller reads files one by one). Each platform's fetcher reaches its own hosts only: a URL
 * elsewhere, or a redirect there, is refused before a byte is asked for.
 */
export type { AttachmentFetcher };

/** Slack's file host; Discord's CDN. (A configured API URL's host is added: a fake or a proxy.) */
export const PLATFORM_FILE_HOSTS: Partial<Record<Platform, readonly string[]>> = {
  slack: ['files.slack.com'],
  discord: ['cdn.discordapp.com', 'media.discordapp.net'],
};

const MAX_REDIRECTS = 3;

/** Files on `hosts` (names, any port) over HTTPS (or HTTP on a loopback host a test or proxy configured), with `headers` (a bot token). */
export function hostFetcher(hosts: readonly string[], headers: Record<string, string> = {}): AttachmentFetcher {
  const allowed = new Set(hosts.map((h) => h.toLowerCase()));
  const check = (raw: string): URL => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new AttachmentProblem('refused', 'its link is not a valid URL');
    }
    const secure = url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url.hostname));
    if (!secure || !allowed.has(url.hostname.toLowerCase()))
      throw new AttachmentProblem(
        'refused',
        `it is on ${url.host || 'an unknown host'}, not on the platform's own file host`,
      );
    return url;
  };
  return {
    async fetch(ref, limits) {
      if (ref.source.kind !== 'url') throw new AttachmentProblem('refused', 'it came without a link to fetch it from');
      let url = check(ref.source.url);
      for (let hop = 0; ; hop++) {
        const res = await fetch(url, { headers, redirect: 'manual', signal: limits.signal });
        if (res.status >= 300 && res.status < 400) {
          await res.body?.cancel();
          const location = res.headers.get('location');
          if (!location || hop >= MAX_REDIRECTS) throw new AttachmentProblem('download', 'it could not be downloaded');
          // The token goes to the platform's own hosts only: a redirect elsewhere is refused, not followed.
          url = check(new URL(location, url).toString());
          continue;
        }
        if (!res.ok || !res.body) {
          await res.body?.cancel();
          throw new AttachmentProblem('download', `it could not be downloaded (HTTP ${res.status})`);
        }
        const declared = Number(res.headers.get('content-length'));
        if (Number.isFinite(declared) && declared > limits.maxBytes) {
          await res.body.cancel();
          throw tooLarge(limits.maxBytes);
        }
        return readCapped(res.body, limits.maxBytes);
      }
    },
  };
}

/** Base64 bytes sent with the message (the HTTP API), decoded under the same cap. */
export const inlineFetcher: AttachmentFetcher = {
  async fetch(ref, limits) {
    if (ref.source.kind !== 'inline') throw new AttachmentProblem('refused', 'it came without its bytes');
    // Base64 is 4 characters for 3 bytes: a longer string is over the cap before it is decoded.
    if (Math.floor((ref.source.data.length * 3) / 4) > limits.maxBytes + 2) throw tooLarge(limits.maxBytes);
    const bytes = Buffer.from(ref.source.data, 'base64');
    if (bytes.length > limits.maxBytes) throw tooLarge(limits.maxBytes);
    return bytes;
  },
};

/** A local file named by the console's `/attach <path>` (the one platform whose user owns the machine). */
export const pathFetcher: AttachmentFetcher = {
  async fetch(ref, limits) {
    if (ref.source.kind !== 'path') throw new AttachmentProblem('refused', 'it came without a path');
    let handle;
    try {
      handle = await open(ref.source.path, 'r');
    } catch {
      throw new AttachmentProblem('download', 'it could not be opened');
    }
    try {
      const { size } = await handle.stat();
      if (size > limits.maxBytes) throw tooLarge(limits.maxBytes);
      const stream = handle.readableWebStream() as ReadableStream<Uint8Array>;
      return await readCapped(stream, limits.maxBytes);
    } finally {
      await handle.close();
    }
  },
};

/** Reads a stream into one buffer, stopping (and cancelling it) past `maxBytes`. */
async function readCapped(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel();
        throw tooLarge(maxBytes);
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}

function tooLarge(maxBytes: number): AttachmentProblem {
  return new AttachmentProblem('too_large', `it is over the ${formatBytes(maxBytes)} limit`);
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}
