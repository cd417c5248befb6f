import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { Hono } from 'hono';
import { ConfigError } from '../../config/index.js';

/** A Node request handler mounted under a path prefix (Slack's Bolt receiver wants raw req/res). */
export interface NodeRoute {
  prefix: string;
  handle: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;
}

export interface RunningServer {
  server: Server;
  url: string;
  /** Stops accepting; requests in flight get up to `graceMs` to finish, then are cut. */
  close(graceMs?: number): Promise<void>;
}

/** One HTTP server for the API and the platform webhooks, on one port. */
export async function startHttpServer(
  app: Hono,
  port: number,
  host: string,
  routes: NodeRoute[] = [],
): Promise<RunningServer> {
  const honoListener = getRequestListener(app.fetch);
  const server = createServer((req, res) => {
    const route = routes.find((r) => req.url?.startsWith(r.prefix));
    void (route ? route.handle(req, res) : honoListener(req, res));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE')
        reject(
          new ConfigError([
            `PORT: ${port} is already in use on ${host}; stop what is listening there or choose another PORT`,
          ]),
        );
      else if (err.code === 'EACCES')
        reject(
          new ConfigError([
            `PORT: ${port} on ${host} needs privileges this process does not have; choose a PORT above 1023`,
          ]),
        );
      else reject(err);
    });
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return {
    server,
    url: `http://${shownHost}:${bound}`,
    close: (graceMs = 0) =>
      new Promise<void>((resolve) => {
        const cut = setTimeout(() => server.closeAllConnections(), graceMs);
        server.close(() => {
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections();
        if (graceMs <= 0) server.closeAllConnections();
      }),
  };
}
