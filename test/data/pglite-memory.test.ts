/**
 * The embedded database's buffer cache (PGLITE_SHARED_BUFFERS): PGlite 0.3 builds
 * `shared_buffers=128MB` into its binary and that memory is resident from the first query, so
 * Switchboard starts it with 16 MB unless told otherwise. Postgres itself reports the setting.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { openDataPort, warnUnlessSharedBuffers } from '../../src/data/index.js';
import { captureLogs } from '../helpers/harness.js';
import { DEFAULT_SHARED_BUFFERS, openPglite } from '../../src/data/transports/pglite.js';
import { silentLogger } from '../../src/logger.js';

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
  it('is 16MB by default, not the 128MB PGlite builds in', async () => {
    expect(DEFAULT_SHARED_BUFFERS).toBe('16MB');
    expect(await sharedBuffers()).toBe('16MB');
  });

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
  });

  it('takes another size, including PGlite’s own 128MB', async () => {
    expect(await sharedBuffers({ sharedBuffers: '32MB' })).toBe('32MB');
    expect(await sharedBuffers({ sharedBuffers: '128MB' })).toBe('128MB');
  });

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
  });

  it('refuses a size that does not fit in place of 128MB', () => {
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
    expect(parseConfig({ OPENAI_API_KEY: 'sk-test' }).PGLITE_SHARED_BUFFERS).toBe('16MB');
  });
});
