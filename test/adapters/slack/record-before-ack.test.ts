/**
 * Record before you acknowledge: while the inbox's Redis is unreachable Slack gets no 200, so
 * it retries; once Redis is back the retry is recorded and answered, once. Redis sits behind
 * a loopback TCP proxy the test cuts; the app runs as `npm start` runs it (`serve()`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/telemetry/logger.js';
import { serve, type Serving } from '../../../src/wiring/serve.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.js';
import { postEvent } from '../../fakes/slack/signing.js';
import { startFakeSlack, type FakeSlack } from '../../fakes/slack/web-api.js';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.js';
import { serveConfig } from '../../helpers/harness.js';
import { inboxIdle } from '../../helpers/inbox-idle.js';
import { testTools } from '../../helpers/test-tools.js';
import { eventBody, freshTs, mention } from './setup.js';

const REDIS_URL = process.env.TEST_REDIS_URL;
if (!REDIS_URL) console.warn('[record-before-ack] TEST_REDIS_URL is not set: SKIPPED');

describe.skipIf(!REDIS_URL)('Slack over HTTP with the Redis inbox down', () => {
  const secret = 'rba-signing-secret';
  let llm: FakeOpenAI;
  let slack: FakeSlack;
  let proxy: TcpProxy;
  let app: Serving;
  beforeAll(async () => {
    llm = await startFakeOpenAI();
    slack = await startFakeSlack({ botUserId: 'U00FAKEBOT01' });
    proxy = await startTcpProxy(Number(new URL(REDIS_URL!).port || 6379));
    const config = serveConfig(llm.url, {
      REDIS_URL: proxy.url('redis'),
      INBOX_QUEUE: `rba${Date.now()}`,
      SLACK_BOT_TOKEN: slack.options.botToken,
      SLACK_SIGNING_SECRET: secret,
      SLACK_API_URL: slack.url,
    });
    app = await serve(config, silentLogger(), { tools: testTools });
  }, 60_000);
  afterAll(async () => {
    await app?.stop();
    await Promise.allSettled([proxy?.close(), slack?.close(), llm?.close()]);
  });

  it('answers 500 instead of acking what it could not record, then answers the retry once', async () => {
    llm.script({ text: 'Recorded, then answered.' });
    const post = mention('are you there?', { ts: freshTs() });
    const body = eventBody(post);
    await proxy.down();
    const refused = await postEvent(`${app.url}/slack/events`, body, { secret });
    expect(refused.status).toBe(500);
    // Nothing was recorded, so nothing can run it: the model was never asked, the thread is empty.
    expect(llm.requestsTo('/chat/completions')).toHaveLength(0);
    expect(slack.threadReplies('C0CHAN1', post.ts)).toEqual([]);

    await proxy.up();
    // Slack retries with backoff; the inbox's connection comes back meanwhile.
    let status = 0;
    for (let retry = 1; retry <= 40 && status !== 200; retry++) {
      await new Promise((r) => setTimeout(r, 250));
      status = (
        await postEvent(`${app.url}/slack/events`, body, { secret, retryNum: retry, retryReason: 'http_error' })
      ).status;
    }
    expect(status).toBe(200);
    await slack.waitFor(() => slack.threadReplies('C0CHAN1', post.ts).length === 1, 'the answer', 15_000);
    // A further retry after the answer is a duplicate: still one answer.
    expect((await postEvent(`${app.url}/slack/events`, body, { secret, retryNum: 99 })).status).toBe(200);
    await inboxIdle(app.sb.inbox);
    expect(slack.threadReplies('C0CHAN1', post.ts).map((m) => m.text)).toEqual(['Recorded, then answered.']);
    expect(llm.requestsTo('/chat/completions')).toHaveLength(1);
  }, 40_000);
});
