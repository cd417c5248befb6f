import type { tavily } from '@tavily/core';
import { z } from 'zod';
import { scrubSecrets } from '../../telemetry/logger.js';
import { truncate } from '../../reply/text.js';

/** One web result, as much as we keep of it (it is cached in thread state). */
export interface WebResult {
  title: string;
  url: string;
  content: string;
  publishedDate?: string;
}

export interface WebSearchClient {
  /** Throws a WebSearchError (message safe to log) on any failure. */
  search(query: string, opts: { maxResults: number; signal: AbortSignal }): Promise<WebResult[]>;
}

export class WebSearchError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WebSearchError';
  }
}

export interface TavilyOptions {
  apiKey: string;
  /** Overrides https://api.tavily.com (proxies, tests); the client appends `/search`. */
  apiUrl?: string;
  timeoutMs: number;
}

/** Result text beyond this is noise for an answer and bloats the thread's cache. */
const MAX_CONTENT_CHARS = 1_200;

const resultSchema = z.object({
  title: z.string().catch(''),
  url: z.string(),
  content: z.string().catch(''),
  publishedDate: z.string().optional().catch(undefined),
});

/** Tavily through its official client, pointed at `apiUrl` when one is configured. */
export function createTavilyClient(opts: TavilyOptions): WebSearchClient {
  // Loaded on the first search, not at start-up: the client brings axios and friends (~90 ms).
  let loading: Promise<ReturnType<typeof tavily>> | undefined;
  const connect = () =>
    (loading ??= import('@tavily/core').then(({ tavily: create }) =>
      create({ apiKey: opts.apiKey, ...(opts.apiUrl ? { apiBaseURL: opts.apiUrl.replace(/\/+$/, '') } : {}) }),
    ));
  return {
    async search(query, { maxResults, signal }) {
      signal.throwIfAborted();
      const client = await connect();
      let response: Awaited<ReturnType<typeof client.search>>;
      try {
        // The client takes no AbortSignal; its own timeout (in seconds) bounds the request.
        response = await untilAborted(
          client.search(query, { maxResults, searchDepth: 'basic', timeout: opts.timeoutMs / 1000 }),
          signal,
        );
      } catch (err) {
        if (signal.aborted) throw err;
        const detail = err instanceof Error ? err.message : String(err);
        throw new WebSearchError(`Tavily search failed: ${scrubSecrets(detail).slice(0, 300)}`, { cause: err });
      }
      return normalizeResults(response.results);
    },
  };
}

/** Keeps well-formed http(s) results, trimmed to what an answer needs. */
export function normalizeResults(raw: unknown): WebResult[] {
  if (!Array.isArray(raw)) return [];
  const out: WebResult[] = [];
  for (const item of raw) {
    const parsed = resultSchema.safeParse(item);
    if (!parsed.success) continue;
    const { title, url, content, publishedDate } = parsed.data;
    const host = hostOf(url);
    if (!host) continue;
    out.push({
      title: oneLine(title) || host,
      url,
      content: truncate(content.trim(), MAX_CONTENT_CHARS),
      ...(publishedDate ? { publishedDate } : {}),
    });
  }
  return out;
}

function hostOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.hostname : undefined;
  } catch {
    return undefined;
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
