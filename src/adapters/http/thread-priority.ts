import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * This thread's kernel thread id (Linux: `/proc/thread-self` → `<pid>/task/<tid>`), or
 * undefined where there is no such file (other systems, a /proc that is not mounted).
 */
export function currentThreadId(): number | undefined {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}

/** `idle`: Linux's SCHED_IDLE policy; a number 1–19: that nice value; 0: leave priorities alone. */
export type TurnPriority = 'idle' | number;

export interface Yielded {
  /** What the other threads got: SCHED_IDLE, or a nice value (also the fallback when `chrt` is missing). */
  applied: 'idle' | { nice: number };
  /** Threads changed. */
  lowered: number;
  /** Threads left alone: `keep`, and any already at that priority or lower. */
  kept: number;
  /** Threads the kernel refused to change (gone meanwhile, or not ours). */
  failed: number;
  /** Why `idle` became a nice value. */
  fallback?: string;
}

/** SCHED_IDLE's number in the kernel's ABI (`/proc/<pid>/task/<tid>/stat`, field 41). */
const SCHED_IDLE = 5;

/** A thread's scheduling policy (0 normal, 3 batch, 5 idle, …), or undefined if it is gone. */
export function schedulingPolicy(pid: number | 'self', tid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    // Fields after the parenthesised command name start at field 3; the policy is field 41.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[41 - 3]);
  } catch {
    return undefined;
  }
}

function threadsOfThisProcess(): number[] | undefined {
  try {
    return readdirSync('/proc/self/task')
      .map(Number)
      .filter((tid) => Number.isInteger(tid) && tid > 0);
  } catch {
    return undefined;
  }
}

function niceAll(tids: number[], keep: number, nice: number): Yielded {
  const result: Yielded = { applied: { nice }, lowered: 0, kept: 0, failed: 0 };
  for (const tid of tids) {
    try {
      if (tid === keep || getPriority(tid) >= nice) {
        result.kept++;
        continue;
      }
      setPriority(tid, nice);
      result.lowered++;
    } catch {
      result.failed++;
    }
  }
  return result;
}

/**
 * Gives every thread of this process except `keep` a lower CPU priority, so that when the CPUs
 * are busy the kernel runs `keep` first:
 * - `idle`: the SCHED_IDLE policy (set with util-linux's `chrt`, as Node has no call for it):
 *   those threads run whenever `keep` does not want the CPU, and a waking `keep` preempts them
 *   at once. Without `chrt` (or where it fails for all), nice 19 instead.
 * - a nice value 1–19: the threads keep the normal policy with a smaller CPU share.
 *
 * On Linux both belong to a thread, not the process; threads started later inherit their
 * creator's. Neither needs a privilege, and neither can be undone without one. Returns
 * undefined where threads cannot be listed (no /proc): nothing was changed.
 */
export async function yieldOtherThreads(keep: number, priority: TurnPriority, opts: { chrt?: string } = {}): Promise<Yielded | undefined> {
  const tids = threadsOfThisProcess();
  if (!tids) return undefined;
  if (priority !== 'idle') return niceAll(tids, keep, priority);
  const result: Yielded = { applied: 'idle', lowered: 0, kept: 0, failed: 0 };
  const errors: string[] = [];
  await Promise.all(
    tids.map(async (tid) => {
      if (tid === keep || schedulingPolicy('self', tid) === SCHED_IDLE) return void result.kept++;
      try {
        await run(opts.chrt ?? 'chrt', ['--idle', '--pid', '0', String(tid)], { timeout: 5_000 });
        result.lowered++;
      } catch (err) {
        result.failed++;
        errors.push((err as NodeJS.ErrnoException).code === 'ENOENT' ? 'chrt (util-linux) is not installed' : ((err as Error).message.split('\n')[0] ?? 'chrt failed'));
      }
    }),
  );
  if (result.lowered > 0 || result.failed === 0) return result;
  return { ...niceAll(tids, keep, 19), fallback: errors[0] };
}
