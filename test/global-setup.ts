import { Redis } from 'ioredis';

/**
 * The suite's Redis keys live in a logical database of their own (1-15), claimed for this run
 * and emptied when it ends: a full run used to leave ~1,000 keys behind in database 0 (BullMQ
 * jobs of the tests' queues, some without expiry). Two runs at once on one Redis claim two
 * databases; with none free the run uses TEST_REDIS_URL as given, with a warning.
 */
const CLAIM_TTL_SECONDS = 3 * 3_600;
let claimed: { base: string; db: number; key: string } | undefined;

export async function setup(): Promise<void> {
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
