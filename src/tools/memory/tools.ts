import { z } from 'zod';
import { DataError } from '../../contract/data.js';
import { defineTool, type ToolContext, type ToolOutput } from '../../contract/tool.js';
import { memoryAddedRow, memoryForgetRow, memoryRecallRow, type MemoryScope } from '../../data/rows.js';
import { storeNoteEmbedding } from './embed.js';
import {
  callIdentity,
  memoryIdentity,
  rememberAsker,
  resumesForAsker,
  scopeWords,
  type MemoryIdentity,
} from './identity.js';
import { asksToRememberOrForget } from './intent.js';
import { hasSubstance, MAX_NOTE_CHARS, scrubNote } from './scrub.js';
import type { MemoryConfig } from './settings.js';

/**
 * Offered when the turn's person may keep notes and the message asks to remember or forget (and
 * in the turn an approval resumes, so the waiting call can run). Offering keeps who asked in the
 * thread: an approved call runs for them, not for whoever clicked.
 */
function offerMemory(ctx: { message?: ToolContext['message']; state: ToolContext['state'] }): boolean {
  const { message, state } = ctx;
  if (!message) return false;
  if (resumesForAsker(message, state)) return true;
  if (memoryIdentity(message) === undefined || !asksToRememberOrForget(message.text)) return false;
  rememberAsker(message, state);
  return true;
}

const unavailable = (what: string): ToolOutput => ({
  content: `Error: the note could not be ${what} (the database did not answer). Do not retry; say so briefly.`,
  summary: `Note not ${what}`,
});

/** `remember` and `forget` (issue 45): long-term memory, written only on the person's own request. */
export function createMemoryTools(config: MemoryConfig) {
  const remember = defineTool({
    name: 'remember',
    title: 'Remembering',
    // Writes a note that later conversations will read: a tainted turn's call waits for a person.
    effect: 'write',
    selfService: true,
    description:
      'Save a note for later conversations, only when the user asks you to remember something. ' +
      'scope: user (about the person), channel (this channel’s work) or team (the whole workspace).',
    input: z.object({
      scope: z.enum(['user', 'channel', 'team']),
      text: z.string().trim().min(1).max(2_000).describe('The note, short, in the user’s words'),
      everywhere: z.boolean().optional().describe('user scope: they said to use it in every channel'),
    }),
    offer: offerMemory,
    async run(input, ctx) {
      const who = callIdentity(ctx.message, ctx.state);
      if (!who) return { content: 'Notes are not kept for anonymous callers. Tell the user.', summary: 'Not saved' };
      // A direct message has no channel of its own to remember for: the person's own note.
      const scope: MemoryScope = input.scope === 'channel' && who.direct ? 'user' : input.scope;
      if (scope !== 'user' && !who.member)
        return {
          content: `Not saved: only members of the workspace can save ${scope} notes. Offer to remember it for the user alone (scope user).`,
          summary: 'Not saved (guest)',
        };
      const scrubbed = scrubNote(input.text, who.member ? 'member' : 'guest');
      if (!hasSubstance(scrubbed.text))
        return {
          content:
            'Not saved: nothing was left to remember once secrets and contact details were removed. Tell the user.',
          summary: 'Not saved',
        };
      if (scrubbed.text.length > MAX_NOTE_CHARS)
        return {
          content: `Not saved: the note is ${scrubbed.text.length} characters; a note holds at most ${MAX_NOTE_CHARS}. Save a shorter summary.`,
          summary: 'Not saved (too long)',
        };
      let row: z.infer<typeof memoryAddedRow> | undefined;
      try {
        [row] = await ctx.data.call(
          'memory_add',
          {
            scope,
            platform: who.platform,
            user_id: who.user_id,
            text: scrubbed.text,
            member: who.member,
            max_per_user: config.MEMORY_MAX_PER_USER,
            max_per_tenant: config.MEMORY_MAX_PER_TENANT,
            ttl_days: config.MEMORY_TTL_DAYS,
            ...(scope === 'channel' ? { channel_id: who.channel_id } : {}),
            everywhere: scope === 'user' && input.everywhere === true,
            now: ctx.now().toISOString(),
          },
          memoryAddedRow,
        );
      } catch (err) {
        ctx.log.warn({ err, code: err instanceof DataError ? err.code : undefined }, 'memory not saved');
        return unavailable('saved');
      }
      if (!row) return unavailable('saved');
      // Its meaning too, where the campaigns' embedding model and pgvector are (recall by meaning).
      if (row.status === 'saved' && row.id)
        await storeNoteEmbedding(row.id, row.text, {
          model: config.EMBEDDING_MODEL,
          data: ctx.data,
          llm: ctx.llm,
          log: ctx.log,
          signal: ctx.signal,
        });
      return savedOutput(row, scrubbed.removed, config, who);
    },
  });

  const forget = defineTool({
    name: 'forget',
    title: 'Forgetting',
    effect: 'write',
    selfService: true,
    description: 'Delete a saved note when the user asks you to forget it: by its id, or by a description of it.',
    input: z.object({
      id: z.uuid().optional(),
      description: z.string().trim().min(1).max(500).optional().describe('What the note says'),
    }),
    offer: offerMemory,
    async run(input, ctx) {
      const who = callIdentity(ctx.message, ctx.state);
      if (!who) return { content: 'No notes are kept for anonymous callers.', summary: 'Nothing to forget' };
      try {
        if (input.id) return forgetOne(input.id, who, ctx);
        if (!input.description)
          return { content: 'Error: give the note’s id or a description of it.', summary: 'Nothing to forget' };
        return await forgetDescribed(input.description, who, ctx);
      } catch (err) {
        ctx.log.warn({ err, code: err instanceof DataError ? err.code : undefined }, 'memory not forgotten');
        return unavailable('forgotten');
      }
    },
  });
  return [remember, forget];
}

