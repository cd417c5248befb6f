/**
 * The HTTP ingress thread as `npm start` runs it with Slack over HTTP: acks that do not depend on
 * the main thread, readiness, Bolt's own verification, and the proxy to the main thread's API.
 */
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { HTTPModuleFunctions } from '@slack/bolt';
import * as boltHttpModule from '@slack/bolt/dist/receivers/HTTPModuleFunctions.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../../../src/adapters/http/app.js';
import { startIngress } from '../../../src/adapters/http/ingress.js';
import { createSlackAdapter } from '../../../src/adapters/slack/index.js';
import { signedHeaders } from '../../fakes/slack/signing.js';
import { eventBody, mention, postEvent, SIGNING_SECRET, sign, startSlackRig, type SlackRig } from './setup.js';

let rig: SlackRig;
beforeAll(async () => {
  rig = await startSlackRig({ mode: 'http' });
});
afterAll(() => rig.close());
beforeEach(() => {
  rig.llm.reset();
  rig.slack.reset();
});

const base = () => rig.server!.url;

/**
 * Another thread that sends one signed request when told to and reports how long the ack took,
 * so that the test's own thread (which is also Switchboard's main thread) can be blocked meanwhile.
 */
function startSender(url: string, body: string, headers: Record<string, string>): Worker {
  const code = `
    const http = require('node:http');
    const { parentPort, workerData } = require('node:worker_threads');
    const send = (method, url, body, headers) => new Promise((resolve, reject) => {
      const req = http.request(url, { method, headers, agent: false }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)); });
      req.on('error', reject);
      req.end(body);
    });
    (async () => {
      await send('GET', workerData.url, undefined, {}); // warm up: answered by the ingress itself
      parentPort.once('message', async () => {
        const started = Date.now();
        const status = await send('POST', workerData.url, workerData.body, workerData.headers);
        parentPort.postMessage({ status, ackMs: Date.now() - started, ackedAt: Date.now() });
      });
      parentPort.postMessage('ready');
    })();
  `;
  return new Worker(code, { eval: true, workerData: { url, body, headers } });
}

describe('the Slack ingress thread', () => {
  it('acks a signed event while the main thread is blocked, and the turn is answered once afterwards', async () => {
    const before = rig.deliveredCount();
    rig.llm.script({ text: 'Answered after the stall.' });
    const post = mention('are you there?');
    const body = JSON.stringify(eventBody(post));
    const sender = startSender(rig.eventsUrl, body, signedHeaders(body, sign(), 'application/json'));
    try {
      await once(sender, 'message');
      sender.postMessage('go');
      // A 500 ms synchronous stall of the main thread (a slow embedded query, a GC pause, a burst of turns).
      const blockedAt = Date.now();
      while (Date.now() - blockedAt < 500);
      const unblockedAt = Date.now();
      const [result] = (await once(sender, 'message')) as [{ status: number; ackMs: number; ackedAt: number }];
      expect(result.status).toBe(200);
      expect(result.ackMs).toBeLessThan(250);
      expect(result.ackedAt).toBeLessThan(unblockedAt);
    } finally {
      await sender.terminate();
    }
    await rig.delivered(before + 1);
    await new Promise((r) => setTimeout(r, 100));
    expect(rig.deliveredCount()).toBe(before + 1);
    expect(rig.slack.threadReplies('C0CHAN1', post.ts).map((m) => m.text)).toEqual(['Answered after the stall.']);
  });

  it('answers 503 until the adapter is ready (Slack retries), then takes events', async () => {
    const adapter = createSlackAdapter(rig.h.sb, { writer: { updateIntervalMs: 300, streamFlushMs: 50 } })!;
    const ingress = await startIngress({ app: createHttpApp({ agent: rig.h.sb.agent, log: rig.h.sb.log }), port: 0, host: '127.0.0.1', slack: adapter.ingress!, log: rig.h.sb.log });
    try {
      const url = `${ingress.url}/slack/events`;
      const early = await postEvent(url, eventBody(mention('too early')), sign());
      expect(early.status).toBe(503);
      expect(await early.json()).toEqual({ error: { code: 'unavailable', message: 'Slack adapter is not ready.' } });
      // The rest of the server does not wait for Slack.
      expect((await fetch(`${ingress.url}/healthz`)).status).toBe(200);

      await adapter.start();
      await ingress.slackReady;
      const before = rig.deliveredCount();
      rig.llm.script({ text: 'Ready now.' });
      const post = mention('now?');
      expect((await postEvent(url, eventBody(post), sign())).status).toBe(200);
      await rig.delivered(before + 1);
      expect(rig.slack.threadReplies('C0CHAN1', post.ts).map((m) => m.text)).toEqual(['Ready now.']);
    } finally {
      await ingress.close();
      await adapter.stop();
    }
  });

  it('verifies with Bolt’s own functions: ssl_check, unknown Slack paths, malformed bodies', async () => {
    // The module the ingress loads on its own is the one @slack/bolt exports as HTTPModuleFunctions.
    expect(boltHttpModule.parseAndVerifyHTTPRequest).toBe(HTTPModuleFunctions.parseAndVerifyHTTPRequest);

    const ssl = await fetch(rig.eventsUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'ssl_check=1&token=x' });
    expect([ssl.status, await ssl.text()]).toEqual([200, '']);

    const elsewhere = await fetch(`${base()}/slack/install`);
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.json()).toMatchObject({ error: { code: 'not_found' } });
    expect((await fetch(rig.eventsUrl)).status).toBe(404);

    const malformed = '{"type":';
    const bad = await fetch(rig.eventsUrl, { method: 'POST', headers: signedHeaders(malformed, { secret: SIGNING_SECRET }, 'application/json'), body: malformed });
    expect(bad.status).toBe(400);

    const unsigned = await fetch(rig.eventsUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(eventBody(mention('no signature'))) });
    expect(unsigned.status).toBe(401);
    await new Promise((r) => setTimeout(r, 50));
    expect(rig.llm.requestsTo('/chat/completions')).toHaveLength(0);
    expect(rig.h.logs.lines.some((l) => l.component === 'ingress' && l.msg === 'slack request rejected' && l.status === 401)).toBe(true);
    // The signing secret never reaches a log line.
    expect(rig.h.logs.text()).not.toContain(SIGNING_SECRET);
  });
});

