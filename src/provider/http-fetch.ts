import { Readable } from 'node:stream';
import { createNodeRequester, isPlainCall, responseHeaders } from '../net/node-request.js';

/**
 * The OpenAI client's `fetch`, over keep-alive `node:http(s)` agents (src/net/node-request.ts):
 * the response body streams as it arrives (SSE), as with the global fetch, for less CPU per
 * request (bench/capacity.ts: with a thousand turns in flight, undici's request and stream
 * machinery was a fifth of the process's time). Timeouts stay the SDK's (through the signal).
 */
export function createHttpFetch(): typeof fetch {
  const send = createNodeRequester();
  return async (input, init = {}) => {
    if (!isPlainCall(input, init)) return fetch(input, init);
    const res = await send(new URL(String(input)), init);
    const status = res.statusCode ?? 0;
    const noBody = status === 204 || status === 304 || init.method === 'HEAD';
    if (noBody) res.resume();
    return new Response(noBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), {
      status,
      statusText: res.statusMessage ?? '',
      headers: responseHeaders(res.headers),
    });
  };
}
