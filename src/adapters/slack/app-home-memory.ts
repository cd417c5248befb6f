import type { types } from '@slack/bolt';
import type { DataPort, Tenant } from '../../contract/data.js';
import { DataError } from '../../contract/data.js';
import { memoryListRow } from '../../data/rows.js';
import type { Logger } from '../../telemetry/logger.js';
import { escapeMrkdwn } from './text.js';

/** Notes shown on the Home tab at most (a section holds 3,000 characters; a note 500). */
const SHOWN = 5;

/**
 * The Home tab's "What I remember about you" (issue 45): the person's own notes, which only they
 * see there (the tab is theirs), newest first, and how to forget them. Channel and team notes are
 * left to `/memory` in their channel.
 */
export async function memoryHomeBlocks(
  data: DataPort,
  tenant: Tenant,
  userId: string,
  log: Logger,
): Promise<types.KnownBlock[]> {
  let own;
  try {
    own = (
      await data
        .forTenant(tenant)
        .call(
          'memory_list',
          { platform: 'slack', user_id: userId, channel_id: '', member: false, limit: 200 },
          memoryListRow,
        )
    ).filter((r) => r.scope === 'user' && r.mine);
  } catch (err) {
    log.warn({ err, code: err instanceof DataError ? err.code : undefined }, 'slack app home: memory unavailable');
    return [];
  }
  const lines = own
    .slice(0, SHOWN)
    .map((r) => `• ${escapeMrkdwn(r.text)}${r.everywhere ? ' _(every conversation)_' : ''}`);
  const more = own.length > SHOWN ? `\n…and ${own.length - SHOWN} more.` : '';
  return [
    { type: 'header', text: { type: 'plain_text', text: 'What I remember about you' } },
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: own.length
          ? `${lines.join('\n')}${more}`
          : 'Nothing yet. Tell me “remember that …” in a direct message and I will keep it for you.',
      },
    },
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: 'Only you see these, and I use them only in our direct messages unless you said “for all channels”. Run /memory in a direct message with me to forget any of them.',
        },
      ],
    },
  ];
}
