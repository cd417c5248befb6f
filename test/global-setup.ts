import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { loadMigrations, SCHEMA_VERSION } from '../src/data/migrate.js';
import { installedPgliteVersion } from '../src/data/transports/pglite-template.js';
import { buildTemplate } from '../src/data/transports/pglite-template-build.js';
import { HARNESS_DIMENSIONS, TEST_DIMENSIONS, templateEnvName } from './helpers/template-env.js';

/**
 * The suite's Redis keys live in a logical database of their own (1-15), claimed for this run
 * and emptied when it ends: a full run used to leave ~1,000 keys behind in database 0 (BullMQ
 * jobs of the tests' queues, some without expiry). Two runs at once on one Redis claim two
 * databases; with none free the run uses TEST_REDIS_URL as given, with a warning.
 */
const CLAIM_TTL_SECONDS = 3 * 3_600;
let claimed: { base: string; db: number; key: string } | undefined;

export async function setup(): Promise<void> {
  await Promise.all([testTemplate(TEST_DIMENSIONS), testTemplate(HARNESS_DIMENSIONS)]);
  const base = process.env.TEST_REDIS_URL?.trim();
  if (!base || new URL(base).pathname.replace('/', '') !== '') return;
  const admin = new Redis(base, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await admin.connect();
    for (let db = 1; db <= 15; db++) {
      const key = `switchboard-test:db:${db}`;
      if ((await admin.set(key, String(process.pid), 'EX', CLAIM_TTL_SECONDS, 'NX')) !== 'OK') continue;
      claimed = { base, db, key };
      const url = new URL(base);
      url.pathname = `/${db}`;
      process.env.TEST_REDIS_URL = url.toString();
      await flush(url.toString()); // whatever a crashed run left there
      return;
    }
    console.warn('[global-setup] no free Redis database 1-15: the tests use TEST_REDIS_URL as given');
  } finally {
    admin.disconnect();
  }
}

export async function teardown(): Promise<void> {
  if (!claimed) return;
  await flush(process.env.TEST_REDIS_URL!);
  const admin = new Redis(claimed.base, { maxRetriesPerRequest: 1 });
  try {
    await admin.del(claimed.key);
  } finally {
    admin.disconnect();
  }
}

async function flush(url: string): Promise<void> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    await client.flushdb();
  } finally {
    client.disconnect();
  }
}

/**
 * The suite's embedded databases use small embedding dimensions, which the built-in template
 * (assets/, the default 1536) does not fit: each would run initdb and every migration, some 5 s of
 * CPU per test file. One template per dimension is built per machine and set of migrations (keyed
 * by their text), and named to the workers in an environment variable (test/helpers/template-env.ts).
 */
async function testTemplate(dimensions: number): Promise<void> {
  const migrations = createHash('sha256');
  for (const m of loadMigrations()) migrations.update(m.version).update(m.sql);
  const key = `${installedPgliteVersion()}-${SCHEMA_VERSION}-${dimensions}-${migrations.digest('hex').slice(0, 12)}`;
  const dir = join(tmpdir(), `switchboard-test-template-${key}`);
  if (!existsSync(join(dir, 'pglite-template.json'))) {
    const staging = `${dir}.${process.pid}`;
    await buildTemplate(staging, dimensions);
    // Another run may have finished the same template meanwhile: either copy serves.
    await rename(staging, dir).catch(() => rm(staging, { recursive: true, force: true }));
  }
  process.env[templateEnvName(dimensions)] = dir;
}
