/** A replica that records a posted message for its entry and then hangs, to be killed with SIGKILL by inbox.test.ts. */
import { silentLogger } from '../../src/telemetry/logger.js';
import { createRedisInbox } from '../../src/inbox/redis-inbox.js';

const inbox = await createRedisInbox(process.env.REDIS_URL!, silentLogger(), {
  prefix: 'sbtest',
  queue: process.env.INBOX_QUEUE!,
  leaseMs: 1_500,
});
inbox.deliver('test', async (d) => {
  await d.record('post:111.222');
  process.stdout.write('recorded\n');
  await new Promise(() => undefined); // mid-turn, forever
});
await inbox.add({
  id: 'doomed',
  platform: 'test',
  thread: 'doomed-thread',
  payload: { text: 'answer me' },
  receivedAt: Date.now(),
});
await inbox.start();
