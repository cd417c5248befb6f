import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Readable } from 'node:stream';

/**
 * A `fetch` for servers named by someone else (a tenant's MCP server): it reaches only public
 * addresses. Every connection's address is checked as the socket is made (the `lookup` of the
 * agent, so a DNS answer that changes between a check and the connection cannot slip through);
 * redirects are followed here, at most {@link MAX_REDIRECTS}, each hop checked the same way and
 * never from https down to http. `allowLoopbackHttp` (tests, development) lets `http://` reach
 * loopback addresses only.
 */
export interface PublicFetchOptions {
  allowLoopbackHttp?: boolean;
  /**
   * The most a response to a request with a body (a POST) may carry; past it the body errors.
   * A GET's stream (a server's event stream, open for good) is capped per event instead. Default 16 MB.
   */
  maxResponseBytes?: number;
}

export class BlockedAddressError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BlockedAddressError';
  }
}

const MAX_REDIRECTS = 5;
/** What a redirect to another origin keeps of the request's headers (no credentials, no custom ones). */
const CROSS_ORIGIN_HEADERS = new Set(['accept', 'content-type', 'user-agent', 'mcp-protocol-version']);

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const)
  blocked.addSubnet(net, prefix, 'ipv6');
const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) as the IPv4 address it is. */
function plain(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1]!, family: 'ipv4' };
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

/** Whether an address is private, loopback, link-local or otherwise not on the public internet. */
export function isPublicAddress(address: string): boolean {
  const a = plain(address);
  return !blocked.check(a.address, a.family);
}

export function isLoopbackAddress(address: string): boolean {
  const a = plain(address);
  return loopback.check(a.address, a.family);
}

/** Why `url` may not be called (scheme or literal address), or undefined. */
export function urlProblem(url: URL, opts: PublicFetchOptions = {}): string | undefined {
  if (url.username || url.password) return 'the URL must not carry a user name or password';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol !== 'http:') return `only https URLs are allowed (got ${url.protocol.replace(':', '')})`;
  if (!opts.allowLoopbackHttp) return 'only https URLs are allowed';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || (isIP(host) && isLoopbackAddress(host))) return undefined;
  return 'http is allowed only for loopback addresses (MCP_ALLOW_LOOPBACK_HTTP)';
}

function guardedLookup(allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const bad = addresses.find(
        (a) => !isPublicAddress(a.address) && !(allowLoopback && isLoopbackAddress(a.address)),
      );
      if (bad || addresses.length === 0)
        return callback(
          new BlockedAddressError(`${hostname} resolves to a private or reserved address; refused`),
          '',
          0,
        );
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

function headersOf(init: RequestInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, key) => (out[key] = value));
  return out;
}

async function bodyOf(body: RequestInit['body']): Promise<Buffer | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof URLSearchParams) return Buffer.from(body.toString());
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return Buffer.from(await new Response(body).arrayBuffer());
}

