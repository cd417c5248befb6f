/**
 * A whole Switchboard with the real Slack adapter (Bolt) on loopback: the fake OpenAI as the
 * LLM, the fake Slack Web API (and Socket Mode server) as Slack, and, in HTTP mode, the HTTP
 * shared server receiving signed requests at /slack/events, as `npm start` runs it.
 */
import { readFileSync } from 'node:fs';
import { randomInt } from 'node:crypto';
import type { AgentExtension } from '../../../src/contract/extension.js';
import type { PlatformAdapter } from '../../../src/adapters/platform.js';
import { createHttpApp } from '../../../src/adapters/http/app.js';
import { startHttpServer, type RunningServer } from '../../../src/adapters/http/server.js';
import { createSlackAdapter } from '../../../src/adapters/slack/index.js';
import type { DataPort } from '../../../src/contract/data.js';
import type { AnyTool } from '../../../src/contract/tool.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.js';
import { postCommand, postEvent, postInteraction, type SignOptions } from '../../fakes/slack/signing.js';
import { startFakeSlack, type FakeSlack, type FakeWorkspace } from '../../fakes/slack/web-api.js';
import { runAdapter, startHarness, type Harness } from '../../helpers/harness.js';

export const SIGNING_SECRET = 'fake-signing-secret-for-tests';
export const BOT_USER = 'U00FAKEBOT01';
/** The rig's fallback update interval (1 s by default), short so pacing tests stay quick. */
export const RIG_UPDATE_INTERVAL_MS = 300;

/** Test-only agent extensions: a `/quote` command and a paging button that answers without the model. */
export const slackTestExtension: AgentExtension = {
  commands: { quote: async (o) => ({ message: `Draft a ${o.mode ?? 'standard'} quote: ${o.request ?? ''}` }) },
  actions: {
    campaigns: async (action) => ({
      reply: {
        text: `Page ${action.value ?? '?'}`,
        blocks: [
          {
            type: 'cards',
            cards: [{ title: 'Autumn promo', subtitle: 'Acme', fields: [{ label: 'CTR', value: '1.9%' }] }],
          },
          { type: 'buttons', buttons: [{ actionId: 'campaigns.more', label: 'Show more', value: '3' }] },
        ],
      },
    }),
  },
};

export interface SlackRig {
  h: Harness;
  llm: FakeOpenAI;
  slack: FakeSlack;
  adapter: PlatformAdapter;
  /** HTTP mode: the shared server with the adapter's routes, as `npm start` runs it. */
  server?: RunningServer;
  eventsUrl: string;
  /** Resolves when `count` turns have been delivered to Slack in total. */
  delivered(count: number, timeoutMs?: number): Promise<void>;
  deliveredCount(): number;
  close(): Promise<void>;
}

export async function startSlackRig(opts: {
  mode: 'http' | 'socket';
  tools?: AnyTool[];
  env?: Record<string, string>;
  llm?: FakeOpenAI;
  /** Shared with another rig (replicas of one app); the caller closes it. */
  slack?: FakeSlack;
  data?: DataPort;
  /** The turn writer's options over the rig's (e.g. a short `streamMaxAgeMs`). */
  writer?: { streamMaxAgeMs?: number };
}): Promise<SlackRig> {
  const llm = opts.llm ?? (await startFakeOpenAI());
  const slack = opts.slack ?? (await startFakeSlack({ botUserId: BOT_USER, socketMode: opts.mode === 'socket' }));
  const h = await startHarness({
    llm,
    data: opts.data,
    tools: opts.tools,
    extensions: [slackTestExtension],
    env: {
      SLACK_BOT_TOKEN: slack.options.botToken,
      SLACK_API_URL: slack.url,
      ...(opts.mode === 'http'
        ? { SLACK_SIGNING_SECRET: SIGNING_SECRET }
        : { SLACK_APP_TOKEN: slack.options.appToken }),
      ...opts.env,
    },
  });
  const adapter = createSlackAdapter(h.sb, {
    socketClientPingTimeoutMs: 200,
    writer: { updateIntervalMs: RIG_UPDATE_INTERVAL_MS, streamFlushMs: 50, ...opts.writer },
  });
  if (!adapter) throw new Error('the Slack adapter was not created');
  let server: RunningServer | undefined;
  if (opts.mode === 'http') {
    if (!adapter.routes?.length) throw new Error('the Slack adapter offers no routes in HTTP mode');
    server = await startHttpServer(createHttpApp({ agent: h.sb.agent, log: h.sb.log }), 0, '127.0.0.1', adapter.routes);
  }
  const stopAdapter = await runAdapter(h.sb, adapter);
  const deliveredCount = () => h.logs.lines.filter((l) => l.msg === 'slack turn delivered').length;
  return {
    h,
    llm,
    slack,
    adapter,
    server,
    eventsUrl: server ? `${server.url}/slack/events` : '',
    deliveredCount,
    delivered: (count, timeoutMs) =>
      slack.waitFor(
        () => deliveredCount() >= count,
        `${count} delivered Slack turns (saw ${deliveredCount()})`,
        timeoutMs,
      ),
    async close() {
      await server?.close();
      await stopAdapter();
      await h.close();
      if (!opts.slack) await slack.close();
      if (!opts.llm) await llm.close();
    },
  };
}

