/**
 * The HTTP ingress thread (a `node:worker_threads` worker started by `ingress.ts`): the public
 * HTTP server. Slack's `POST /slack/events` is verified, acked and handed to the main thread
 * here, so an ack never waits behind the main thread's turns, queries or GC; every other
 * request is proxied, streamed both ways, to the main thread's server on a loopback port.
 *
 * Kept small and free of the core's imports: node's http, and Bolt's own request functions.
 */
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
// Bolt's request verification, parsing and responses: the module @slack/bolt exports as
// `HTTPModuleFunctions`, loaded on its own (the package's index costs ~300 ms and ~20 MB here).
import * as boltHttp from '@slack/bolt/dist/receivers/HTTPModuleFunctions.js';
import { currentThreadId } from './thread-priority.js';

export interface IngressConfig {
  port: number;
  host: string;
  /** The main thread's server, on loopback. */
  upstream: { host: string; port: number };
  slack: { path: string; signingSecret: string };
}

/** Main thread → ingress. */
export type ToIngress = { type: 'slack-ready' } | { type: 'close'; graceMs: number };

/** Ingress → main thread. */
export type FromIngress =
  /** `tid`: this thread's kernel id, where the system tells it (Linux), for `turnPriority`. */
  | { type: 'listening'; port: number; tid?: number }
  | { type: 'listen-failed'; message: string; code?: string }
  /** A verified request Slack has already been answered for. */
  | { type: 'slack'; body: Record<string, unknown>; retryNum?: number; retryReason?: string }
  | { type: 'log'; level: 'debug' | 'info' | 'warn' | 'error'; msg: string; fields?: Record<string, unknown> }
  /** The `slack-ready` message arrived: from now on Slack's requests are taken. */
  | { type: 'slack-ready' }
  | { type: 'closed' };

