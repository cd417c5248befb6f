import { execFile, spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';

const run = promisify(execFile);

/**
 * A PostgreSQL server of the test's own (initdb in a temporary directory, a free loopback port),
 * never the machine's shared one: a test may stop it (`fast`: sessions get 57P01, new connections
 * are refused) and start it again ("starting up" 57P03 for a moment). Needs `initdb` and `pg_ctl`
 * on the PATH; as root they run as the `postgres` user (initdb refuses root).
 */
export interface OwnPostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  readonly url: string;
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  /** Stops it and removes its directory. */
  close(): Promise<void>;
}

const asRoot = () => userInfo().uid === 0;

/** Runs a PostgreSQL binary, as `postgres` when this process is root. */
async function pg(bin: string, args: string[]): Promise<void> {
  if (asRoot()) await run('runuser', ['-u', 'postgres', '--', bin, ...args]);
  else await run(bin, args);
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-pg-'));
  if (asRoot())
    chownSync(
      dir,
      Number(spawnSync('id', ['-u', 'postgres']).stdout),
      Number(spawnSync('id', ['-g', 'postgres']).stdout),
    );
  const data = join(dir, 'data');
  await pg('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
  const port = await freePort();
  // fsync off: the machine does not crash, so the OS's cache keeps what was written. Commits stay
  // synchronous: an `immediate` stop would lose the last asynchronous ones, as a crash does.
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off`;
  const start = () => pg('pg_ctl', ['-D', data, '-w', '-t', '30', '-l', join(dir, 'log'), '-o', options, 'start']);
  const stop = (mode: 'fast' | 'immediate' = 'fast') => pg('pg_ctl', ['-D', data, '-w', '-m', mode, 'stop']);
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    async close() {
      await stop('immediate').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether a PostgreSQL server of our own can be started here (suites that need one skip, out loud, without). */
export function canRunPostgres(): boolean {
  const ok = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
  return ok('initdb', ['--version']) && ok('pg_ctl', ['--version']) && (!asRoot() || ok('id', ['postgres']));
}
