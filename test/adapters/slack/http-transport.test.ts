import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSlackFetch } from '../../../src/adapters/slack/http-transport.js';

/** A loopback peer: `/ok` answers like Slack, `/hang` accepts the request and never answers. */
let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/ok') {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json', 'x-slack-req-id': 'r1' });
        res.end(JSON.stringify({ ok: true }));
      });
    }
    // '/hang': no answer
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('the Web API transport', () => {
  it('posts a string body and hands the WebClient a fetch-like response', async () => {
    const res = await createSlackFetch(5_000)(`${base}/ok`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('X-Slack-Req-Id')).toBe('r1');
    expect(await res.json()).toEqual({ ok: true });
  });

  it('fails a call that gets no answer within its deadline, so the WebClient can retry it', async () => {
    const started = performance.now();
    await expect(createSlackFetch(150)(`${base}/hang`, { method: 'POST', body: 'x=1' })).rejects.toThrow(
      'Slack did not answer within 150 ms',
    );
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
