import type {
  ActionHandler,
  ActionResult,
  AgentExtension,
  CommandHandler,
  TurnScope,
} from '../../contract/extension.js';
import { DataError } from '../../contract/data.js';
import { memoryForgetRow, memoryListRow, type MemoryScope } from '../../data/rows.js';
import type { Block, Button } from '../../reply/model.js';
import { memoryIdentity } from './identity.js';

/** Forget buttons on one list (Discord shows at most 25 on a message). */
const MAX_BUTTONS = 20;
const LISTED = 200;

const SECTIONS: { scope: MemoryScope; title: string }[] = [
  { scope: 'user', title: 'About you' },
  { scope: 'channel', title: 'This channel' },
  { scope: 'team', title: 'The team' },
];

const say = (text: string): ActionResult => ({ reply: { text, blocks: [] } });

/**
 * `/memory` (Slack and Discord): what the bot remembers about you, this channel and the team, each
 * with a Forget button (team notes only for members). A person's own notes are listed only in a
 * direct message with the bot: a channel's list is read by everyone in it.
 */
export const listMemory: CommandHandler = async (_options, scope) => {
  const who = memoryIdentity(scope.message);
  if (!who) return say('I keep no notes for anonymous callers.');
  let rows;
  try {
    rows = await scope.data.call(
      'memory_list',
      {
        platform: who.platform,
        user_id: who.user_id,
        channel_id: who.channel_id,
        member: who.member,
        limit: LISTED,
        now: scope.now().toISOString(),
      },
      memoryListRow,
    );
  } catch (err) {
    scope.log.warn({ err, code: err instanceof DataError ? err.code : undefined }, 'memory list failed');
    return say('I could not read my notes just now. Please try again in a moment.');
  }
  const own = rows.filter((r) => r.scope === 'user');
  const shown = rows.filter((r) => r.scope !== 'user' || who.direct);
  const blocks: Block[] = [];
  const buttons: Button[] = [];
  let n = 0;
  for (const { scope: s, title } of SECTIONS) {
    const items = shown.filter((r) => r.scope === s);
    if (s === 'user' && !who.direct) {
      blocks.push({
        type: 'markdown',
        text: `*${title}*\n${own.length ? `${own.length} private note${own.length === 1 ? '' : 's'}: run /memory in a direct message with me to see ${own.length === 1 ? 'it' : 'them'}.` : 'Nothing yet.'}`,
      });
      continue;
    }
    const lines = items.map((r) => {
      n++;
      const forgettable = s === 'user' || who.member;
      if (forgettable && buttons.length < MAX_BUTTONS)
        buttons.push({ actionId: 'memory.forget', label: `Forget ${n}`, value: r.id, style: 'danger' });
      return `${n}. ${r.text}${r.everywhere ? ' _(every conversation)_' : ''}`;
    });
    blocks.push({ type: 'markdown', text: `*${title}*\n${lines.length ? lines.join('\n') : 'Nothing yet.'}` });
  }
  if (buttons.length) blocks.push({ type: 'buttons', buttons });
  if (n > buttons.length)
    blocks.push({ type: 'context', items: ['More notes than buttons: ask me to forget one by describing it.'] });
  blocks.push({
    type: 'context',
    items: ['Ask me to “remember …” to add a note; notes expire after a year unless said again.'],
  });
  return { reply: { text: `What I remember: ${n} note${n === 1 ? '' : 's'}.`, blocks } };
};

/** A Forget button: the clicker's own right decides (their user note; a member for channel and team notes). */
export const forgetClicked: ActionHandler = async (action, scope: TurnScope) => {
  const who = memoryIdentity(scope.message);
  const id = action.value ?? '';
  if (!who || action.id !== 'memory.forget' || !/^[0-9a-f-]{36}$/i.test(id)) return say('That button no longer works.');
  try {
    const [row] = await scope.data.call(
      'memory_forget',
      { id, platform: who.platform, user_id: who.user_id, member: who.member, channel_id: who.channel_id },
      memoryForgetRow,
    );
    if (row?.status === 'forgotten') {
      scope.log.info({ event: 'memory_forgotten', scope: row.scope, via: 'button' }, 'memory note forgotten');
      return say(
        row.scope === 'user' ? 'Forgotten: one of your notes.' : `Forgotten (${row.scope}): “${row.text ?? ''}”`,
      );
    }
    if (row?.status === 'not_allowed')
      return say(
        who.member
          ? 'That note belongs to another channel: forget it from there.'
          : 'Only members of the workspace can forget team and channel notes.',
      );
    return say('That note is already gone.');
  } catch (err) {
    scope.log.warn({ err, code: err instanceof DataError ? err.code : undefined }, 'memory forget failed');
    return say('I could not forget that just now. Please try again in a moment.');
  }
};

export function memoryExtension(recall: AgentExtension['recall']): AgentExtension {
  return { commands: { memory: listMemory }, actions: { memory: forgetClicked }, ...(recall ? { recall } : {}) };
}
