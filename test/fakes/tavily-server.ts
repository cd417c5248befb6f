/**
 * A loopback stand-in for the Tavily search API (`POST /search`), driven by the real
 * `@tavily/core` client through its `apiBaseURL` option.
 *
 *   const tavily = await startFakeTavily({ apiKey: 'tvly-test' });
 *   tavily.script({ results: [{ title: 'React 19', url: 'https://react.dev/blog', content: '…' }] });
 *   // point TAVILY_API_URL at tavily.url, run the code under test …
 *   expect(tavily.searches()).toEqual(['latest React features 2026']);
 *
 * Like the real API it wants `Authorization: Bearer <key>` (401 `{ detail: { error } }`
 * otherwise), answers `{ query, answer, images, results, response_time, request_id }` and
 * reports failures as `{ detail: { error } }` with the status Tavily uses.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeSearchResult {
  title: string;
  url: string;
  content: string;
  score?: number;
  published_date?: string;
}

export type FakeTavilyResponse =
  | { results: FakeSearchResult[] }
  | { status: number; error?: string }
  /** Never answers; the client must time out or give up. */
  | { hang: true };

export type FakeTavilyResponder = (body: Record<string, unknown>) => FakeTavilyResponse;

export interface RecordedSearch {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface FakeTavily {
  /** Base URL for TAVILY_API_URL (the client appends `/search`). */
  readonly url: string;
  readonly requests: RecordedSearch[];
  /** Queues answers, one per search; when the queue is empty, {@link defaultResults} answer. */
  script(...responses: Array<FakeTavilyResponse | FakeTavilyResponder>): void;
  /** The `query` of every authorised search request, in order. */
  searches(): string[];
  reset(): void;
  close(): Promise<void>;
}

/** Three plausible results built from the query, so unscripted searches still answer. */
export function defaultResults(query: string): FakeSearchResult[] {
  const slug =
    query
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'query';
  return [1, 2, 3].map((n) => ({
    title: `${query} — source ${n}`,
    url: `https://example.com/${slug}/${n}`,
    content: `Result ${n} about ${query}.`,
    score: 1 - n / 10,
  }));
}

export async function startFakeTavily(options: { apiKey?: string } = {}): Promise<FakeTavily> {
  const apiKey = options.apiKey ?? 'tvly-test-key';
  const requests: RecordedSearch[] = [];
  let queue: Array<FakeTavilyResponse | FakeTavilyResponder> = [];
  let sequence = 0;

  const server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { detail: { error: `fake server bug: ${String(err)}` } });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    let body: Record<string, unknown>;
    try {
      body = await readJson(req);
    } catch {
      sendJson(res, 400, { detail: { error: 'Invalid JSON body.' } });
      return;
    }
    const recorded: RecordedSearch = { method: req.method ?? 'GET', path, headers: req.headers, body };
    requests.push(recorded);
    if (req.method !== 'POST' || path !== '/search') {
      sendJson(res, 404, { detail: 'Not Found' });
      return;
    }
    const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (token !== apiKey) {
      sendJson(res, 401, { detail: { error: 'Unauthorized: missing or invalid API key.' } });
      return;
    }
    if (typeof body.query !== 'string' || body.query.trim() === '') {
      sendJson(res, 400, { detail: { error: 'Query is missing.' } });
      return;
    }
    const next = queue.shift() ?? { results: defaultResults(body.query) };
    const response = typeof next === 'function' ? next(body) : next;
    if ('hang' in response) return; // the socket stays open until the client gives up or close()
    if ('status' in response) {
      sendJson(res, response.status, { detail: { error: response.error ?? `fake error ${response.status}` } });
      return;
    }
    const max = typeof body.max_results === 'number' ? body.max_results : 5;
    sequence += 1;
    sendJson(res, 200, {
      query: body.query,
      follow_up_questions: null,
      answer: null,
      images: [],
      results: response.results.slice(0, max).map((r, i) => ({
        url: r.url,
        title: r.title,
        content: r.content,
        score: r.score ?? 0.9 - i / 10,
        raw_content: null,
        ...(r.published_date ? { published_date: r.published_date } : {}),
      })),
      response_time: 0.01,
      request_id: `fake-request-${sequence}`,
    });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const authorised = () =>
    requests.filter((r) => r.path === '/search' && r.headers.authorization === `Bearer ${apiKey}`);

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (...responses) => queue.push(...responses),
    searches: () => authorised().map((r) => String(r.body.query)),
    reset: () => {
      requests.length = 0;
      queue = [];
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  const text = Buffer.concat(parts).toString('utf8');
  if (text.trim() === '') return {};
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not a JSON object');
  return parsed as Record<string, unknown>;
}
