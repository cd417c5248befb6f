/**
 * Slack's Socket Mode server side, on the fake's HTTP server: `apps.connections.open` hands out
 * `ws://…/link/?ticket=N`; each connection gets `hello`; envelopes (`events_api`,
 * `slash_commands`, `interactive`) go to the newest connection and wait for their ack
 * (`{ envelope_id, payload? }`); `disconnect` asks the client to reconnect, as Slack does
 * before it recycles a connection.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';

export type EnvelopeType = 'events_api' | 'slash_commands' | 'interactive';

export interface SocketAck {
  envelope_id: string;
  payload?: Record<string, unknown>;
}

export interface FakeSocketMode {
  /** The URL apps.connections.open returns next. */
  nextUrl(): string;
  /** Connections opened so far (reconnects included). */
  readonly connections: number;
  /** Open connections right now. */
  readonly open: number;
  readonly acks: SocketAck[];
  /** Sends an envelope (waiting for a connection if none is open) and resolves with its ack (rejects after `timeoutMs`). */
  deliver(
    type: EnvelopeType,
    payload: Record<string, unknown>,
    opts?: { retryAttempt?: number; retryReason?: string; timeoutMs?: number },
  ): Promise<SocketAck>;
  /** Sends `{type:'disconnect'}` to every open connection. */
  disconnect(reason?: string): void;
  waitForConnections(count: number, timeoutMs?: number): Promise<void>;
  close(): void;
}

export function attachSocketMode(server: Server, origin: string): FakeSocketMode {
  const wss = new WebSocketServer({ noServer: true });
  const live = new Set<WebSocket>();
  let newest: WebSocket | undefined;
  let connections = 0;
  let ticket = 0;
  const acks: SocketAck[] = [];
  const waiting = new Map<string, (ack: SocketAck) => void>();

  server.on('upgrade', (req, socket, head) => {
    if (!req.url?.startsWith('/link')) return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => {
      connections += 1;
      live.add(ws);
      newest = ws;
      ws.on('close', () => {
        live.delete(ws);
        if (newest === ws) newest = [...live].at(-1);
      });
      ws.on('message', (data) => {
        const ack = JSON.parse(String(data)) as SocketAck;
        acks.push(ack);
        waiting.get(ack.envelope_id)?.(ack);
        waiting.delete(ack.envelope_id);
      });
      ws.send(
        JSON.stringify({
          type: 'hello',
          num_connections: live.size,
          debug_info: { host: 'fake-socket', build_number: 1, approximate_connection_time: 18_060 },
          connection_info: { app_id: 'A0FAKEAPP' },
        }),
      );
    });
  });

  return {
    nextUrl: () => `${origin.replace(/^http/, 'ws')}/link/?ticket=${++ticket}&app_id=A0FAKEAPP`,
    get connections() {
      return connections;
    },
    get open() {
      return live.size;
    },
    acks,
    async deliver(type, payload, opts = {}) {
      // Between a dropped connection and the client's reconnect Slack holds the envelope, so the
      // fake waits for a connection too (within the same timeout as the ack).
      const deadline = Date.now() + (opts.timeoutMs ?? 3_000);
      while (!newest && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      const ws = newest;
      if (!ws) throw new Error(`no Socket Mode connection (${connections} opened so far, none open now)`);
      const envelope_id = randomUUID();
      const envelope = {
        envelope_id,
        type,
        payload,
        accepts_response_payload: type !== 'events_api',
        ...(type === 'events_api'
          ? { retry_attempt: opts.retryAttempt ?? 0, retry_reason: opts.retryReason ?? '' }
          : {}),
      };
      return new Promise<SocketAck>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(envelope_id);
          reject(new Error(`no ack for ${type} envelope within ${opts.timeoutMs ?? 3_000} ms`));
        }, opts.timeoutMs ?? 3_000);
        waiting.set(envelope_id, (ack) => {
          clearTimeout(timer);
          resolve(ack);
        });
        ws.send(JSON.stringify(envelope));
      });
    },
    disconnect(reason = 'refresh_requested') {
      for (const ws of live)
        ws.send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'fake-socket' } }));
    },
    async waitForConnections(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (connections < count || live.size === 0) {
        if (Date.now() > deadline) throw new Error(`expected ${count} Socket Mode connections, saw ${connections}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    close() {
      for (const ws of live) ws.terminate();
      wss.close();
    },
  };
}
