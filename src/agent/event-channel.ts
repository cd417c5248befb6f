/**
 * A one-producer, one-consumer async queue: the turn pushes events while it runs,
 * the adapter pulls them with `for await`. Nothing is dropped; a slow consumer only
 * makes the queue longer (a turn emits at most a few hundred events).
 */
export interface EventChannel<T> extends AsyncIterable<T> {
  push(value: T): void;
  close(): void;
}

export function createEventChannel<T>(): EventChannel<T> {
  const buffer: T[] = [];
  let closed = false;
  let wake: (() => void) | undefined;

  return {
    push(value) {
      if (closed) return;
      buffer.push(value);
      wake?.();
    },
    close() {
      closed = true;
      wake?.();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        while (buffer.length > 0) yield buffer.shift() as T;
        if (closed) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    },
  };
}
