import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { webApi } from '@slack/bolt';

type FetchResponse = Awaited<ReturnType<webApi.FetchFunction>>;

/**
 * The Web API client's `fetch`, over keep-alive `node:http(s)` agents. Node's global fetch costs
 * about four times the CPU per call, and a busy bot makes several calls per answer (see
 * bench/slack-ack.ts). String bodies only (every JSON and form call); anything else — the
 * multipart file upload — goes through the global fetch.
 *
 * Each call has a deadline of `timeoutMs`, enforced here with one timer cleared when the call
 * ends. (The WebClient's own `timeout` option makes an `AbortSignal.timeout` per call whose
 * timer lives for the whole timeout: at a few hundred calls a second that is thousands of live
 * timers and signals for the garbage collector to carry.) A call past its deadline fails like
 * a network error, which the WebClient retries.
 */
export function createSlackFetch(timeoutMs: number): webApi.FetchFunction {
  const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  return (input, init = {}) => {
    const body = init.body;
    if (body !== undefined && typeof body !== 'string') return fetch(input, { ...init, signal: init.signal ?? AbortSignal.timeout(timeoutMs) });
    const url = new URL(String(input));
    const secure = url.protocol === 'https:';
    const send = secure ? httpsRequest : httpRequest;
    return new Promise<FetchResponse>((resolve, reject) => {
      // A known length lets node send headers and body in one write instead of chunked pieces.
      const headers = body === undefined ? init.headers : { ...init.headers, 'content-length': String(Buffer.byteLength(body)) };
      const req = send(url, { method: init.method ?? 'GET', headers, agent: secure ? agents.https : agents.http, signal: init.signal ?? undefined }, (res) => {
        const status = res.statusCode ?? 0;
        if (init.redirect === 'error' && status >= 300 && status < 400) {
          res.resume();
          reject(new TypeError(`fetch failed: redirect to ${res.headers.location ?? '(no location)'} refused`));
          return;
        }
        const parts: Buffer[] = [];
        res.on('data', (chunk: Buffer) => parts.push(chunk));
        res.on('error', reject);
        res.on('end', () => resolve(toResponse(String(url), status, res.statusMessage ?? '', res.headers, Buffer.concat(parts))));
      });
      const deadline = setTimeout(() => req.destroy(new Error(`Slack did not answer within ${timeoutMs} ms`)), timeoutMs).unref();
      req.on('close', () => clearTimeout(deadline));
      req.on('error', reject);
      req.end(body);
    });
  };
}

function toResponse(url: string, status: number, statusText: string, raw: IncomingHttpHeaders, body: Buffer): FetchResponse {
  const headers = new Map<string, string>();
  for (const [k, v] of Object.entries(raw)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
  const text = () => body.toString('utf8');
  return {
    ok: status >= 200 && status < 300,
    status,
    statusText,
    url,
    headers: { get: (name: string) => headers.get(name.toLowerCase()) ?? null, entries: () => headers.entries() },
    arrayBuffer: async () => body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer,
    json: async () => JSON.parse(text()) as unknown,
    text: async () => text(),
  };
}
