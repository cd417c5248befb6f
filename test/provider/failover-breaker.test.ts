/**
 * Issue 46, item 1: each endpoint's breaker (open: the dead endpoint is not called; half-open:
 * one call probes it), a tenant's own chain, and a failover seen in a Slack thread.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { CircuitState } from 'cockatiel';
import { FailuresInWindow } from '../../src/provider/model-chain.js';
import { isAdminPort } from '../../src/data/index.js';
import { importRows } from '../../src/data/import/run.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { collect, errorOf, message, replyOf } from '../helpers/harness.js';
import { eventBody, mention, postEvent, sign, startSlackRig, type SlackRig } from '../adapters/slack/setup.js';
import { labelOf, modelRequests, startChainRig, type ChainRig } from './failover-helpers.js';

const COOLDOWN_MS = 2_000;
const chats = (fake: FakeOpenAI) => fake.requestsTo('/chat/completions');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the breaker of an endpoint', () => {
  let rig: ChainRig;
  beforeAll(async () => {
    rig = await startChainRig({
      env: { MODEL_BREAKER_FAILURES: '2', MODEL_BREAKER_COOLDOWN_MS: String(COOLDOWN_MS) },
    });
  });
  afterAll(() => rig.close());
  beforeEach(() => {
    rig.primary.reset();
    rig.fallback.reset();
  });

  /** Two failures of the primary (each turn answered by the fallback): its breaker opens. */
  const breakPrimary = async () => {
    for (const _ of [1, 2]) {
      rig.primary.script({ status: 500 });
      rig.fallback.script({ text: 'Fallback answer.' });
      expect((await rig.ask('Hello')).body.response).toBe('Fallback answer.');
    }
  };

  it('opens after MODEL_BREAKER_FAILURES failures: the dead endpoint is not called, then one call probes it', async () => {
    const primary = labelOf('gpt-test', rig.primary);
    await breakPrimary();
    expect(rig.h.logs.lines.findLast((l) => l.code === 'model_breaker_open')).toMatchObject({ endpoint: primary });

    // Open: straight to the fallback, the primary never sees the request.
    const skippedBefore = await modelRequests(primary, 'breaker_open');
    rig.fallback.script({ text: 'Still the fallback.' });
    expect((await rig.ask('Again')).body.response).toBe('Still the fallback.');
    expect(chats(rig.primary)).toHaveLength(2);
    expect(await modelRequests(primary, 'breaker_open')).toBe(skippedBefore + 1);

    // Half-open after the cooldown: the next call probes the primary, which answers: closed again.
    await sleep(COOLDOWN_MS + 50);
    rig.primary.script({ text: 'The primary is back.' }, { text: 'And stays.' });
    expect((await rig.ask('Probe')).body.response).toBe('The primary is back.');
    expect((await rig.ask('Closed?')).body.response).toBe('And stays.');
    expect(chats(rig.fallback)).toHaveLength(3);
  });

  it('a probe that fails opens it again for another cooldown', async () => {
    await sleep(COOLDOWN_MS + 50); // whatever the last test left, the breaker is closed or probing
    rig.primary.script({ text: 'Up.' });
    await rig.ask('Warm up');
    await breakPrimary();
    await sleep(COOLDOWN_MS + 50);
    rig.primary.script({ status: 503 });
    rig.fallback.script({ text: 'The probe failed, so me.' }, { text: 'Me again.' });
    expect((await rig.ask('Probe')).body.response).toBe('The probe failed, so me.');
    const calls = chats(rig.primary).length;
    expect((await rig.ask('Open again?')).body.response).toBe('Me again.');
    expect(chats(rig.primary)).toHaveLength(calls);
  });

  it('while one call probes, the others skip the endpoint rather than wait for its verdict', async () => {
    // The last test left the primary's breaker open: after the cooldown the next call probes it.
    await sleep(COOLDOWN_MS + 50);
    // The probe answers only once the other call has reached the fallback: it cannot have waited.
    rig.primary.script(async () => {
      while (chats(rig.fallback).length === 0) await sleep(5);
      return { text: 'The probe’s answer.' };
    });
    rig.fallback.script({ text: 'Did not wait for the probe.' });
    const answers = await Promise.all([rig.ask('One'), rig.ask('Two')]);
    expect(answers.map((a) => a.body.response).sort()).toEqual(['Did not wait for the probe.', 'The probe’s answer.']);
    expect(chats(rig.primary)).toHaveLength(1);
  });

  it('every endpoint open (or failing): the usual clear error', async () => {
    await sleep(COOLDOWN_MS + 50);
    rig.primary.script({ text: 'Up.' });
    await rig.ask('Warm up');
    for (const _ of [1, 2]) {
      rig.primary.script({ status: 500 });
      rig.fallback.script({ status: 500 });
      const { body } = await rig.ask('Anyone?');
      expect(JSON.stringify(body)).toContain('I can’t reach the language model right now');
    }
    // Both open now: nobody is called, the user still gets the clear message.
    const calls = chats(rig.primary).length + chats(rig.fallback).length;
    const { body } = await rig.ask('Anyone at all?');
    expect(JSON.stringify(body)).toContain('I can’t reach the language model right now');
    expect(chats(rig.primary).length + chats(rig.fallback).length).toBe(calls);
    await sleep(COOLDOWN_MS + 50); // leave them probing for whoever comes next
  });
});