describe('the rest of the HTTP server, through the ingress', () => {
  it('answers /healthz and POST /api/chat (JSON), with status and headers intact', async () => {
    const health = await fetch(`${base()}/healthz`);
    expect(health.status).toBe(200);
    expect(health.headers.get('content-type')).toMatch(/application\/json/);
    expect(await health.json()).toMatchObject({ ok: true });

    rig.llm.script({ text: 'Proxied answer.' });
    const res = await fetch(`${base()}/api/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'hi', userId: 'u-proxy' }) });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ response: 'Proxied answer.', threadId: expect.any(String) });

    const bad = await fetch(`${base()}/api/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'not json' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: 'bad_request' } });
    const missing = await fetch(`${base()}/nowhere`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 'not_found' } });
  });

  it('streams an SSE answer as it is produced, and a client that leaves ends the turn', async () => {
    const words = Array.from({ length: 12 }, (_, i) => `w${i}`).join(' ');
    rig.llm.script({ text: words, chunkDelayMs: 40 });
    const res = await fetch(`${base()}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ message: 'stream please' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    const arrivals: { at: number; text: string }[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      arrivals.push({ at: performance.now(), text: decoder.decode(value) });
    }
    const all = arrivals.map((a) => a.text).join('');
    expect(all).toContain('event: done');
    const firstDelta = arrivals.find((a) => a.text.includes('event: text_delta'))!;
    // Chunks arrive while the model is still writing (12 chunks 40 ms apart), not all at the end.
    expect(arrivals.at(-1)!.at - firstDelta.at).toBeGreaterThan(200);

    // A client that disconnects mid-answer: the main server sees it and the turn is cancelled.
    rig.llm.script({ text: Array.from({ length: 100 }, (_, i) => `slow${i}`).join(' '), chunkDelayMs: 50 });
    const abort = new AbortController();
    const slow = await fetch(`${base()}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ message: 'a long one', userId: 'u-leaves' }),
      signal: abort.signal,
    });
    const slowReader = slow.body!.getReader();
    let seen = '';
    while (!seen.includes('event: text_delta')) seen += decoder.decode((await slowReader.read()).value);
    abort.abort();
    await rig.slack.waitFor(() => rig.h.logs.lines.some((l) => l.msg === 'turn failed' && l.platform === 'http' && l.code === 'turn_timeout'), 'the abandoned turn to stop', 3_000);
  });
});

describe('the ingress thread’s life', () => {
  it('reports a thread that stops on its own, and closes cleanly on request', async () => {
    const adapter = createSlackAdapter(rig.h.sb)!;
    const exits: number[] = [];
    const ingress = await startIngress({
      app: createHttpApp({ agent: rig.h.sb.agent, log: rig.h.sb.log }),
      port: 0,
      host: '127.0.0.1',
      slack: adapter.ingress!,
      log: rig.h.sb.log,
      onExit: (code) => exits.push(code),
    });
    const exited = once(ingress.worker, 'exit');
    await ingress.worker.terminate();
    await exited;
    expect(exits).toEqual([1]);
    await ingress.close();

    const clean = await startIngress({ app: createHttpApp({ agent: rig.h.sb.agent, log: rig.h.sb.log }), port: 0, host: '127.0.0.1', slack: adapter.ingress!, log: rig.h.sb.log, onExit: (code) => exits.push(code) });
    await clean.close();
    expect(exits).toEqual([1]);
    await expect(fetch(`${clean.url}/healthz`)).rejects.toThrow();
  });

  it('fails to start with a clear message when the port is taken', async () => {
    const port = Number(new URL(base()).port);
    const adapter = createSlackAdapter(rig.h.sb)!;
    await expect(
      startIngress({ app: createHttpApp({ agent: rig.h.sb.agent, log: rig.h.sb.log }), port, host: '127.0.0.1', slack: adapter.ingress!, log: rig.h.sb.log }),
    ).rejects.toThrow(/could not listen on 127\.0\.0\.1:\d+: .*EADDRINUSE/);
  });
});
