import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig } from '../src/config/index.js';

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

describe('secret tokens', () => {
  it.each(['API_TOKEN', 'ADMIN_TOKEN', 'METRICS_TOKEN'])(
    'refuse %s shorter than 32 characters, naming it and saying how to make one',
    (name) => {
      let message = '';
      try {
        parseConfig({ [name]: 'abc12' });
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        message = (err as Error).message;
      }
      expect(message).toContain(`${name}: is shorter than 32 characters`);
      expect(message).toContain('openssl rand -hex 32');
      expect(message).toContain("require('crypto').randomBytes(32).toString('hex')");
      // The value itself is a secret: never echoed.
      expect(message).not.toContain('abc12');
    },
  );

  it('take 32 characters or more, and read an empty one as unset', () => {
    const long = 'x'.repeat(32);
    expect(parseConfig({ API_TOKEN: long, ADMIN_TOKEN: long, METRICS_TOKEN: long })).toMatchObject({
      API_TOKEN: long,
      ADMIN_TOKEN: long,
      METRICS_TOKEN: long,
    });
    expect(parseConfig({ ADMIN_TOKEN: '  ' }).ADMIN_TOKEN).toBeUndefined();
  });
});

describe('.env', () => {
  it('is read when present (Node’s own reader, no dotenv); a variable already in the environment wins', () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-env-'));
    const cwd = process.cwd();
    const before = { ...process.env };
    try {
      writeFileSync(join(dir, '.env'), 'INBOX_QUEUE=from-file\nPORT=1111 # a comment\nHOST="127.0.0.2"\n');
      process.env.PORT = '2222';
      delete process.env.INBOX_QUEUE;
      delete process.env.HOST;
      process.chdir(dir);
      expect(loadConfig()).toMatchObject({ INBOX_QUEUE: 'from-file', PORT: 2222, HOST: '127.0.0.2' });
    } finally {
      process.chdir(cwd);
      for (const name of Object.keys(process.env)) if (!(name in before)) delete process.env[name];
      Object.assign(process.env, before);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
