/**
 * Settings per channel on Slack (issue 46, item 3), through the real app: the Slack adapter (Bolt,
 * HTTP Events API) against the fake Slack, the fake OpenAI as the model. A channel's model,
 * instructions, tools and language reach the model; `reply_mode: all` answers every top-level
 * message of that channel (threads as before); `/switchboard settings` says what applies and
 * where each value comes from; channel over tenant over the defaults.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantsCommand } from '../../../src/data/cli/tenants.js';
import type { AdminDataPort } from '../../../src/data/index.js';
import { importRows } from '../../../src/data/import/run.js';
import { metrics } from '../../../src/telemetry/metrics.js';
import type { RecordedRequest } from '../../fakes/openai-server.js';
import { inboxIdle } from '../../helpers/inbox-idle.js';
import { sentMessages, sentToolNames } from '../../helpers/harness.js';
import {
  BOT_USER,
  eventBody,
  fixture,
  freshTs,
  mention,
  postCommand,
  postEvent,
  sign,
  startSlackRig,
  type SlackRig,
} from './setup.js';

let rig: SlackRig;
let data: AdminDataPort;
const cli = async (...argv: string[]) => {
  const lines: string[] = [];
  const code = await tenantsCommand(data, argv, (l) => lines.push(l));
  return { code, out: lines.join('\n') };
};
const system = (req: RecordedRequest) =>
  sentMessages(req.body)
    .filter((m) => m.role === 'system')
    .map((m) => String(m.content))
    .join('\n');
const lastChat = () => rig.llm.lastRequest('/chat/completions')!;
/** A post in a channel, not mentioning the bot (Slack's `message` event). */
const post = (text: string, over: Record<string, unknown> = {}) => ({
  type: 'message',
  channel_type: 'channel',
  user: 'U0HUMAN1',
  ts: freshTs(),
  text,
  channel: 'C0ALL',
  ...over,
});

beforeAll(async () => {
  // Web search configured: a channel can narrow the tenant's tools to it.
  rig = await startSlackRig({ mode: 'http', env: { TAVILY_API_KEY: 'tvly-test' } });
  data = rig.h.sb.data as AdminDataPort;
  // A second tenant with settings of its own, for the precedence tests: workspace T0ACME is its.
  const owner = (await data.defaultTenant()).id;
  await importRows(data, 'tenants', owner, [
    {
      slug: 'acme',
      name: 'Acme',
      settings: { model: 'gpt-tenant', ai_config: { language: 'de', instructions: 'Sign every answer as Acme.' } },
    },
  ]);
  const acme = (await data.tenantBySlug('acme'))!;
  await importRows(data, 'tenant_workspaces', acme.id, [{ platform: 'slack', workspace_id: 'T0ACME' }]);

  const set = async (...argv: string[]) => expect((await cli('channel', 'set', ...argv)).code).toBe(0);
  await set(
    'default',
    'C0SUPPORT',
    '--model',
    'gpt-support',
    '--instructions',
    'You are the support desk: answer in numbered steps.',
    '--toolsets',
    'web',
    '--language',
    'da',
  );
  await set('default', 'C0ALL', '--reply-mode', 'all');
  await set('acme', 'C0ACMEDK', '--language', 'da');
});
afterAll(async () => {
  await rig?.close();
});

describe('a channel’s own settings reach the model', () => {
  it('its model, instructions, tools and language; a channel without settings keeps the tenant’s', async () => {
    rig.llm.script({ text: 'Trin 1: genstart.' });
    const asked = mention('the printer is down', { channel: 'C0SUPPORT' });
    await postEvent(rig.eventsUrl, eventBody(asked), sign());
    // The first turn of the file warms up (a loaded machine takes seconds): a generous wait.
    await rig.slack.waitFor(() => rig.slack.threadReplies('C0SUPPORT', asked.ts).length > 0, 'the answer', 30_000);
    const req = lastChat();
    expect(req.body.model).toBe('gpt-support');
    expect(system(req)).toContain('You are the support desk: answer in numbered steps.');
    expect(system(req)).toContain('Answer in Danish');
    expect(sentToolNames(req.body)).toEqual(['web_search']);
    expect(rig.slack.threadReplies('C0SUPPORT', asked.ts).map((m) => m.text)).toEqual(['Trin 1: genstart.']);

    rig.llm.script({ text: 'Here is what ran.' });
    const other = mention('which campaigns ran?', { channel: 'C0CHAN1' });
    await postEvent(rig.eventsUrl, eventBody(other), sign());
    await rig.slack.waitFor(() => rig.slack.threadReplies('C0CHAN1', other.ts).length > 0, 'the other answer');
    const plain = lastChat();
    expect(plain.body.model).toBe('gpt-test');
    expect(system(plain)).not.toContain('support desk');
    expect(system(plain)).not.toContain('Danish');
    expect(sentToolNames(plain.body)).toContain('filter_campaigns');
  });

  it('the token metric names the model that answered, not OPENAI_MODEL', async () => {
    const tokens = async (model: string) =>
      (await metrics.llmTokens.get()).values
        .filter((v) => v.labels.model === model && v.labels.kind === 'completion')
        .reduce((n, v) => n + v.value, 0);
    await inboxIdle(rig.h.sb.inbox);
    const before = await tokens('gpt-support');
    rig.llm.script({ text: 'Trin 2.', usage: { prompt_tokens: 40, completion_tokens: 7 } });
    const asked = mention('and then?', { channel: 'C0SUPPORT' });
    await postEvent(rig.eventsUrl, eventBody(asked), sign());
    await rig.slack.waitFor(() => rig.slack.threadReplies('C0SUPPORT', asked.ts).length > 0, 'the answer');
    await inboxIdle(rig.h.sb.inbox);
    expect((await tokens('gpt-support')) - before).toBe(7);
  });

  it('channel over tenant over default: each setting from where it is set', async () => {
    rig.llm.script({ text: 'Hej.' });
    const asked = mention('hallo', { channel: 'C0ACMEDK' });
    await postEvent(rig.eventsUrl, eventBody(asked, { team: 'T0ACME' }), sign());
    await rig.slack.waitFor(() => rig.slack.threadReplies('C0ACMEDK', asked.ts).length > 0, 'the answer');
    const req = lastChat();
    expect(req.body.model).toBe('gpt-tenant'); // the tenant's
    expect(system(req)).toContain('Sign every answer as Acme.'); // the tenant's
    expect(system(req)).toContain('Answer in Danish'); // the channel's, over the tenant's German
    expect(system(req)).not.toContain('German');

    rig.llm.script({ text: 'Hallo.' });
    const elsewhere = mention('hallo', { channel: 'C0ACMEOTHER' });
    await postEvent(rig.eventsUrl, eventBody(elsewhere, { team: 'T0ACME' }), sign());
    await rig.slack.waitFor(() => rig.slack.threadReplies('C0ACMEOTHER', elsewhere.ts).length > 0, 'the answer');
    expect(system(lastChat())).toContain('Answer in German');
  });
});

