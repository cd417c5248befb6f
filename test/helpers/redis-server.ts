import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { freePort } from './free-port.js';

/**
 * A redis-server of the test's own on a free loopback port (never the machine's shared one), no
 * persistence: a test may stop and restart it. Needs `redis-server` on the PATH.
 */
export interface OwnRedis {
  readonly url: string;
  /** Stops the server (SIGTERM: clients see the connection close) and resolves once it exited. */
  stop(): Promise<void>;
  /** Starts it again on the same port, resolved once it accepts connections. */
  start(): Promise<void>;
}

/** `extraArgs`: more redis-server options (e.g. `--maxmemory-policy allkeys-lru`). */
export async function startOwnRedis(extraArgs: string[] = []): Promise<OwnRedis> {
  const port = await freePort();
  let proc: ChildProcess | undefined;
  const start = async () => {
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...extraArgs],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    proc = child;
    let out = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('Ready to accept connections')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`redis-server exited (${code}) before it was ready:\n${out}`)));
    });
    child.stdout!.resume();
  };
  const stop = async () => {
    const child = proc;
    proc = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, stop, start };
}

/** Whether `redis-server` can be run here (suites that need their own server skip, out loud, without it). */
export function canRunRedisServer(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}
