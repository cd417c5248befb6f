/** SLACK_STREAM_MAX_AGE_MS (issue 46): when a streamed Slack answer continues in a new message. */
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../src/config/index.js';

const base = { OPENAI_API_KEY: 'sk-test', PGLITE_MEMORY: '1' };

describe('SLACK_STREAM_MAX_AGE_MS', () => {
  it('defaults to 240 s, under Slack’s five minutes, and takes another age in range', () => {
    expect(parseConfig(base).SLACK_STREAM_MAX_AGE_MS).toBe(240_000);
    expect(parseConfig({ ...base, SLACK_STREAM_MAX_AGE_MS: '60000' }).SLACK_STREAM_MAX_AGE_MS).toBe(60_000);
  });

  it('refuses an age Slack would cut short, or a useless one, naming the variable', () => {
    for (const bad of ['300000', '500', 'soon']) {
      expect(() => parseConfig({ ...base, SLACK_STREAM_MAX_AGE_MS: bad })).toThrow(ConfigError);
      expect(() => parseConfig({ ...base, SLACK_STREAM_MAX_AGE_MS: bad })).toThrow(/SLACK_STREAM_MAX_AGE_MS/);
    }
  });
});