function savedOutput(
  row: {
    status: string;
    id: string | null;
    scope: MemoryScope;
    everywhere: boolean;
    user_count: number;
    tenant_count: number;
    text: string;
  },
  removed: string[],
  config: MemoryConfig,
  who: MemoryIdentity,
): ToolOutput {
  if (row.status === 'user_full')
    return {
      content:
        `Not saved: the user already has ${row.user_count} notes, the most one person may keep (${config.MEMORY_MAX_PER_USER}). ` +
        'Tell them to forget some first (/memory lists them).',
      summary: 'Not saved (limit)',
      blocks: [
        {
          type: 'context',
          items: [
            `Not saved: you have ${config.MEMORY_MAX_PER_USER} notes, the most I keep per person. /memory lists them.`,
          ],
        },
      ],
    };
  if (row.status === 'tenant_full')
    return {
      content: `Not saved: this workspace holds ${row.tenant_count} notes, its limit (${config.MEMORY_MAX_PER_TENANT}). Tell the user; old notes must be forgotten first.`,
      summary: 'Not saved (limit)',
      blocks: [
        {
          type: 'context',
          items: [`Not saved: this workspace already holds ${config.MEMORY_MAX_PER_TENANT} notes, its limit.`],
        },
      ],
    };
  if (row.status === 'not_allowed' || !row.id)
    return { content: 'Not saved: only members can save team or channel notes.', summary: 'Not saved (guest)' };
  const where = scopeWords(row.scope, row.everywhere);
  const note = removed.length
    ? ` (${removed.map((r) => (r === 'secret' ? 'secrets' : `${r}s`)).join(' and ')} removed)`
    : '';
  const again = row.status === 'exists' ? 'Already remembered; kept for longer' : 'Remembered';
  // In a channel, the saved text of a user note stays out of the reply others read.
  const shown = row.scope === 'user' && !who.direct ? '' : `: “${row.text}”`;
  return {
    content: `${again} ${where}${note} (id ${row.id}). Confirm briefly.`,
    summary: `${again} ${where}`,
    blocks: [{ type: 'context', items: [`🧠 ${again} ${where}${shown}${note}. /memory lists what I remember.`] }],
    data: { memory: { id: row.id, scope: row.scope, status: row.status } },
  };
}

async function forgetOne(id: string, who: MemoryIdentity, ctx: ToolContext): Promise<ToolOutput> {
  const [row] = await ctx.data.call(
    'memory_forget',
    { id, platform: who.platform, user_id: who.user_id, member: who.member, channel_id: who.channel_id },
    memoryForgetRow,
  );
  if (row?.status === 'forgotten')
    return {
      content: `Forgotten (${row.scope} note). Confirm briefly.`,
      summary: 'Forgotten',
      blocks: [{ type: 'context', items: [`🧹 Forgotten: a ${row.scope} note.`] }],
    };
  if (row?.status === 'not_allowed')
    return {
      content: who.member
        ? 'Not forgotten: that note belongs to another channel; it can be forgotten from there.'
        : 'Not forgotten: only members can forget team and channel notes.',
      summary: 'Not allowed',
    };
  return { content: `No note ${id} that this user can forget.`, summary: 'No such note' };
}

/** The best match among the notes this turn may see and the person may forget; several close ones are listed instead. */
async function forgetDescribed(description: string, who: MemoryIdentity, ctx: ToolContext): Promise<ToolOutput> {
  const hits = (
    await ctx.data.call(
      'memory_recall',
      { ...who, query: description, limit: 6, now: ctx.now().toISOString() },
      memoryRecallRow,
    )
  ).filter((h) => (h.scope === 'user' ? true : who.member));
  if (hits.length === 0)
    return {
      content: 'No saved note matches that description. Tell the user (/memory lists what is kept).',
      summary: 'No match',
    };
  const [best, second] = hits;
  if (best && (!second || best.score >= second.score * 2)) return forgetOne(best.id, who, ctx);
  return {
    content:
      'Several notes match; forget none yet. Ask the user which one, then call forget with its id:\n' +
      hits.map((h) => `- ${h.id} (${h.scope}): ${h.text}`).join('\n'),
    summary: `${hits.length} notes match`,
  };
}
