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
