import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminDataPort } from '../../../src/data/index.js';
import { importRows } from '../../../src/data/import/run.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.js';
import { invalidBlockPayloads } from '../../fakes/slack/block-kit.js';
import { startFakeSlack, type FakeSlack } from '../../fakes/slack/web-api.js';
import { inboxIdle } from '../../helpers/inbox-idle.js';
import { BOT_USER, eventBody, fixture, mention, postEvent, sign, startSlackRig, type SlackRig } from './setup.js';

const REDIS_URL = process.env.TEST_REDIS_URL;

// One embedded database for the file: the replicas below share it with this rig.
let rig: SlackRig;

describe('Slack workspaces map to tenants (TENANT_MODE=strict)', () => {
  beforeAll(async () => {
    rig = await startSlackRig({ mode: 'http', env: { TENANT_MODE: 'strict' } });
    // The recorded multi-workspace mention comes from team T0A8YAUUGMU: map it through the data layer.
    const data = rig.h.sb.data as AdminDataPort;
    const tenant = await data.defaultTenant();
    await importRows(data, 'tenant_workspaces', tenant.id, [{ platform: 'slack', workspace_id: 'T0A8YAUUGMU' }]);
  });
  it('answers a mapped workspace and tells an unmapped one it is not set up, using no tenant’s data', async () => {
    const { mention: mapped } = fixture('slack-multi-workspace.team1.json');
    rig.llm.script({ text: 'Mapped and answered.' });
    await postEvent(rig.eventsUrl, mapped!, sign());
    await rig.delivered(1);
    const mappedTs = (mapped!.event as { ts: string }).ts;
    expect(rig.slack.threadReplies('C0A9D9RTBMF', mappedTs).map((m) => m.text)).toEqual(['Mapped and answered.']);

    const stranger = mention('who are you?');
    await postEvent(rig.eventsUrl, eventBody(stranger, { team: 'T0STRANGER' }), sign());
    await rig.delivered(2);
    const [notice] = rig.slack.threadReplies('C0CHAN1', stranger.ts);
    expect(notice!.text).toMatch(/workspace is not set up/);
    expect(rig.llm.requestsTo('/chat/completions')).toHaveLength(1);
    expect(rig.h.logs.lines.some((l) => l.msg === 'turn failed' && l.code === 'tenant_not_configured')).toBe(true);
    expect(invalidBlockPayloads(rig.slack)).toEqual([]);
  });
});

describe.skipIf(!REDIS_URL)('two replicas sharing Redis', () => {
  let llm: FakeOpenAI;
  let slack: FakeSlack;
  let a: SlackRig;
  let b: SlackRig;
  beforeAll(async () => {
    llm = await startFakeOpenAI();
    slack = await startFakeSlack({ botUserId: BOT_USER });
    a = await startSlackRig({ mode: 'http', llm, slack, data: rig.h.sb.data, env: { REDIS_URL: REDIS_URL! } });
    b = await startSlackRig({ mode: 'http', llm, slack, data: rig.h.sb.data, env: { REDIS_URL: REDIS_URL! } });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await slack?.close();
    await llm?.close();
  });

  it('replies once when a retry and the twin event land on different replicas', async () => {
    llm.script({ text: 'One answer.' }); // strict: a second answer would be a call past the script
    const post = mention('replicas?');
    const first = eventBody(post);
    await Promise.all([
      postEvent(a.eventsUrl, first, sign()),
      postEvent(b.eventsUrl, first, sign({ retryNum: 1 })),
      postEvent(b.eventsUrl, eventBody({ ...post, type: 'message', channel_type: 'channel' }), sign()),
    ]);
    await slack.waitFor(() => a.deliveredCount() + b.deliveredCount() >= 1, 'one delivered turn');
    await Promise.all([inboxIdle(a.h.sb.inbox), inboxIdle(b.h.sb.inbox)]);
    expect(a.deliveredCount() + b.deliveredCount()).toBe(1);
    expect(slack.threadReplies('C0CHAN1', post.ts).map((m) => m.text)).toEqual(['One answer.']);
    expect(invalidBlockPayloads(slack)).toEqual([]);
  });
});

afterAll(() => rig?.close());

if (!REDIS_URL) console.warn('TEST_REDIS_URL is not set: skipping the Slack two-replica dedup test');