describe('reply mode `all`', () => {
  it('answers a top-level post without a mention, then its thread; not a bot’s post or another thread', async () => {
    rig.llm.script({ text: 'Answered without a mention.' }, { text: 'And the follow-up.' });
    const first = post('does anyone know the wifi password?');
    await postEvent(rig.eventsUrl, eventBody(first), sign());
    await rig.slack.waitFor(() => rig.slack.threadReplies('C0ALL', first.ts).length > 0, 'the answer');
    expect(rig.slack.threadReplies('C0ALL', first.ts).map((m) => m.text)).toEqual(['Answered without a mention.']);
    // A reply in the thread the bot answered in: answered like a followed thread.
    const followUp = post('and for guests?', { thread_ts: first.ts });
    await postEvent(rig.eventsUrl, eventBody(followUp), sign());
    await rig.slack.waitFor(() => rig.slack.threadReplies('C0ALL', first.ts).length > 1, 'the follow-up');

    const calls = rig.llm.requestsTo('/chat/completions').length;
    // Another app's post, an edit, and a reply in a thread the bot never joined: none is a turn.
    await postEvent(
      rig.eventsUrl,
      eventBody(post('deploy finished', { bot_id: 'B0OTHER', subtype: 'bot_message' })),
      sign(),
    );
    await postEvent(
      rig.eventsUrl,
      eventBody(post('', { subtype: 'message_changed', message: { text: 'edited', user: 'U0HUMAN1', ts: first.ts } })),
      sign(),
    );
    await postEvent(rig.eventsUrl, eventBody(post('chat between people', { thread_ts: freshTs() })), sign());
    // In a channel on the default mode, a post without a mention stays unanswered.
    await postEvent(rig.eventsUrl, eventBody(post('just talking', { channel: 'C0CHAN1' })), sign());
    await inboxIdle(rig.h.sb.inbox);
    expect(rig.llm.requestsTo('/chat/completions')).toHaveLength(calls);
  });
});

describe('/switchboard settings', () => {
  const command = (channel: string, text = 'settings', team = 'T00FAKE00BB') => {
    const { slashCommandWithArgs } = fixture('slash-commands.slack.json');
    return postCommand(
      rig.eventsUrl,
      {
        ...(slashCommandWithArgs as Record<string, string>),
        command: '/switchboard',
        text,
        channel_id: channel,
        team_id: team,
        response_url: rig.slack.responseUrl(),
      },
      sign(),
    );
  };

  it('says privately what applies here and where each value comes from, without a turn', async () => {
    const calls = rig.llm.requestsTo('/chat/completions').length;
    const res = await command('C0SUPPORT');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { response_type: string; text: string };
    expect(body.response_type).toBe('ephemeral');
    expect(body.text).toMatch(/\*Model:\* gpt-support _\(this channel\)_/);
    expect(body.text).toMatch(/\*Tools:\* web _\(this channel\)_/);
    expect(body.text).toMatch(/\*Reply mode:\* when mentioned _\(the default\)_/);
    expect(body.text).toMatch(/\*Language:\* da _\(this channel\)_/);

    const acme = (await (await command('C0ACMEDK', 'settings', 'T0ACME')).json()) as { text: string };
    expect(acme.text).toMatch(/\*Model:\* gpt-tenant _\(the workspace’s settings\)_/);
    expect(acme.text).toMatch(/\*Instructions:\* Sign every answer as Acme\. _\(the workspace’s settings\)_/);
    expect(acme.text).toMatch(/\*Fallbacks:\* the deployment’s _\(the default\)_/);

    const usage = (await (await command('C0SUPPORT', '')).json()) as { text: string };
    expect(usage.text).toContain('/switchboard settings');
    expect(rig.llm.requestsTo('/chat/completions')).toHaveLength(calls);
    expect(rig.deliveredCount()).toBeGreaterThan(0);
  });

  it('is declared in the app manifest', () => {
    const manifest = readFileSync(new URL('../../../deploy/slack-app-manifest.yaml', import.meta.url), 'utf8');
    expect(manifest).toMatch(/- command: \/switchboard\b/);
    // `all` mode needs channel messages: the bot events include them.
    expect(manifest).toMatch(/^\s+- message\.channels\b/m);
    expect(BOT_USER).toBeTruthy();
  });
});
