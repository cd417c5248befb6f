export interface LinkedSignal {
  readonly signal: AbortSignal;
  abort(reason: unknown): void;
  /** Clears the timer and detaches from the parents; call it when the work is over. */
  dispose(): void;
}

/**
 * The live children of each parent signal. A parent gets one listener of ours however many
 * turns or tool calls hang off it at once: a shared parent (the process's shutdown signal, the
 * in-process lock's) would otherwise collect a listener per turn in flight, and Node warns of a
 * leak past ten.
 */
const children = new WeakMap<AbortSignal, Set<AbortController>>();

function follow(parent: AbortSignal, child: AbortController): void {
  let live = children.get(parent);
  if (!live) {
    const set = new Set<AbortController>();
    live = set;
    children.set(parent, set);
    parent.addEventListener(
      'abort',
      () => {
        for (const c of set) c.abort(parent.reason);
        set.clear();
      },
      { once: true },
    );
  }
  live.add(child);
}

/**
 * A signal that aborts when any of its parents does (with that parent's reason), when `abort`
 * is called, or after `timeoutMs` (if given) with a TimeoutError, as `AbortSignal.timeout`
 * gives. It does what `AbortSignal.any([...parents, AbortSignal.timeout(ms)])` does at a
 * fraction of the cost: on Node 20 those weak references and signals were a twentieth of a
 * turn's CPU (bench/core-overhead.ts). `dispose()` detaches it from its parents.
 */
export function linkedSignal(parents: readonly (AbortSignal | undefined)[], timeoutMs?: number): LinkedSignal {
  const own = new AbortController();
  const linked = parents.filter((p): p is AbortSignal => p !== undefined);
  for (const parent of linked) {
    if (parent.aborted) own.abort(parent.reason);
    else follow(parent, own);
  }
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(
          () => own.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
          timeoutMs,
        ).unref();
  return {
    signal: own.signal,
    abort: (reason) => own.abort(reason),
    dispose() {
      clearTimeout(timer);
      for (const parent of linked) children.get(parent)?.delete(own);
    },
  };
}