describe('FailuresInWindow (the breaker’s count)', () => {
  it('opens at the threshold within a minute; older failures no longer count; a good probe clears it', () => {
    let now = 1_000_000;
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      const breaker = new FailuresInWindow(3, 60_000);
      expect(breaker.failure()).toBe(false);
      breaker.success(CircuitState.Closed); // a success in between does not wipe the count
      expect(breaker.failure()).toBe(false);
      now += 61_000; // both are more than a minute old now
      expect(breaker.failure()).toBe(false);
      expect(breaker.failure()).toBe(false);
      expect(breaker.failure()).toBe(true);
      breaker.success(CircuitState.HalfOpen);
      expect(breaker.failure()).toBe(false);
    } finally {
      clock.mockRestore();
    }
  });
});

describe('a tenant’s own chain (settings.model_fallbacks)', () => {
  let rig: ChainRig;
  let tenantFake: FakeOpenAI;
  beforeAll(async () => {
    rig = await startChainRig({ env: { MODEL_BREAKER_FAILURES: '1000' } });
    process.env.MODEL_KEY_ACME = 'sk-acme-own-key';
    tenantFake = await startFakeOpenAI({ apiKey: 'sk-acme-own-key' });
    const data = rig.h.sb.data;
    if (!isAdminPort(data)) throw new Error('the harness database is not an admin port');
    const owner = (await data.defaultTenant()).id;
    await importRows(data, 'tenants', owner, [
      {
        slug: 'acme',
        name: 'Acme',
        settings: { model_fallbacks: [{ baseUrl: tenantFake.url, model: 'acme-model', apiKeyEnv: 'MODEL_KEY_ACME' }] },
      },
      {
        slug: 'sneaky',
        name: 'Sneaky',
        // A stored setting may not send just any variable to a URL it chose.
        settings: { model_fallbacks: [{ baseUrl: tenantFake.url, model: 'm', apiKeyEnv: 'DATABASE_URL' }] },
      },
    ]);
  });
  beforeEach(() => {
    rig.primary.reset();
    rig.fallback.reset();
    tenantFake.reset();
  });
  afterAll(async () => {
    await tenantFake.close();
    await rig.close();
    delete process.env.MODEL_KEY_ACME;
  });

  it('fails over to the tenant’s endpoints, not the deployment’s', async () => {
    rig.primary.script({ status: 429 });
    tenantFake.script({ text: 'Acme’s own fallback.' });
    const events = await collect(rig.h.sb.agent.handle(message('Hi', { tenant: 'acme', threadId: 't-acme' })));
    expect(replyOf(events)?.text).toBe('Acme’s own fallback.');
    expect(chats(tenantFake)[0]!.body.model).toBe('acme-model');
    expect(chats(rig.fallback)).toHaveLength(0);
  });

  it('other tenants keep MODEL_FALLBACKS', async () => {
    rig.primary.script({ status: 429 });
    rig.fallback.script({ text: 'The deployment’s fallback.' });
    const events = await collect(rig.h.sb.agent.handle(message('Hi', { threadId: 't-default-tenant' })));
    expect(replyOf(events)?.text).toBe('The deployment’s fallback.');
    expect(chats(tenantFake)).toHaveLength(0);
  });

  it('an endpoint naming a key variable a tenant may not use is skipped, and said in the log', async () => {
    rig.primary.script({ status: 500 });
    const events = await collect(rig.h.sb.agent.handle(message('Hi', { tenant: 'sneaky', threadId: 't-sneaky' })));
    expect(errorOf(events)?.code).toBe('llm_unavailable');
    expect(chats(tenantFake)).toHaveLength(0);
    expect(rig.h.logs.lines.find((l) => l.code === 'model_fallback_skipped')?.msg).toMatch(/not DATABASE_URL/);
  });
});

describe('in a Slack thread', () => {
  let rig: SlackRig;
  let fallback: FakeOpenAI;
  beforeAll(async () => {
    fallback = await startFakeOpenAI();
    rig = await startSlackRig({
      mode: 'http',
      env: { MODEL_FALLBACKS: JSON.stringify([{ baseUrl: fallback.url, model: 'gpt-fallback' }]) },
    });
  });
  afterAll(async () => {
    await rig.close();
    await fallback.close();
  });

  it('a primary answering 429 before any text: the fallback’s answer is the one reply in the thread', async () => {
    rig.llm.script({ status: 429 });
    fallback.script({ text: 'Answered by the fallback model.' });
    const post = mention('are you there?');
    expect((await postEvent(rig.eventsUrl, eventBody(post), sign())).status).toBe(200);
    await rig.delivered(1);
    expect(rig.slack.threadReplies('C0CHAN1', post.ts).map((m) => m.text)).toEqual(['Answered by the fallback model.']);
    expect(JSON.stringify(rig.slack.calls)).not.toMatch(/can’t reach|rate-limiting/);
  });
});
