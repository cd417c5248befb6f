/**
 * Issue 44 on two replicas sharing Redis: a server's tool list, read once by one replica, is what
 * the other offers (it lists nothing itself), and a `list_changed` that reaches one replica's
 * connection changes what both offer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminDataPort } from '../../src/data/index.js';
import { tenantsCommand } from '../../src/data/cli/tenants.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { openPgliteTestPort } from '../helpers/db.js';
import { collect, message, sentToolNames, startHarness, type Harness } from '../helpers/harness.js';
import { sleep, startMcpServer, text, type TestMcpServer } from '../helpers/mcp-servers.js';

const REDIS_URL = process.env.TEST_REDIS_URL;
if (!REDIS_URL) console.warn('TEST_REDIS_URL is not set: skipping the MCP replicas test');

describe.skipIf(!REDIS_URL)('MCP tool lists on two replicas (Redis)', () => {
  let port: AdminDataPort;
  let llm: FakeOpenAI;
  let a: Harness;
  let b: Harness;
  let crm: TestMcpServer;
  let n = 0;
  const turn = (h: Harness) =>
    collect(h.sb.agent.handle(message('hi', { workspaceId: 'default', threadId: `rep-${++n}` })));
  const offered = () => sentToolNames(llm.requestsTo('/chat/completions').at(-1)!.body);

  beforeAll(async () => {
    crm = await startMcpServer({
      tools: [{ name: 'lookup', annotations: { readOnlyHint: true }, handler: () => text('x') }],
    });
    port = await openPgliteTestPort();
    llm = await startFakeOpenAI();
    const env = { REDIS_URL: REDIS_URL!, INBOX_QUEUE: `mcp${Date.now()}`, MCP_ALLOW_LOOPBACK_HTTP: 'true' };
    a = await startHarness({ llm, data: port, env });
    b = await startHarness({ llm, data: port, env });
    const code = await tenantsCommand(port, ['mcp', 'add', 'default', 'crm', crm.url], () => {}, {
      config: a.config,
      log: a.sb.log,
    });
    expect(code).toBe(0);
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await llm?.close();
    await crm?.close();
    await port?.close();
  });

  it('one replica lists, both offer; list_changed on one reaches the other', async () => {
    const listsAtAdd = crm.lists;
    llm.script({ text: 'a' }, { text: 'b' });
    await turn(a);
    expect(offered()).toContain('crm__lookup');
    await turn(b);
    expect(offered()).toContain('crm__lookup');
    expect(crm.lists).toBe(listsAtAdd + 1);

    await crm.setTools([...crm.tools, { name: 'orders', annotations: { readOnlyHint: true } }]);
    for (let i = 0; i < 50 && crm.lists < listsAtAdd + 2; i++) await sleep(100);
    expect(crm.lists).toBe(listsAtAdd + 2);
    await sleep(5_100); // each replica reuses its read of the shared list for 5 s
    llm.script({ text: 'b' });
    await turn(b);
    expect(offered()).toContain('crm__orders');
    expect(crm.lists).toBe(listsAtAdd + 2);
  });
});
