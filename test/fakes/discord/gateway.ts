/**
 * The fake Discord gateway: a WebSocket server speaking gateway v10 with JSON encoding and
 * no compression. HELLO on connect; IDENTIFY → READY then one GUILD_CREATE per guild;
 * HEARTBEAT → HEARTBEAT_ACK; every dispatch carries the session's next sequence number and is
 * kept, so a RESUME replays what the client missed and ends with RESUMED. Tests can ask the
 * client to RECONNECT (op 7) or drop the connection without a close frame.
 *
 * Sharding as Discord does it: IDENTIFY's `shard: [id, count]` decides what a session gets:
 * READY and GUILD_CREATE for the guilds with `(guild_id >> 22) % count === id`, and only those
 * guilds' events; events without a guild (DMs) go to shard 0. A shard id outside the count is
 * closed with 4010 (Invalid shard).
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { GatewayIntentBits, GatewayOpcodes } from 'discord.js';
import { WebSocket, WebSocketServer } from 'ws';
import { snowflake } from './payloads.js';

export interface GatewayOptions {
  token: string;
  heartbeatIntervalMs?: number;
  /** When false, identifying with the MessageContent intent is refused (close 4014), as for an app without it enabled. */
  messageContentAllowed?: boolean;
  ready: () => { user: unknown; application: { id: string; flags: number }; guilds: { id: string }[] };
  guildCreate: (guildId: string) => unknown;
}

/** The shard a guild's events go to, as Discord computes it. */
export const shardOf = (guildId: string | undefined, count: number): number =>
  guildId ? Number((BigInt(guildId) >> 22n) % BigInt(count)) : 0;

export interface GatewaySession {
  id: string;
  /** [shard id, shard count] from IDENTIFY. */
  shard: [number, number];
  /** performance.now() when IDENTIFY arrived. */
  identifiedAt: number;
  intents: number;
  /** Last sequence number used. */
  seq: number;
  events: { s: number; t: string; d: unknown; sentAt?: number }[];
  socket: WebSocket | undefined;
  identifies: number;
  resumes: number;
}

