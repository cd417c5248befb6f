import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../src/config.js';

describe('TURN_PRIORITY', () => {
  it('is idle by default and when left empty (as .env.example leaves a line), and takes a nice value 0–19', () => {
    expect(parseConfig({}).TURN_PRIORITY).toBe('idle');
    expect(parseConfig({ TURN_PRIORITY: '' }).TURN_PRIORITY).toBe('idle');
    expect(parseConfig({ TURN_PRIORITY: ' idle ' }).TURN_PRIORITY).toBe('idle');
    expect(parseConfig({ TURN_PRIORITY: '10' }).TURN_PRIORITY).toBe(10);
    expect(parseConfig({ TURN_PRIORITY: '0' }).TURN_PRIORITY).toBe(0);
    expect(parseConfig({ TURN_PRIORITY: '19' }).TURN_PRIORITY).toBe(19);
  });

  it.each(['20', '-5', '1.5', 'high', 'nice 10'])('refuses %j, naming the variable and what it takes', (value) => {
    let error: unknown;
    try {
      parseConfig({ TURN_PRIORITY: value });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([`TURN_PRIORITY: must be idle, or a nice value from 0 (no change) to 19 (got "${value}")`]);
  });
});
