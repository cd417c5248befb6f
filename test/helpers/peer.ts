/**
 * Bindings for an in-process `app.request(path, init, peer())`, as @hono/node-server passes them:
 * the request looks as if it came over a socket from `address` (loopback by default). Without
 * them a request has no address and `/api/*` is closed to it, as to any stranger.
 */
export function peer(address = '127.0.0.1') {
  return { incoming: { socket: { remoteAddress: address } } };
}