const port = parentPort;
if (!port) throw new Error('ingress-worker runs as a worker thread (see ingress.ts)');
const config = workerData as IngressConfig;
const post = (message: FromIngress) => port.postMessage(message);
const log = (level: 'debug' | 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => post({ type: 'log', level, msg, fields });

let slackReady = false;
/** Connections that have not sent a request yet: close() ends them, as it ends idle keep-alive ones. */
const unused = new Set<Socket>();

const server = createServer((req, res) => {
  unused.delete(req.socket);
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  if (path.startsWith('/slack/')) {
    handleSlack(req, res, path).catch((err: unknown) => {
      log('error', 'slack request failed in the ingress', { reason: err instanceof Error ? err.message : String(err) });
      json(res, 500, { error: { code: 'internal', message: 'Internal error. It has been logged.' } });
    });
  }
  else proxy(req, res);
});

/** As Bolt's HTTPReceiver does, except that a valid request is acked before anything else runs. */
async function handleSlack(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  if (path !== config.slack.path || req.method !== 'POST') {
    req.resume();
    return json(res, 404, { error: { code: 'not_found', message: `No Slack route for ${req.url}.` } });
  }
  if (!slackReady) {
    // Until auth.test has passed in the main thread; Slack retries a 503.
    req.resume();
    return json(res, 503, { error: { code: 'unavailable', message: 'Slack adapter is not ready.' } });
  }
  let buffered: Awaited<ReturnType<typeof boltHttp.parseAndVerifyHTTPRequest>>;
  try {
    buffered = await boltHttp.parseAndVerifyHTTPRequest({ signingSecret: config.slack.signingSecret, bodyLimit: boltHttp.defaultBodyLimit }, req);
  } catch (err) {
    if (boltHttp.isRawBodyError(err) && (err.type === 'entity.too.large' || err.statusCode === 413)) {
      log('warn', 'slack request rejected: body too large', { status: 413, limit: boltHttp.defaultBodyLimit });
      return boltHttp.buildNoBodyResponse(res, 413);
    }
    log('warn', 'slack request rejected', { status: 401, reason: err instanceof Error ? err.message : String(err) });
    return boltHttp.buildNoBodyResponse(res, 401);
  }
  let body: Record<string, unknown>;
  try {
    body = boltHttp.parseHTTPRequestBody(buffered) as Record<string, unknown>;
  } catch (err) {
    log('warn', 'slack request rejected: malformed body', { status: 400, reason: err instanceof Error ? err.message : String(err) });
    return boltHttp.buildNoBodyResponse(res, 400);
  }
  if (body.ssl_check === '1') return boltHttp.buildSSLCheckResponse(res);
  if (body.type === 'url_verification') return boltHttp.buildUrlVerificationResponse(res, body);
  // The empty 200 Bolt sends for an ack() without a body; the main thread's listeners ack into a no-op.
  boltHttp.buildContentResponse(res, undefined);
  post({
    type: 'slack',
    body,
    retryNum: boltHttp.extractRetryNumFromHTTPRequest(req),
    retryReason: boltHttp.extractRetryReasonFromHTTPRequest(req),
  });
}

/** Headers that belong to one connection, not to the message (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authenticate', 'proxy-authorization']);

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const listed = new Set(String(headers.connection ?? '').toLowerCase().split(',').map((s) => s.trim()));
  const out: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (!HOP_BY_HOP.has(name) && !listed.has(name)) out[name] = value;
  return out;
}

/** Everything that is not Slack's: to the main thread's server, streamed in both directions. */
function proxy(req: IncomingMessage, res: ServerResponse): void {
  const headers = endToEnd(req.headers);
  const client = req.socket.remoteAddress;
  if (client) headers['x-forwarded-for'] = req.headers['x-forwarded-for'] ? `${String(req.headers['x-forwarded-for'])}, ${client}` : client;
  let clientGone = false;
  // A fresh loopback connection per request (agent: false): no idle keep-alive socket for the
  // main server to time out under a request, and a client that goes away closes exactly its own.
  const upstream = request({ ...config.upstream, method: req.method, path: req.url, headers, agent: false }, (upRes) => {
    res.writeHead(upRes.statusCode ?? 502, upRes.statusMessage, endToEnd(upRes.headers));
    // No length: a stream (SSE). Send the headers now, as the main server did.
    if (upRes.headers['content-length'] === undefined) res.flushHeaders();
    upRes.pipe(res);
    // The main server broke off mid-response: so does the client's connection (not a short body that looks whole).
    upRes.on('close', () => {
      if (!upRes.complete) res.destroy();
    });
  });
  upstream.on('error', (err) => {
    if (clientGone) return;
    if (res.headersSent) return void res.destroy();
    log('error', 'http ingress could not reach the main server', { reason: err.message, method: req.method, path: req.url });
    json(res, 502, { error: { code: 'unavailable', message: 'The server is not available.' } });
  });
  req.pipe(upstream);
  // The client went away: end the upstream request too, so the main server sees the disconnect.
  res.on('close', () => {
    if (res.writableFinished) return;
    clientGone = true;
    upstream.destroy();
  });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

server.on('connection', (socket: Socket) => {
  unused.add(socket);
  socket.once('close', () => unused.delete(socket));
});

port.on('message', (message: ToIngress) => {
  if (message.type === 'slack-ready') {
    slackReady = true;
    post({ type: 'slack-ready' });
  } else if (message.type === 'close') {
    // Stop accepting; idle and unused connections close now, requests in flight get `graceMs`.
    // `closed` is posted after every Slack request this thread has acked.
    server.close(() => post({ type: 'closed' }));
    server.closeIdleConnections();
    for (const socket of unused) socket.destroy();
    setTimeout(() => server.closeAllConnections(), message.graceMs).unref();
  }
});

server.once('error', (err: NodeJS.ErrnoException) => post({ type: 'listen-failed', message: err.message, code: err.code }));
server.listen(config.port, config.host, () => post({ type: 'listening', port: (server.address() as AddressInfo).port, tid: currentThreadId() }));