/** A fetch that reaches public addresses only (see {@link PublicFetchOptions}). */
export function createPublicFetch(opts: PublicFetchOptions = {}): typeof fetch {
  const allowLoopback = opts.allowLoopbackHttp === true;
  const lookup = guardedLookup(allowLoopback);
  const agents = {
    http: new HttpAgent({ keepAlive: true, lookup }),
    https: new HttpsAgent({ keepAlive: true, lookup }),
  };

  const once = (
    url: URL,
    method: string,
    headers: Record<string, string>,
    body: Buffer | undefined,
    signal?: AbortSignal | null,
  ) =>
    new Promise<IncomingMessage>((resolve, reject) => {
      const host = url.hostname.replace(/^\[|\]$/g, '');
      // A literal address never reaches `lookup`: checked here.
      if (isIP(host) && !isPublicAddress(host) && !(allowLoopback && isLoopbackAddress(host))) {
        reject(new BlockedAddressError(`${host} is a private or reserved address; refused`));
        return;
      }
      const secure = url.protocol === 'https:';
      const req = (secure ? httpsRequest : httpRequest)(url, {
        method,
        headers: body ? { ...headers, 'content-length': String(body.length) } : headers,
        agent: secure ? agents.https : agents.http,
        signal: signal ?? undefined,
      });
      req.on('response', resolve);
      req.on('error', reject);
      req.end(body);
    });

  const publicFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    let url = new URL(input instanceof Request ? input.url : String(input));
    let method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const headers = headersOf(init);
    let body = await bodyOf(init?.body);
    for (let hop = 0; ; hop++) {
      const problem = urlProblem(url, opts);
      if (problem) throw new BlockedAddressError(`${url.origin}: ${problem}`);
      const res = await once(url, method, headers, body, init?.signal);
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (status >= 300 && status < 400 && location && init?.redirect !== 'manual') {
        res.resume();
        if (init?.redirect === 'error') throw new TypeError(`redirected to ${location}; redirects are refused`);
        if (hop >= MAX_REDIRECTS) throw new TypeError(`more than ${MAX_REDIRECTS} redirects`);
        const next = new URL(location, url);
        if (url.protocol === 'https:' && next.protocol !== 'https:')
          throw new BlockedAddressError(`a redirect from https to ${next.protocol} was refused`);
        // A different origin must not get the credentials meant for this one: only the plain headers go on.
        if (next.origin !== url.origin)
          for (const key of Object.keys(headers)) if (!CROSS_ORIGIN_HEADERS.has(key)) delete headers[key];
        if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
          delete headers['content-type'];
        }
        url = next;
        continue;
      }
      const responseHeaders = new Headers();
      for (const [key, value] of Object.entries(res.headers)) {
        if (value === undefined) continue;
        for (const v of Array.isArray(value) ? value : [value]) responseHeaders.append(key, v);
      }
      const empty = status === 204 || status === 205 || status === 304 || method === 'HEAD';
      if (empty) res.resume();
      const limit = opts.maxResponseBytes ?? 16 * 1024 * 1024;
      if (!empty && method !== 'GET') {
        let seen = 0;
        res.on('data', (chunk: Buffer) => {
          seen += chunk.length;
          if (seen > limit) res.destroy(new Error(`the response is larger than ${limit} bytes; refused`));
        });
      } else if (!empty) {
        // A GET is a server's event stream, open for good (the older SSE transport's answers come
        // through it): what is capped is one event, the bytes since the last blank line.
        let sinceEvent = 0;
        let tail = '';
        res.on('data', (chunk: Buffer) => {
          const end = lastEventEnd(chunk, tail);
          sinceEvent = end < 0 ? sinceEvent + chunk.length : chunk.length - end;
          tail = chunk.subarray(Math.max(0, chunk.length - 2)).toString('latin1');
          if (sinceEvent > limit)
            res.destroy(new Error(`an event of the stream is larger than ${limit} bytes; refused`));
        });
      }
      const response = new Response(empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), {
        status,
        statusText: res.statusMessage ?? '',
        headers: responseHeaders,
      });
      Object.defineProperty(response, 'url', { value: url.toString() });
      return response;
    }
  };
  return publicFetch as typeof fetch;
}

/**
 * Where the last event of a stream chunk ends (the index just past its blank line), or -1 when none
 * ends in it. `tail` is the previous chunk's last two bytes, for a blank line split between chunks.
 * Linear in the chunk.
 */
function lastEventEnd(chunk: Buffer, tail: string): number {
  const lf = chunk.lastIndexOf('\n\n');
  const crlf = chunk.lastIndexOf('\n\r\n');
  const end = Math.max(lf < 0 ? -1 : lf + 2, crlf < 0 ? -1 : crlf + 3);
  if (end >= 0) return end;
  if (tail.endsWith('\n') && chunk[0] === 0x0a) return 1;
  if (tail.endsWith('\n') && chunk[0] === 0x0d && chunk[1] === 0x0a) return 2;
  if (tail.endsWith('\n\r') && chunk[0] === 0x0a) return 1;
  return -1;
}
