import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../src/config.js';

describe('inbox settings', () => {
  it('have production defaults: 16 turns at once, 10 waiting per thread, a 6 s lease, a 10 s drain, queue "turns"', () => {
    const c = parseConfig({});
    expect([
      c.INBOX_CONCURRENCY,
      c.INBOX_THREAD_QUEUE_MAX,
      c.INBOX_LEASE_MS,
      c.SHUTDOWN_DRAIN_MS,
      c.INBOX_QUEUE,
    ]).toEqual([16, 10, 6_000, 10_000, 'turns']);
  });

  it('no longer knows TURN_PRIORITY (the ingress thread is gone): an old .env line is ignored, not an error', () => {
    expect(() => parseConfig({ TURN_PRIORITY: 'idle' })).not.toThrow();
  });

  it.each([
    ['INBOX_LEASE_MS', '500'],
    ['INBOX_THREAD_QUEUE_MAX', '0'],
    ['INBOX_QUEUE', 'a:b'],
  ])('refuses %s=%j, naming the variable', (name, value) => {
    let error: unknown;
    try {
      parseConfig({ [name]: value });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems[0]).toMatch(new RegExp(`^${name}: `));
  });
});

describe('cost settings', () => {
  it('read MODEL_PRICES (USD per 1M tokens) and BUDGET_USD_PER_TENANT_MONTHLY; HISTORY_MAX_TOKENS stays unset unless given', () => {
    const c = parseConfig({
      MODEL_PRICES: '{"house-llama": {"input": 0.2, "output": 0.6, "cachedInput": 0.05, "contextWindow": 32768}}',
      BUDGET_USD_PER_TENANT_MONTHLY: '12.50',
    });
    expect(c.MODEL_PRICES).toEqual({
      'house-llama': { input: 0.2, output: 0.6, cachedInput: 0.05, contextWindow: 32768 },
    });
    expect(c.BUDGET_USD_PER_TENANT_MONTHLY).toBe(12.5);
    expect(c.HISTORY_MAX_TOKENS).toBeUndefined();
    expect(parseConfig({ HISTORY_MAX_TOKENS: '4000' }).HISTORY_MAX_TOKENS).toBe(4000);
    expect(parseConfig({}).MODEL_PRICES).toEqual({});
  });

  it.each([
    ['MODEL_PRICES', '{"m": {"input": 1}}', /MODEL_PRICES/],
    ['MODEL_PRICES', 'not json', /MODEL_PRICES: is not valid JSON/],
    ['MODEL_PRICES', '{"m": {"input": 1, "output": 2, "cached": 0.1}}', /MODEL_PRICES/],
    ['BUDGET_USD_PER_TENANT_MONTHLY', '-3', /BUDGET_USD_PER_TENANT_MONTHLY: must be greater than 0/],
    ['BUDGET_USD_PER_TENANT_MONTHLY', 'ten', /BUDGET_USD_PER_TENANT_MONTHLY: expected an amount in USD/],
    ['HISTORY_MAX_TOKENS', '100', /HISTORY_MAX_TOKENS/],
  ])('refuses %s=%j, naming the variable', (name, value, message) => {
    expect(() => parseConfig({ [name]: value })).toThrow(message);
  });
});

describe('link preview allow-lists', () => {
  it('SLACK_UNFURL_DOMAINS and DISCORD_EMBED_DOMAINS are empty by default and read as lower-case domain names', () => {
    expect(parseConfig({})).toMatchObject({ SLACK_UNFURL_DOMAINS: [], DISCORD_EMBED_DOMAINS: [] });
    expect(
      parseConfig({ SLACK_UNFURL_DOMAINS: ' Docs.Example.com, *.foo.org ,', DISCORD_EMBED_DOMAINS: '.bar.net' }),
    ).toMatchObject({ SLACK_UNFURL_DOMAINS: ['docs.example.com', 'foo.org'], DISCORD_EMBED_DOMAINS: ['bar.net'] });
  });

  it('refuse a URL where a domain belongs, naming the setting', () => {
    expect(() => parseConfig({ SLACK_UNFURL_DOMAINS: 'https://example.com' })).toThrow(ConfigError);
    expect(() => parseConfig({ DISCORD_EMBED_DOMAINS: 'example.com/path' })).toThrow(/DISCORD_EMBED_DOMAINS/);
  });
});
