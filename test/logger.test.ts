import { describe, expect, it } from 'vitest';
import { captureLogs } from './helpers/harness.js';

describe('logger', () => {
  const failure = () => new Error('connect ECONNREFUSED 10.0.0.1:5432 password=hunter2 token=xoxb-1234567890-abcdef');

  it('at info an error carries its name and scrubbed message, never a stack', () => {
    const { log, logs } = captureLogs('info');
    log.warn({ err: failure() }, 'lookup failed');
    expect(logs.lines[0]).toMatchObject({ level: 40, err: { type: 'Error' } });
    expect(logs.text()).not.toContain('"stack"');
    expect(logs.text()).not.toMatch(/hunter2|xoxb-1234567890/);
  });

  it('at debug the stack is kept, scrubbed of secrets like the message', () => {
    const { log, logs } = captureLogs('debug');
    log.warn({ err: failure() }, 'lookup failed');
    expect(logs.text()).toContain('"stack"');
    expect(logs.text()).toContain('password=[redacted]');
    expect(logs.text()).not.toMatch(/hunter2|xoxb-1234567890/);
  });
});
