import { describe, expect, it } from 'vitest';
import { createOutageNotice } from '../../src/telemetry/outage-notice.js';
import { captureLogs } from '../helpers/harness.js';

describe('an outage told once', () => {
  it('warns at the first failure of each kind, repeats at debug, and logs its end once', () => {
    const { log, logs } = captureLogs('debug');
    const notice = createOutageNotice(log, 'store answers again');
    notice.ok(); // nothing to end: no line
    for (let i = 0; i < 5; i++) notice.failed({ call: i }, 'store unavailable: refused');
    notice.failed({}, 'store unavailable: not counted');
    expect(notice.down).toBe(true);
    notice.ok();
    notice.ok();
    expect(notice.down).toBe(false);
    notice.failed({}, 'store unavailable: refused'); // the next outage is told again
    expect(logs.lines.map((l) => [l.level, l.msg])).toEqual([
      [40, 'store unavailable: refused'],
      [20, 'store unavailable: refused'],
      [20, 'store unavailable: refused'],
      [20, 'store unavailable: refused'],
      [20, 'store unavailable: refused'],
      [40, 'store unavailable: not counted'],
      [30, 'store answers again'],
      [40, 'store unavailable: refused'],
    ]);
    expect(logs.lines[6]).toMatchObject({ failures: 6 });
  });
});
