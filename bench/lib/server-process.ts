/**
 * Switchboard in a child process, as an operator starts it, for the benchmarks that time its
 * start-up or read its memory from outside (bench/startup.ts, bench/footprint.ts).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * What `npm start` runs, read from package.json (`MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2} exec
 * node --import tsx src/main.ts`): the arguments after `node`, and the variables the script
 * sets (a `${NAME:-default}` takes this process's value when set, as the shell would). Run
 * directly rather than through npm, whose own process (about 50 MB) is not Switchboard's.
 */
export function npmStart(): { args: string[]; env: Record<string, string> } {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    scripts: { start: string };
  };
  const words = pkg.scripts.start.trim().split(/\s+/);
  const env: Record<string, string> = {};
  for (let m; words[0] && (m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(words[0])); words.shift()) {
    const [, name, value] = m as unknown as [string, string, string];
    const fallback = /^\$\{([A-Z_][A-Z0-9_]*):-(.*)\}$/.exec(value);
    env[name] = fallback ? (process.env[fallback[1]!] ?? fallback[2]!) : value;
  }
  if (words[0] === 'exec') words.shift();
  if (words[0] !== 'node') throw new Error(`npm start does not run node: "${pkg.scripts.start}"`);
  return { args: words.slice(1), env };
}

/** The variables the Docker image sets that change how the process runs (the Dockerfile's `ENV` lines). */
export function imageEnv(): Record<string, string> {
  const dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('FROM '));
  const env: Record<string, string> = {};
  for (const line of runtime.split('\n').filter((l) => l.startsWith('ENV ')))
    for (const [, name, value] of line.slice(4).matchAll(/([A-Z_][A-Z0-9_]*)=(\S+)/g)) env[name!] = value!;
  // The image's port and data directory are its own; a bench sets those itself.
  return Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith('MALLOC_')));
}

export interface RunningServer {
  child: ChildProcess;
  url: string;
  /** From spawning the process to the first 200 from /readyz. */
  readyMs: number;
  stop(): Promise<void>;
}

/**
 * Spawns `node <args>` with the environment a quiet local start needs plus `env`, and waits for
 * /readyz to answer 200. Settings not given are cleared, so the developer's own .env or shell
 * does not choose the database or Redis.
 */
export async function startServer(args: string[], env: Record<string, string>): Promise<RunningServer> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    env: {
      ...process.env,
      OPENAI_API_KEY: 'sk-bench',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      SUPABASE_URL: '',
      REDIS_URL: '',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) return { child, url: `http://127.0.0.1:${port}`, readyMs: performance.now() - started, stop };
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } catch (err) {
    await stop();
    throw err;
  }
}

/** A process's resident set in bytes: /proc on Linux, else `ps`. */
export function rssOf(pid: number): number {
  const status = `/proc/${pid}/status`;
  if (existsSync(status)) {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(status, 'utf8'))?.[1];
    if (kb) return Number(kb) * 1024;
  }
  return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) * 1024;
}
