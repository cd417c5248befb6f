/**
 * The embedded database's buffer cache (PGLITE_SHARED_BUFFERS): PGlite starts Postgres with
 * `shared_buffers=128MB` and that memory is resident from the first query, so Switchboard starts
 * it with 16 MB unless told otherwise (4 MB in memory, where the data files are in the process
 * already), on Postgres's command line. Postgres itself reports the setting.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { openDataPort, warnUnlessSharedBuffers } from '../../src/data/index.js';
import { captureLogs } from '../helpers/harness.js';
import { openPglite, sharedBuffersFor } from '../../src/data/transports/pglite.js';
import { silentLogger } from '../../src/telemetry/logger.js';

const work = mkdtempSync(join(tmpdir(), 'sb-pglite-memory-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function sharedBuffers(opts?: { sharedBuffers?: string }): Promise<string> {
  const sql = await openPglite(undefined, opts);
  try {
    const [row] = await sql.query('show shared_buffers');
    return String(row?.shared_buffers);
  } finally {
    await sql.close();
  }
}

describe('the embedded database buffer cache', () => {
  it('is 16MB on disk and 4MB in memory by default, not the 128MB PGlite builds in', async () => {
    expect(await sharedBuffers()).toBe('4MB');
    const onDisk = await openPglite(join(work, 'default'));
    try {
      expect(await onDisk.query('show shared_buffers')).toEqual([{ shared_buffers: '16MB' }]);
    } finally {
      await onDisk.close();
    }
    // From the settings: unset (or empty, as .env.example leaves it) takes the default for where the files live.
    const setting = (value: string) =>
      parseConfig({ OPENAI_API_KEY: 'sk-test', PGLITE_SHARED_BUFFERS: value }).PGLITE_SHARED_BUFFERS;
    expect(sharedBuffersFor(setting(''), true)).toBe('4MB');
    expect(sharedBuffersFor(setting(''), false)).toBe('16MB');
    expect(sharedBuffersFor(setting('16MB'), true)).toBe('16MB');
    // The app's own start reads it back and finds what it asked for (no warning).
    const { log, logs } = captureLogs();
    const port = await openDataPort(parseConfig({ OPENAI_API_KEY: 'sk-test', PGLITE_MEMORY: '1' }), log, {
      seedDemo: false,
    });
    await port.close();
    expect(logs.lines.filter((l) => String(l.msg).includes('PGLITE_SHARED_BUFFERS not applied'))).toEqual([]);
  }, 120_000);

  it('is checked at start: a build that did not take the setting is said at warn, not silent', async () => {
    const sql = await openPglite(undefined, { sharedBuffers: '128MB' });
    try {
      const { log, logs } = captureLogs();
      await warnUnlessSharedBuffers(sql, '16MB', log);
      await warnUnlessSharedBuffers(sql, '128MB', log);
      expect(logs.lines).toHaveLength(1);
      expect(logs.lines[0]).toMatchObject({ level: 40, wanted: '16MB', actual: '128MB' });
    } finally {
      await sql.close();
    }
  }, 120_000);

  it('takes another size, including PGlite’s own 128MB', async () => {
    expect(await sharedBuffers({ sharedBuffers: '32MB' })).toBe('32MB');
    expect(await sharedBuffers({ sharedBuffers: '128MB' })).toBe('128MB');
  }, 120_000);

  it('is set from PGLITE_SHARED_BUFFERS on a database on disk, which keeps its data across starts', async () => {
    const config = parseConfig({
      OPENAI_API_KEY: 'sk-test',
      PGLITE_DIR: join(work, 'db'),
      PGLITE_SHARED_BUFFERS: '8MB',
    });
    const first = await openDataPort(config, silentLogger());
    const tenant = await first.defaultTenant();
    await first.close();
    const again = await openDataPort(config, silentLogger(), { seedDemo: false });
    try {
      expect((await again.defaultTenant()).id).toBe(tenant.id);
    } finally {
      await again.close();
    }
    const sql = await openPglite(join(work, 'db'), { sharedBuffers: config.PGLITE_SHARED_BUFFERS });
    try {
      expect((await sql.query('show shared_buffers'))[0]?.shared_buffers).toBe('8MB');
    } finally {
      await sql.close();
    }
  }, 120_000);

  it('refuses a size outside 1MB–999MB', () => {
    expect(() => parseConfig({ OPENAI_API_KEY: 'sk-test', PGLITE_SHARED_BUFFERS: '1024MB' })).toThrow(
      /PGLITE_SHARED_BUFFERS/,
    );
    expect(() => parseConfig({ OPENAI_API_KEY: 'sk-test', PGLITE_SHARED_BUFFERS: '512kB' })).toThrow(
      /PGLITE_SHARED_BUFFERS/,
    );
    // Over WebAssembly's 2 GB of memory.
    expect(() => parseConfig({ OPENAI_API_KEY: 'sk-test', PGLITE_SHARED_BUFFERS: '4GB' })).toThrow(
      /PGLITE_SHARED_BUFFERS/,
    );
    expect(parseConfig({ OPENAI_API_KEY: 'sk-test' }).PGLITE_SHARED_BUFFERS).toBeUndefined();
  });
});
