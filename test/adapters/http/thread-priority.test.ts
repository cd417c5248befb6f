/**
 * TURN_PRIORITY's mechanism, each case in a process of its own (a lowered priority cannot be
 * raised back, so the test's own process is left alone): a worker thread, standing in for the
 * ingress, keeps the normal priority; every other thread of the process yields to it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface Outcome {
  pid: number;
  main: number;
  tid: number;
  first: Record<string, unknown>;
  again: Record<string, unknown>;
  threads: Record<string, { policy: number; nice: number }>;
}

/** Runs yieldOtherThreads(worker, priority, opts) twice in a fresh process; reports every thread's policy and nice value. */
function inFreshProcess(priority: 'idle' | number, opts: { chrt?: string } = {}): Outcome {
  const script = `
    import { Worker } from 'node:worker_threads';
    import { readdirSync } from 'node:fs';
    import { getPriority } from 'node:os';
    import { currentThreadId, schedulingPolicy, yieldOtherThreads } from './src/adapters/http/thread-priority.ts';
    const worker = new Worker(
      "import { parentPort } from 'node:worker_threads'; import { readlinkSync } from 'node:fs';" +
      "parentPort.postMessage(Number(readlinkSync('/proc/thread-self').split('/').pop())); setInterval(() => {}, 1000);",
      { eval: true },
    );
    const tid = await new Promise((resolve) => worker.once('message', resolve));
    const [priority, opts] = ${JSON.stringify([priority, opts])};
    const first = await yieldOtherThreads(tid, priority, opts);
    const again = await yieldOtherThreads(tid, priority, opts);
    const threads = Object.fromEntries(readdirSync('/proc/self/task').map((t) => [t, { policy: schedulingPolicy('self', Number(t)), nice: getPriority(Number(t)) }]));
    console.log(JSON.stringify({ pid: process.pid, main: currentThreadId(), tid, first, again, threads }));
    process.exit(0);
  `;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout) as Outcome;
}

const others = (out: Outcome) => Object.entries(out.threads).filter(([t]) => t !== String(out.tid));

describe.runIf(existsSync('/proc/thread-self'))('TURN_PRIORITY: other threads yield to the ingress thread (Linux)', () => {
  it('idle: every thread but the kept one gets SCHED_IDLE (V8 and libuv helpers too); a second call changes nothing', () => {
    const out = inFreshProcess('idle');
    // The main thread's kernel id is the process id.
    expect(out.main).toBe(out.pid);
    expect(out.tid).not.toBe(out.pid);
    expect(out.threads[String(out.tid)]).toEqual({ policy: 0, nice: 0 });
    expect(out.threads[String(out.pid)]?.policy).toBe(5);
    expect(others(out).length).toBeGreaterThan(1);
    expect(others(out).every(([, t]) => t.policy === 5)).toBe(true);
    expect(out.first).toEqual({ applied: 'idle', lowered: others(out).length, kept: 1, failed: 0 });
    expect(out.again).toEqual({ applied: 'idle', lowered: 0, kept: Object.keys(out.threads).length, failed: 0 });
  });

  it('a nice value: the other threads keep the normal policy at that nice value; a lower one later is not applied', () => {
    const out = inFreshProcess(7);
    expect(out.threads[String(out.tid)]).toEqual({ policy: 0, nice: 0 });
    expect(others(out).every(([, t]) => t.policy === 0 && t.nice === 7)).toBe(true);
    expect(out.first).toEqual({ applied: { nice: 7 }, lowered: others(out).length, kept: 1, failed: 0 });
    expect(out.again).toMatchObject({ lowered: 0, failed: 0 });
  });

  it('idle without chrt: nice 19 instead, and says why', () => {
    const out = inFreshProcess('idle', { chrt: '/nonexistent/chrt' });
    expect(out.threads[String(out.tid)]).toEqual({ policy: 0, nice: 0 });
    expect(others(out).every(([, t]) => t.policy === 0 && t.nice === 19)).toBe(true);
    expect(out.first).toMatchObject({ applied: { nice: 19 }, lowered: others(out).length, kept: 1, failed: 0, fallback: 'chrt (util-linux) is not installed' });
  });
});