/** Signs and sends as Slack would. */
export const sign = (over: Partial<SignOptions> = {}): SignOptions => ({ secret: SIGNING_SECRET, ...over });
export { postCommand, postEvent, postInteraction };

/** A recorded payload from test/fixtures/slack/events, with its bot's user id replaced by ours. */
export function fixture<T = Record<string, Record<string, unknown>>>(name: string): T {
  const raw = readFileSync(new URL(`../../fixtures/slack/events/${name}`, import.meta.url), 'utf8');
  const { botUserId } = JSON.parse(raw) as { botUserId: string };
  return JSON.parse(raw.replaceAll(botUserId, BOT_USER)) as T;
}

/** Unique message timestamps per run, so state left in a shared Redis never collides. */
const runBase = 1_900_000_000 + randomInt(0, 50_000_000);
let tsCounter = 0;
export const freshTs = () => `${runBase + ++tsCounter}.${String(randomInt(0, 999_999)).padStart(6, '0')}`;

/** An Events API envelope around a message-like event. */
export function eventBody(
  event: Record<string, unknown>,
  over: { team?: string; eventId?: string; enterprise?: string; botUser?: string } = {},
) {
  const team = over.team ?? 'T0FAKETEAM';
  return {
    token: 'legacy-verification-token',
    team_id: team,
    api_app_id: 'A0FAKEAPP',
    event: { team, event_ts: event.ts, ...event },
    type: 'event_callback',
    event_id: over.eventId ?? `Ev${freshTs().replace('.', '')}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [
      {
        enterprise_id: over.enterprise ?? null,
        team_id: team,
        user_id: over.botUser ?? BOT_USER,
        is_bot: true,
        is_enterprise_install: false,
      },
    ],
  };
}

/** A second installed workspace, for tests of OAuth installs and per-workspace tenants. */
export const GLOBEX: FakeWorkspace = {
  teamId: 'T0GLOBEX',
  teamName: 'Globex',
  botUserId: 'U0GLOBEXBOT',
  botId: 'B0GLOBEX',
  installerUserId: 'U0GLOBEXADMIN',
};

/** A mention of the bot installed in another workspace (a fake Slack workspace installed over OAuth). */
export function workspaceMention(ws: FakeWorkspace, text: string, over: { user?: string; channel?: string } = {}) {
  const event = mention(text, { text: `<@${ws.botUserId}> ${text}`, ...over });
  return { ts: event.ts, body: eventBody(event, { team: ws.teamId, botUser: ws.botUserId }) };
}

export const mention = (text: string, over: Record<string, unknown> = {}) => ({
  type: 'app_mention',
  user: 'U0HUMAN1',
  ts: freshTs(),
  text: `<@${BOT_USER}> ${text}`,
  channel: 'C0CHAN1',
  ...over,
});
