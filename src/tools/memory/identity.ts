import type { ThreadState } from '../../contract/thread-state.js';
import type { IncomingMessage } from '../../contract/turn.js';
import type { MemoryScope } from '../../data/rows.js';

/**
 * Who a memory call is for, from the trusted turn (the platform's ids, never the model's words):
 * the platform, the person, the channel (a Discord thread's parent, a Slack thread's channel),
 * whether it is a direct message, and whether the person is a member (guests never write or see
 * team notes, never write channel notes).
 */
export interface MemoryIdentity {
  platform: string;
  user_id: string;
  channel_id: string;
  direct: boolean;
  member: boolean;
}

/**
 * The identity of a turn, or undefined when memory does not apply: an anonymous HTTP caller is
 * known only by its address (one address may be many people), so it neither keeps nor gets notes.
 */
export function memoryIdentity(message: IncomingMessage): MemoryIdentity | undefined {
  if (message.platform === 'http' && message.role === 'guest') return undefined;
  return {
    platform: message.platform,
    user_id: message.userId,
    channel_id: message.channelId,
    direct: message.isDirect,
    member: message.role === 'member',
  };
}

/** How each scope is named to people. */
export function scopeWords(scope: MemoryScope, everywhere = false): string {
  if (scope === 'team') return 'for the whole team';
  if (scope === 'channel') return 'for this channel';
  return everywhere ? 'for you, in every conversation' : 'for you (recalled in our direct messages)';
}

/** Where the thread keeps who last asked it to remember or forget (a paused call runs for them). */
const ASKER = 'memory';

/**
 * Who a memory call is for. A call that waited for a person's OK runs in the turn of the click
 * that approved it, whose message is the approver's: it is made for the person who asked, kept in
 * the thread when the tool was offered to them (`rememberAsker`), never for whoever clicked.
 */
export function callIdentity(message: IncomingMessage, state: ThreadState): MemoryIdentity | undefined {
  if (!message.action?.id.startsWith('approval.')) return memoryIdentity(message);
  const kept = state.tools[ASKER] as { asker?: MemoryIdentity } | undefined;
  return kept?.asker;
}

/** Keeps the asker of a turn that asks to remember or forget (see `callIdentity`). */
export function rememberAsker(message: IncomingMessage, state: ThreadState): void {
  const who = memoryIdentity(message);
  if (who) state.tools[ASKER] = { asker: who };
}

/** A resumed turn (an approval's click) whose thread has an asker to run a waiting memory call for. */
export function resumesForAsker(message: IncomingMessage, state: ThreadState): boolean {
  return message.action?.id.startsWith('approval.') === true && callIdentity(message, state) !== undefined;
}
