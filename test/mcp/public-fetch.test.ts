/**
 * Issue 44's address guard (src/net/public-fetch.ts): MCP servers are reached over https, or http on
 * loopback only when allowed; a redirect to a private or link-local address is refused at each hop;
 * a redirect to another origin drops the tenant's headers; names and schemas are checked.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicFetch, isPublicAddress, urlProblem } from '../../src/net/public-fetch.js';
import { namesOf, namespacedName, serverNameProblem } from '../../src/mcp/names.js';
import { jsonToolParameters } from '../../src/agent/json-schema.js';
import { parseHeaders } from '../../src/mcp/admin.js';

let server: Server;
let base: string;
const seen: IncomingHttpHeaders[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers);
    const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to');
    if (to) res.writeHead(302, { location: to }).end();
    else if (req.url?.startsWith('/events')) {
      // Many small events, then (on /events/huge) one event larger than the cap.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let i = 0; i < 50; i++) res.write(`data: ${'y'.repeat(100)}\r\n\r\n`);
      if (req.url.endsWith('/huge')) for (let i = 0; i < 30; i++) res.write(`data: ${'z'.repeat(100)}\n`);
      res.end('data: done\n\n');
    } else if (req.url?.startsWith('/big'))
      res.writeHead(200, { 'content-type': 'application/json' }).end('x'.repeat(5000));
    else res.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('public fetch', () => {
  it('classifies addresses', () => {
    for (const a of [
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '127.0.0.1',
      '169.254.169.254',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:10.0.0.1',
      '100.64.0.1',
    ])
      expect(isPublicAddress(a), a).toBe(false);
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700::1111']) expect(isPublicAddress(a), a).toBe(true);
  });

  it('https only; loopback http only when allowed', () => {
    expect(urlProblem(new URL('http://example.com/mcp'))).toContain('only https');
    expect(urlProblem(new URL('http://127.0.0.1/mcp'))).toContain('only https');
    expect(urlProblem(new URL('http://127.0.0.1/mcp'), { allowLoopbackHttp: true })).toBeUndefined();
    expect(urlProblem(new URL('http://10.0.0.1/mcp'), { allowLoopbackHttp: true })).toContain('loopback');
    expect(urlProblem(new URL('https://u:p@example.com/'))).toContain('user name');
    expect(urlProblem(new URL('ftp://example.com/'))).toContain('only https');
  });

  it('loopback is refused unless allowed, even over a literal address', async () => {
    await expect(createPublicFetch()(`${base}/`)).rejects.toThrow(/only https/);
    const res = await createPublicFetch({ allowLoopbackHttp: true })(`${base}/`);
    expect(await res.text()).toBe('hello');
  });

  it('a redirect to a private or link-local address is refused; one to another origin keeps no credentials', async () => {
    const f = createPublicFetch({ allowLoopbackHttp: true });
    await expect(f(`${base}/?to=${encodeURIComponent('http://169.254.169.254/latest/meta-data')}`)).rejects.toThrow(
      /loopback|private/,
    );
    await expect(f(`${base}/?to=${encodeURIComponent('https://10.0.0.5/x')}`)).rejects.toThrow(/private or reserved/);
    seen.length = 0;
    const other = base.replace('127.0.0.1', 'localhost');
    const res = await f(`${base}/?to=${encodeURIComponent(`${other}/`)}`, {
      headers: { 'x-api-key': 'secret', accept: 'text/plain' },
    });
    expect(await res.text()).toBe('hello');
    expect(seen[0]!['x-api-key']).toBe('secret');
    expect(seen[1]!['x-api-key']).toBeUndefined();
    expect(seen[1]!.accept).toBe('text/plain');
  });
});

describe('response size', () => {
  it('a POST’s answer past maxResponseBytes errors; a smaller one reads', async () => {
    const f = createPublicFetch({ allowLoopbackHttp: true, maxResponseBytes: 1000 });
    const big = await f(`${base}/big`, { method: 'POST', body: '{}' });
    await expect(big.text()).rejects.toThrow();
    const ok = await f(`${base}/`, { method: 'POST', body: '{}' });
    expect(await ok.text()).toBe('hello');
  });

  it('an event stream (GET) may carry more than maxResponseBytes in all, but no one event past it', async () => {
    const f = createPublicFetch({ allowLoopbackHttp: true, maxResponseBytes: 1000 });
    const many = await f(`${base}/events`);
    expect((await many.text()).length).toBeGreaterThan(5000);
    const huge = await f(`${base}/events/huge`);
    await expect(huge.text()).rejects.toThrow();
  });
});

describe('names, headers and schemas', () => {
  it('namespaces tool names within 64 characters and finds collisions', () => {
    expect(namespacedName('crm', 'Create.Issue')).toBe('crm__create_issue');
    const long = namespacedName('a-very-long-server-name-here', 'x'.repeat(80));
    expect(long.length).toBe(64);
    expect(namesOf('crm', ['a.b', 'a_b']).collisions).toHaveLength(1);
    expect(serverNameProblem('crm')).toBeUndefined();
    expect(serverNameProblem('my_server')).toBeDefined();
    expect(serverNameProblem('a--b')).toBeDefined();
  });

  it('parses headers and refuses the transport’s own', () => {
    expect(parseHeaders(['X-Api-Key=abc=def'])).toEqual({ ok: true, headers: { 'x-api-key': 'abc=def' } });
    expect(parseHeaders(['Host=evil']).ok).toBe(false);
    expect(parseHeaders(['novalue']).ok).toBe(false);
  });

  it('offers a schema strict mode can express as strict, any other as it is', () => {
    const simple = jsonToolParameters(
      {
        type: 'object',
        properties: { id: { type: 'string', minLength: 1 }, n: { type: 'integer' } },
        required: ['id'],
      },
      'openai',
    );
    expect(simple.strict).toBe(true);
    expect(simple.parameters).toMatchObject({ additionalProperties: false, required: ['id', 'n'] });
    for (const schema of [
      { type: 'object', additionalProperties: { type: 'string' } },
      { type: 'object', properties: { a: { oneOf: [{ type: 'string' }, { type: 'number' }] } } },
      { type: 'object', properties: { a: { $ref: '#/$defs/x' } }, $defs: { x: { type: 'string' } } },
      { type: 'object', properties: { meta: { type: 'object' } } },
    ])
      expect(jsonToolParameters(schema, 'openai').strict, JSON.stringify(schema)).toBe(false);
  });
});
