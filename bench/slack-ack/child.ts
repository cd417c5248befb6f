/**
 * The IPC side of one app under test in bench/slack-ack.ts: the app runs in this process, the
 * bench asks for its CPU time and main-thread event-loop delay around each measured round.
 */
import { getPriority } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';

export type ToChild = { type: 'measure' } | { type: 'report' } | { type: 'stop' };
export type FromChild =
  /** `priority`: the process's nice value once the app is up (the bench changes none). */
  | { type: 'ready'; url: string; priority: string }
  | { type: 'report'; cpuMs: number; loopDelayP99Ms: number }
  | { type: 'failed'; message: string };

export async function runUnderBench(start: () => Promise<{ url: string; stop(): Promise<void> }>): Promise<void> {
  const send = (message: FromChild) => process.send?.(message);
  if (!process.send) throw new Error('started by bench/slack-ack.ts (node:child_process fork), not by hand');
  let app: { url: string; stop(): Promise<void> };
  try {
    app = await start();
  } catch (err) {
    send({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
    process.exit(1);
  }
  const loop = monitorEventLoopDelay({ resolution: 5 });
  let cpu = process.cpuUsage();
  process.on('message', (message: ToChild) => {
    if (message.type === 'measure') {
      loop.reset();
      loop.enable();
      cpu = process.cpuUsage();
    } else if (message.type === 'report') {
      const used = process.cpuUsage(cpu);
      loop.disable();
      send({ type: 'report', cpuMs: (used.user + used.system) / 1000, loopDelayP99Ms: loop.percentile(99) / 1e6 });
    } else if (message.type === 'stop') {
      void app.stop().finally(() => process.exit(0));
    }
  });
  send({ type: 'ready', url: app.url, priority: `nice ${getPriority()}` });
}
