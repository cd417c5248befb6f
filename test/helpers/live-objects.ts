/**
 * How many objects with a given prototype are alive, after a full garbage collection: the
 * inspector's `Runtime.queryObjects` (what DevTools' memory panel uses). For tests that check a
 * call leaves nothing behind, where counting heap bytes would be noise.
 */
import { Session } from 'node:inspector/promises';

/** `prototype` is an expression evaluated in this process, e.g. `'AbortSignal.prototype'`. */
export async function liveObjectCounter(prototype: string): Promise<() => Promise<number>> {
  const session = new Session();
  session.connect();
  const { result } = await session.post('Runtime.evaluate', { expression: prototype });
  if (!result.objectId) throw new Error(`${prototype} is not an object`);
  const prototypeObjectId = result.objectId;
  return async () => {
    const { objects } = await session.post('Runtime.queryObjects', { prototypeObjectId });
    const { result: count } = await session.post('Runtime.callFunctionOn', {
      objectId: objects.objectId!,
      functionDeclaration: 'function () { return this.length; }',
      returnByValue: true,
    });
    await session.post('Runtime.releaseObject', { objectId: objects.objectId! });
    return count.value as number;
  };
}
