import type { webApi } from '@slack/bolt';
import { createNodeRequester, isPlainCall, responseHeaders } from '../../net/node-request.js';

type FetchResponse = Awaited<ReturnType<webApi.FetchFunction>>;

/**
 * The Web API client's `fetch`, over keep-alive `node:http(s)` agents (src/net/node-request.ts).
 * Node's global fetch costs about four times the CPU per call, and a busy bot makes several calls
 * per answer (see bench/slack-ack.ts). The body is read whole into a small fetch-like response
 * (no web streams: every Web API answer is one JSON document); anything but a string body — the
 * multipart file upload — goes through the global fetch.
 *
 * Each call has a deadline of `timeoutMs`, enforced with one timer cleared when the call ends
 * (the WebClient's own `timeout` option makes an `AbortSignal.timeout` per call whose timer lives
 * for the whole timeout: at a few hundred calls a second that is thousands of live timers and
 * signals for the garbage collector to carry). A call past its deadline fails like a network
 * error, which the WebClient retries.
 */
export function createSlackFetch(timeoutMs: number): webApi.FetchFunction {
  const send = createNodeRequester();
  const deadline = { ms: timeoutMs, message: `Slack did not answer within ${timeoutMs} ms` };
  return async (input, init = {}) => {
    if (!isPlainCall(input, init))
      return fetch(input, { ...init, signal: init.signal ?? AbortSignal.timeout(timeoutMs) });
    const url = String(input);
    const res = await send(new URL(url), init, deadline);
    const status = res.statusCode ?? 0;
    if (init.redirect === 'error' && status >= 300 && status < 400) {
      res.resume();
      throw new TypeError(`fetch failed: redirect to ${res.headers.location ?? '(no location)'} refused`);
    }
    const parts: Buffer[] = [];
    for await (const chunk of res) parts.push(chunk as Buffer);
    return toResponse(url, status, res.statusMessage ?? '', responseHeaders(res.headers), Buffer.concat(parts));
  };
}

function toResponse(url: string, status: number, statusText: string, headers: Headers, body: Buffer): FetchResponse {
  const text = () => body.toString('utf8');
  return {
    ok: status >= 200 && status < 300,
    status,
    statusText,
    url,
    headers,
    arrayBuffer: async () => body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer,
    json: async () => JSON.parse(text()) as unknown,
    text: async () => text(),
  };
}
