import { randomBytes } from 'node:crypto';
import { hashEmbedder, hashEmbedding } from '../../../bench/generate-campaigns.js';
import type { IncomingMessage, TurnEvent } from '../../../src/contract/turn.js';
import { DEMO_ANCHOR } from '../../../src/data/demo/prng.js';
import { embedMissing } from '../../../src/data/embed.js';
import { importRows } from '../../../src/data/import/run.js';
import type { AdminDataPort, Tenant } from '../../../src/data/index.js';
import * as rows from '../../../src/data/rows.js';
import { createCampaignTools } from '../../../src/tools/campaigns/index.js';
import type { Campaign } from '../../../src/tools/campaigns/result.js';
import { startFakeOpenAI, type FakeOpenAI, type FakeResponder, type FakeResponse } from '../../fakes/openai-server.js';
import { TEST_DIMENSIONS } from '../../helpers/db.js';
import { collect, errorOf, message, replyOf, sentMessages, startHarness, type Harness } from '../../helpers/harness.js';
import { unfence } from '../../helpers/fence.js';

/**
 * One Switchboard with the campaign tools over a given database (PGlite or Postgres with
 * the demo data), the scripted fake OpenAI (whose embeddings are the same bag-of-words
 * vectors the campaigns are embedded with, so "meaning" is word overlap), and a second
 * tenant whose rows must never show up for the first.
 */
export interface CampaignTarget {
  open(): Promise<{ port: AdminDataPort; close(): Promise<void> }>;
  /** Extra settings, e.g. REDIS_URL so thread state round-trips through Redis. */
  env?: Record<string, string>;
}

export interface CampaignWorld {
  port: AdminDataPort;
  h: Harness;
  llm: FakeOpenAI;
  tenant: Tenant;
  tenantB: string;
  /** Strings only tenant B's campaign rows hold: company names, offer, ids. */
  secretsOfB: string[];
  close(): Promise<void>;
}

/** Noon on the demo anchor: demo capture dates are placed relative to it. */
export const NOW = new Date(DEMO_ANCHOR.getTime() + 12 * 3_600_000);
/** A word only tenant B's campaigns contain. */
export const MARK = 'zanzibarquux';
export const EMBEDDING_ENV = {
  EMBEDDING_MODEL: 'text-embedding-3-small',
  EMBEDDING_DIMENSIONS: String(TEST_DIMENSIONS),
};

export async function openWorld(target: CampaignTarget): Promise<CampaignWorld> {
  const { port, close } = await target.open();
  const tenant = await port.defaultTenant();
  await importRows(port, 'tenants', tenant.id, [{ slug: 'tenant-b', name: `Tenant B ${MARK}` }]);
  const tenantB =
    (await port.admin('list_tenants', {}, rows.tenantListRow)).find((t) => t.slug === 'tenant-b')?.id ?? '';
  const text = `${MARK} wind power with no annual fee and cashback on email`;
  await importRows(port, 'campaigns', tenantB, [
    {
      source_key: 'demo-0001',
      company: `B Energy ${MARK}`,
      channel: 'Email',
      capture_date: '2026-10-30',
      campaign_text: text,
      offer: `B offer ${MARK}`,
      key_value_props: ['Cash Back', 'Premium'],
    },
    {
      source_key: 'b-2',
      company: `B Cards ${MARK}`,
      channel: 'Instagram',
      capture_date: '2026-10-31',
      campaign_text: text,
      key_value_props: ['Low Price'],
    },
  ]);
  await importRows(port, 'tenant_workspaces', tenantB, [{ platform: 'slack', workspace_id: 'T-B' }]);
  if (port.vectorsAvailable) await embedMissing(port, hashEmbedder(TEST_DIMENSIONS));
  const idsOfB = (await port.call('filter_campaigns', { tenant_id: tenantB }, rows.campaignRow)).map((c) => c.id);
  const secretsOfB = [`B Energy ${MARK}`, `B Cards ${MARK}`, `B offer ${MARK}`, ...idsOfB];

  const llm = await startFakeOpenAI({ embed: hashEmbedding });
  const set = createCampaignTools({ EMBEDDING_MODEL: EMBEDDING_ENV.EMBEDDING_MODEL });
  const h = await startHarness({
    llm,
    data: port,
    tools: set.tools,
    extensions: set.extensions,
    now: () => NOW,
    env: { ...EMBEDDING_ENV, ...target.env },
  });
  return {
    port,
    h,
    llm,
    tenant,
    tenantB,
    secretsOfB,
    async close() {
      await h.close();
      await llm.close();
      await close();
    },
  };
}

export interface Turn {
  events: TurnEvent[];
  reply: ReturnType<typeof replyOf>;
  error: ReturnType<typeof errorOf>;
  data: Record<string, unknown>;
  campaigns: Campaign[];
  /** The tool results the model read in this turn, in order. */
  toolResults: string[];
  /** Chat requests this turn made. */
  requests: number;
}

export const call = (name: string, args: Record<string, unknown> | string): FakeResponse => ({
  toolCalls: [{ name, arguments: args }],
});
export const say = (text: string): FakeResponse => ({ text });

let threadNo = 0;
/** Unique per run: test files may share one Redis. */
const RUN = randomBytes(4).toString('hex');
export const newThread = () => `campaigns-${RUN}-${++threadNo}`;

/** Runs one turn with a script; `over` sets the thread, an action, or another workspace. */
export async function runTurn(
  world: CampaignWorld,
  text: string,
  script: (FakeResponse | FakeResponder)[],
  over: Partial<IncomingMessage> = {},
): Promise<Turn> {
  const before = world.llm.requestsTo('/chat/completions').length;
  world.llm.script(...script);
  const events = await collect(world.h.sb.agent.handle(message(text, over)));
  const requests = world.llm.requestsTo('/chat/completions');
  const last = requests.at(-1);
  const done = events.find((e): e is Extract<TurnEvent, { type: 'done' }> => e.type === 'done');
  let toolResults: string[] = [];
  if (last && requests.length > before) {
    const sent = sentMessages(last.body);
    const lastUser = sent.findLastIndex((m) => m.role === 'user');
    toolResults = sent
      .slice(lastUser)
      .filter((m) => m.role === 'tool')
      .map((m) => unfence(m.content));
  }
  const data = done?.data ?? {};
  return {
    events,
    reply: replyOf(events),
    error: errorOf(events),
    data,
    campaigns: (data.campaigns ?? []) as Campaign[],
    toolResults,
    requests: requests.length - before,
  };
}

export function blocksOf(turn: Pick<Turn, 'reply'>, type: string) {
  return (turn.reply?.blocks ?? []).filter((b) => b.type === type);
}

export function buttonsOf(turn: Pick<Turn, 'reply'>) {
  return (turn.reply?.blocks ?? []).flatMap((b) => (b.type === 'buttons' ? b.buttons : []));
}

export function textOf(c: Campaign): string {
  return `${c.campaign_text} ${c.full_campaign_text}`.toLowerCase();
}

/** `YYYY-MM-DD`, `days` before NOW's date. */
export function daysAgo(days: number): string {
  return new Date(Date.parse(NOW.toISOString().slice(0, 10)) - days * 86_400_000).toISOString().slice(0, 10);
}