export interface FakeGateway {
  readonly url: string;
  readonly sessions: GatewaySession[];
  /** Counts of what clients sent, by opcode name. */
  readonly received: Record<string, number>;
  /** Sends an event to every session (each with its own sequence); returns when each was written, by session id. */
  dispatch(t: string, d: unknown): Map<string, number>;
  /** Asks every connected client to reconnect and resume (op 7). `redeliver`: as for dropConnections. */
  requestReconnect(opts?: { redeliver?: number }): void;
  /** Cuts every connection without a close frame (the client sees 1006 and resumes). `redeliver` re-sends that many already-delivered events on resume. */
  dropConnections(opts?: { redeliver?: number }): void;
  /** Resolves when `count` sessions are attached and ready (after IDENTIFY or RESUME). */
  waitForReady(count?: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const MESSAGE_CONTENT = GatewayIntentBits.MessageContent;

export function attachGateway(server: Server, baseUrl: string, opts: GatewayOptions): FakeGateway {
  const wss = new WebSocketServer({ noServer: true });
  const sessions: GatewaySession[] = [];
  const received: Record<string, number> = {};
  const redeliverNext = new Map<GatewaySession, number>();
  const readyWaiters = new Set<() => void>();

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!req.url?.startsWith('/gateway')) return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => connect(ws, req.url ?? ''));
  };
  server.on('upgrade', onUpgrade);

  const send = (ws: WebSocket, payload: object) => {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(payload));
  };
  const isLive = (s: GatewaySession) => s.socket !== undefined && s.socket.readyState === WebSocket.OPEN;
  const notifyReady = () => readyWaiters.forEach((w) => w());

  function deliver(session: GatewaySession, event: GatewaySession['events'][number]): void {
    event.sentAt = performance.now();
    send(session.socket!, { op: GatewayOpcodes.Dispatch, s: event.s, t: event.t, d: event.d });
  }

  function record(session: GatewaySession, t: string, d: unknown) {
    const event: GatewaySession['events'][number] = { s: ++session.seq, t, d };
    session.events.push(event);
    return event;
  }

  function connect(ws: WebSocket, url: string): void {
    const params = new URL(url, 'ws://x').searchParams;
    if (params.get('encoding') !== 'json' || params.has('compress')) {
      ws.close(4002, 'This fake speaks JSON without compression only');
      return;
    }
    send(ws, { op: GatewayOpcodes.Hello, d: { heartbeat_interval: opts.heartbeatIntervalMs ?? 41_250 } });
    let session: GatewaySession | undefined;
    ws.on('message', (raw) => {
      const payload = JSON.parse(String(raw)) as { op: number; d: Record<string, unknown> | number | null };
      const name = GatewayOpcodes[payload.op] ?? `op${payload.op}`;
      received[name] = (received[name] ?? 0) + 1;
      const d = (payload.d ?? {}) as Record<string, unknown>;
      switch (payload.op) {
        case GatewayOpcodes.Heartbeat:
          send(ws, { op: GatewayOpcodes.HeartbeatAck });
          break;
        case GatewayOpcodes.Identify: {
          if (session) return ws.close(4005, 'Already authenticated');
          if (d.token !== opts.token) return ws.close(4004, 'Authentication failed');
          const intents = Number(d.intents);
          if (opts.messageContentAllowed === false && (intents & MESSAGE_CONTENT) !== 0)
            return ws.close(4014, 'Disallowed intent(s)');
          const shard = (Array.isArray(d.shard) ? d.shard.map(Number) : [0, 1]) as [number, number];
          if (!(shard[1] >= 1 && shard[0] >= 0 && shard[0] < shard[1])) return ws.close(4010, 'Invalid shard');
          session = {
            id: snowflake(),
            shard,
            identifiedAt: performance.now(),
            intents,
            seq: 0,
            events: [],
            socket: ws,
            identifies: 1,
            resumes: 0,
          };
          sessions.push(session);
          const ready = opts.ready();
          const guilds = ready.guilds.filter((g) => shardOf(g.id, shard[1]) === shard[0]);
          deliver(
            session,
            record(session, 'READY', {
              v: 10,
              ...ready,
              guilds: guilds.map((g) => ({ id: g.id, unavailable: true })),
              session_id: session.id,
              resume_gateway_url: `${baseUrl}/gateway-resume`,
              shard,
              session_type: 'normal',
              private_channels: [],
              presences: [],
              relationships: [],
              user_settings: {},
              guild_join_requests: [],
              geo_ordered_rtc_regions: [],
              auth_session_id_hash: 'fake',
              _trace: ['fake-gateway'],
            }),
          );
          for (const g of guilds) deliver(session, record(session, 'GUILD_CREATE', opts.guildCreate(g.id)));
          notifyReady();
          break;
        }
        case GatewayOpcodes.Resume: {
          const found = sessions.find((s) => s.id === d.session_id);
          if (!found || d.token !== opts.token) {
            send(ws, { op: GatewayOpcodes.InvalidSession, d: false });
            return;
          }
          session = found;
          session.socket = ws;
          session.resumes++;
          const back = redeliverNext.get(session) ?? 0;
          redeliverNext.delete(session);
          const from = Math.max(0, Number(d.seq) - back);
          for (const event of session.events.filter((e) => e.s > from && e.t !== 'READY')) deliver(session, event);
          deliver(session, record(session, 'RESUMED', null));
          notifyReady();
          break;
        }
        default:
          break;
      }
    });
    ws.on('close', () => {
      if (session?.socket === ws) session.socket = undefined;
    });
  }

  return {
    url: `${baseUrl}/gateway`,
    sessions,
    received,
    dispatch(t, d) {
      const sent = new Map<string, number>();
      const guildId = (d as { guild_id?: string } | null)?.guild_id;
      for (const s of sessions) {
        if (shardOf(guildId, s.shard[1]) !== s.shard[0]) continue;
        const event = record(s, t, d);
        if (isLive(s)) {
          deliver(s, event);
          sent.set(s.id, event.sentAt!);
        }
      }
      return sent;
    },
    requestReconnect(o = {}) {
      for (const s of sessions) {
        if (!isLive(s)) continue;
        if (o.redeliver) redeliverNext.set(s, o.redeliver);
        send(s.socket!, { op: GatewayOpcodes.Reconnect, d: null });
      }
    },
    dropConnections(o = {}) {
      for (const s of sessions) {
        if (o.redeliver) redeliverNext.set(s, o.redeliver);
        s.socket?.terminate();
        s.socket = undefined;
      }
    },
    async waitForReady(count = 1, timeoutMs = 10_000) {
      const ok = () => sessions.filter(isLive).length >= count;
      if (ok()) return;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          readyWaiters.delete(check);
          reject(new Error(`gateway: ${sessions.filter(isLive).length}/${count} sessions ready after ${timeoutMs} ms`));
        }, timeoutMs);
        const check = () => {
          if (!ok()) return;
          clearTimeout(timer);
          readyWaiters.delete(check);
          resolve();
        };
        readyWaiters.add(check);
      });
    },
    async close() {
      server.off('upgrade', onUpgrade);
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
