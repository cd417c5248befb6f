import type { Inbox } from '../../src/inbox/index.js';

/**
 * Resolves once the inbox has nothing waiting or running: the signal a "nothing else happened"
 * check waits on. Events are recorded before they are acked, so once every request the test sent
 * has its answer, an idle inbox means every turn they could cause has run to its end.
 */
export async function inboxIdle(inbox: Pick<Inbox, 'stats'>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { pending } = await inbox.stats();
    if (pending === 0) return;
    if (Date.now() > deadline) throw new Error(`the inbox still had ${pending} entries after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
