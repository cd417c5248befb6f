import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';

/**
 * The OpenAI client's `fetch`, over keep-alive `node:http(s)` agents: the response body streams
 * as it arrives (SSE), as with the global fetch, for about half the CPU per request (bench/capacity.ts:
 * with a thousand turns in flight, undici's request and stream machinery was a fifth of the
 * process's time). String bodies only (every chat and embeddings call); anything else goes
 * through the global fetch. The caller's signal aborts the request; timeouts stay the SDK's.
 */
export function createHttpFetch(): typeof fetch {
  const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  return (input, init = {}) => {
    const body = init.body;
    if ((body !== undefined && body !== null && typeof body !== 'string') || input instanceof Request) return fetch(input, init);
    const url = new URL(String(input));
    const secure = url.protocol === 'https:';
    const headers = plainHeaders(init.headers);
    // The global fetch asks for compressed answers and inflates them; this one asks for none.
    delete headers['accept-encoding'];
    if (typeof body === 'string') headers['content-length'] = String(Buffer.byteLength(body));
    return new Promise<Response>((resolve, reject) => {
      const req = (secure ? httpsRequest : httpRequest)(
        url,
        { method: init.method ?? 'GET', headers, agent: secure ? agents.https : agents.http, ...(init.signal ? { signal: init.signal } : {}) },
        (res) => {
          const status = res.statusCode ?? 0;
          const noBody = status === 204 || status === 304 || init.method === 'HEAD';
          if (noBody) res.resume();
          resolve(new Response(noBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), { status, statusText: res.statusMessage ?? '', headers: responseHeaders(res.headers) }));
        },
      );
      req.on('error', reject);
      req.end(body ?? undefined);
    });
  };
}

function plainHeaders(h: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  const entries = h instanceof Headers ? h.entries() : Array.isArray(h) ? h : Object.entries(h);
  for (const [k, v] of entries) if (v !== undefined) out[k.toLowerCase()] = String(v);
  return out;
}

function responseHeaders(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [k, v] of Object.entries(raw)) {
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const one of v) headers.append(k, one);
    else headers.set(k, v);
  }
  return headers;
}
