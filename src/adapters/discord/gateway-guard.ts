import { Events, type Client } from 'discord.js';
import type { Logger } from '../../telemetry/logger.js';

/**
 * One odd gateway event must never stop the process (and with it Slack and the HTTP API).
 *
 * discord.js builds its structures from a dispatch synchronously, inside the WebSocket's message
 * handler, so a field it takes for granted and Discord leaves out (an INTERACTION_CREATE without
 * `entitlements` throws in BaseInteraction's constructor) becomes an uncaught exception. Two
 * defences, both at the point where the client receives the packet:
 *  - `raw` (emitted with the packet object before discord.js handles it) fills in the fields
 *    Discord's own documentation shows as absent: `entitlements` (a list, empty) and the partial
 *    `channel` object of an interaction that carries only `channel_id` (discord.js reads the
 *    channel id from `channel?.id` alone);
 *  - the manager's packet handler runs inside a try/catch: a packet it still cannot build is
 *    dropped with a warning instead of ending the process.
 */
export function guardGateway(client: Client, log: Logger): void {
  client.on(Events.Raw, (packet: unknown) => repairDispatch(packet));
  // handlePacket is discord.js's (private) entry for every dispatch; absent in another major
  // version, the raw repair still holds and the process-wide handler in main.ts is the last line.
  const ws = client.ws as unknown as { handlePacket?: (packet?: GatewayPacket, shard?: unknown) => boolean };
  const handle = ws.handlePacket;
  if (typeof handle !== 'function') {
    log.warn('discord.js has no handlePacket to guard; a malformed gateway event may stop the process');
    return;
  }
  ws.handlePacket = function guardedHandlePacket(packet, shard) {
    try {
      return handle.call(this, packet, shard);
    } catch (err) {
      log.warn(
        { code: 'discord_event_malformed', event: packet?.t, err: errorName(err) },
        'discord: a gateway event discord.js could not read was dropped',
      );
      return true;
    }
  };
}

interface GatewayPacket {
  t?: string | null;
  d?: unknown;
}

/** Fills in, in place, the fields of a dispatch that Discord may omit and discord.js requires. */
export function repairDispatch(packet: unknown): void {
  if (!isRecord(packet) || packet.t !== 'INTERACTION_CREATE' || !isRecord(packet.d)) return;
  const d = packet.d;
  if (!Array.isArray(d.entitlements)) d.entitlements = [];
  if (!isRecord(d.channel) && typeof d.channel_id === 'string') {
    // A partial channel: its type is the one fact a guild id tells (a thread reads as a text
    // channel; the reply still goes to the channel the interaction came from).
    d.channel = { id: d.channel_id, type: typeof d.guild_id === 'string' ? 0 : 1 };
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The class and message of an error (no stack at warn level). */
function errorName(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
