import {
  Agent as HttpAgent,
  request as httpRequest,
  type ClientRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { base64Slices, expandBlobs, type ExpandedBody } from './inline-blobs.js';

/**
 * One HTTP call for the `fetch` functions the platform and model clients are given (Slack's
 * WebClient, the OpenAI SDK): keep-alive `node:http(s)` agents, which cost a fraction of the
 * global fetch's CPU per call. A string body only (the callers fall back to the global fetch for
 * anything else); a known length, so headers and body go out in one write; no compression asked
 * for (node:http does not inflate); the caller's signal aborts it; with `deadline`, a call not
 * answered in time fails like a network error, with one timer cleared when the call ends (an
 * `AbortSignal.timeout` per call would live for the whole timeout).
 */
export function createNodeRequester(): (
  url: URL,
  init: RequestInit & { body?: string | null },
  deadline?: { ms: number; message: string },
) => Promise<IncomingMessage> {
  const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  return (url, init, deadline) => {
    const secure = url.protocol === 'https:';
    const headers = plainHeaders(init.headers);
    delete headers['accept-encoding'];
    const body = init.body ?? undefined;
    // A body with large blobs in it (a chat request with images, inline-blobs.ts) is written in slices.
    const expanded = body === undefined ? undefined : expandBlobs(body);
    if (body !== undefined) headers['content-length'] = String(expanded?.length ?? Buffer.byteLength(body));
    return new Promise<IncomingMessage>((resolve, reject) => {
      const req = (secure ? httpsRequest : httpRequest)(
        url,
        {
          method: init.method ?? 'GET',
          headers,
          agent: secure ? agents.https : agents.http,
          ...(init.signal ? { signal: init.signal } : {}),
        },
        resolve,
      );
      if (deadline) {
        const timer = setTimeout(() => req.destroy(new Error(deadline.message)), deadline.ms).unref();
        req.on('close', () => clearTimeout(timer));
      }
      req.on('error', reject);
      if (expanded) writeExpanded(req, expanded);
      else req.end(body);
    });
  };
}

/** Writes the body's text and its blobs' base64, a slice at a time, waiting while the socket is full. */
function writeExpanded(req: ClientRequest, body: ExpandedBody): void {
  const slices = (function* () {
    for (const part of body.parts) {
      if (typeof part === 'string') yield part;
      else yield* base64Slices(part);
    }
  })();
  const pump = () => {
    for (let next = slices.next(); !next.done; next = slices.next()) {
      if (!req.write(next.value)) {
        req.once('drain', pump);
        return;
      }
    }
    req.end();
  };
  pump();
}

/** Whether `fetch(input, init)` can go through the requester: a URL (not a Request) and a string body or none. */
export function isPlainCall(input: unknown, init: RequestInit): init is RequestInit & { body?: string | null } {
  return (
    !(input instanceof Request) && (init.body === undefined || init.body === null || typeof init.body === 'string')
  );
}

function plainHeaders(h: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  const entries = h instanceof Headers ? h.entries() : Array.isArray(h) ? h : Object.entries(h);
  for (const [k, v] of entries) if (v !== undefined) out[k.toLowerCase()] = String(v);
  return out;
}

/** A response's headers as fetch's `Headers` (repeated ones appended). */
export function responseHeaders(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [k, v] of Object.entries(raw)) {
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const one of v) headers.append(k, one);
    else headers.set(k, v);
  }
  return headers;
}
