/**
 * `/mcp` tool calls count against the process's limit of requests in flight, one count with
 * `/api/chat`'s turns (API_MAX_TURNS_IN_FLIGHT, src/adapters/http/in-flight.ts): past it a call
 * is refused at once with 503, Retry-After and a JSON-RPC error the SDK's client reports, said
 * once in the log; the handshake and `tools/list` still answer. Through the real HTTP app on a
 * socket, called by the SDK's own client.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createHttpApp } from '../../src/adapters/http/app.js';
import { startHttpServer, type RunningServer } from '../../src/adapters/http/server.js';
import { defineTool } from '../../src/contract/tool.js';
import { captureLogs, startHarness, type Harness, type LogCapture } from '../helpers/harness.js';

/** A read tool that runs until the test lets it finish (or its caller goes away). */
const running: { finish: () => void; signal: AbortSignal }[] = [];
const slowReport = defineTool({
  name: 'slow_report',
  title: 'Building a report',
  description: 'Builds the monthly report (slow).',
  input: z.object({}),
  async run(_args, ctx) {
    await new Promise<void>((finish) => {
      running.push({ finish, signal: ctx.signal });
      ctx.signal.addEventListener('abort', () => finish(), { once: true });
    });
    return { content: ctx.signal.aborted ? 'stopped' : 'The report is ready.' };
  },
});
const quick = defineTool({
  name: 'quick_check',
  title: 'Checking',
  description: 'Answers at once.',
  input: z.object({}),
  async run() {
    return { content: 'All good.' };
  },
});

describe('/mcp tool calls in flight (API_MAX_TURNS_IN_FLIGHT)', () => {
  let h: Harness;
  let server: RunningServer;
  let logs: LogCapture;
  const clients: Client[] = [];

  beforeAll(async () => {
    h = await startHarness({ tools: [slowReport, quick] });
    const captured = captureLogs();
    logs = captured.logs;
    const app = createHttpApp({ agent: h.sb.agent, log: captured.log, data: h.sb.data, maxTurnsInFlight: 1 });
    server = await startHttpServer(app, 0, '127.0.0.1');
  }, 60_000);
  afterAll(async () => {
    running.forEach((r) => r.finish());
    await Promise.allSettled(clients.map((c) => c.close()));
    await server?.close();
    await h?.close();
  });

  async function connect(): Promise<Client> {
    const client = new Client({ name: 'in-flight-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    clients.push(client);
    return client;
  }
  const textOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
    (result.content as { type: string; text: string }[]).map((c) => c.text).join('');
  const post = (path: string, body: unknown, signal?: AbortSignal) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });
  const call = (id: number, name: string) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: {} },
  });

  it('with a slow call in flight at a limit of 1, the next call is refused at once with 503 and Retry-After; then it is taken again', async () => {
    const first = await connect();
    const second = await connect();
    const slow = first.callTool({ name: 'slow_report', arguments: {} });
    await vi.waitFor(() => expect(running).toHaveLength(1));

    // The SDK's client reports the status and our message.
    const started = performance.now();
    await expect(second.callTool({ name: 'quick_check', arguments: {} })).rejects.toMatchObject({
      code: 503,
      message: expect.stringMatching(/as many tool calls and turns as it takes at once \(1\); try again in a moment/),
    });
    expect(performance.now() - started).toBeLessThan(1_000);

    // On the wire: Retry-After, and a JSON-RPC error for the request's id.
    const refused = await post('/mcp', call(7, 'quick_check'));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32000,
        message: expect.stringContaining('try again in a moment'),
        data: { code: 'overloaded', retryAfterSeconds: 1 },
      },
    });
    // One count with /api/chat's turns: a chat turn is refused too (before any model call).
    const chat = await post('/api/chat', { message: 'hi', userId: 'u-chat' });
    expect(chat.status).toBe(503);
    expect(((await chat.json()) as { error: { code: string } }).error.code).toBe('overloaded');
    // The handshake and the tool list are not calls: a new client connects and lists.
    expect((await (await connect()).listTools()).tools.map((t) => t.name).sort()).toEqual([
      'quick_check',
      'slow_report',
    ]);
    // Said once in the log, not once per refusal.
    expect(logs.lines.filter((l) => l.code === 'overloaded')).toEqual([
      expect.objectContaining({
        level: 40,
        inFlight: 1,
        limit: 1,
        msg: expect.stringContaining('/mcp tool calls'),
      }),
    ]);

    // Once the slow call has answered, calls are taken again.
    running[0]!.finish();
    expect(textOf(await slow)).toBe('The report is ready.');
    expect(textOf(await second.callTool({ name: 'quick_check', arguments: {} }))).toBe('All good.');
  });

  it('a client that hangs up mid-call frees its place once the call has stopped', async () => {
    const client = await connect();
    const hangUp = new AbortController();
    const abandoned = post('/mcp', call(8, 'slow_report'), hangUp.signal).catch((err: unknown) => err);
    await vi.waitFor(() => expect(running).toHaveLength(2));
    await expect(client.callTool({ name: 'quick_check', arguments: {} })).rejects.toMatchObject({ code: 503 });
    hangUp.abort();
    expect(await abandoned).toBeInstanceOf(Error);
    // The tool was told to stop, and its place is free.
    await vi.waitFor(() => expect(running[1]!.signal.aborted).toBe(true));
    await vi.waitFor(async () =>
      expect(textOf(await client.callTool({ name: 'quick_check', arguments: {} }))).toBe('All good.'),
    );
  });
});
