import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of a real service (Postgres, Redis), so a test can make the
 * service "go away" (`down()`: connections cut, port closed) and come back (`up()`, same port)
 * without touching the shared server other tests use.
 */
export interface TcpProxy {
  port: number;
  url(scheme: string, path?: string): string;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = async () => {
    const srv = createServer((client) => {
      const upstream = connect(targetPort, targetHost);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => srv.listen(port, '127.0.0.1', () => resolve()));
    port = (srv.address() as { port: number }).port;
    server = srv;
  };
  const down = async () => {
    for (const s of sockets) s.destroy();
    sockets.clear();
    const srv = server;
    server = undefined;
    if (srv) await new Promise((resolve) => srv.close(resolve));
  };
  await listen();
  return {
    get port() {
      return port;
    },
    url: (scheme, path = '') => `${scheme}://127.0.0.1:${port}${path}`,
    down,
    up: listen,
    close: down,
  };
}
