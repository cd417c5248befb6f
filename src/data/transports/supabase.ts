import { createClient, type WebSocketLikeConstructor } from '@supabase/supabase-js';
import { TransportError, type Transport } from './types.js';

/**
 * supabase-js builds a Realtime client eagerly and, on Node < 22 (no global WebSocket),
 * throws unless it is handed a WebSocket class. Switchboard never subscribes to
 * Realtime, so it gets a class that refuses to connect if anything ever tried.
 */
class NoRealtime {
  constructor() {
    throw new Error('Supabase Realtime is not used by Switchboard');
  }
}

/**
 * Supabase through supabase-js: every catalogued function is a PostgREST RPC
 * (`POST /rest/v1/rpc/<fn>` with the `p_`-named arguments as the JSON body).
 */
export function openSupabase(url: string, serviceRoleKey: string, fetchImpl?: typeof fetch): Transport {
  const client = createClient(url, serviceRoleKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: NoRealtime as unknown as WebSocketLikeConstructor },
    global: fetchImpl ? { fetch: fetchImpl } : {},
  });
  return {
    kind: 'supabase',
    async rpc(fn, args, opts) {
      // `unbounded` cannot be honoured here: PostgREST applies the role's statement timeout.
      const body: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(args)) if (value !== undefined) body[`p_${name}`] = value;
      const { data, error } = await client.rpc(fn, body);
      if (error) {
        throw new TransportError(error.code || undefined, error.message || 'Supabase RPC failed', { cause: error });
      }
      if (opts?.discardRows) return [];
      if (!Array.isArray(data)) throw new TransportError(undefined, `${fn} did not return rows`);
      return data as unknown[];
    },
    async close() {
      await client.removeAllChannels();
    },
  };
}
