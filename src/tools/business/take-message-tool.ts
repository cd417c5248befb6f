import { z } from 'zod';
import { DataError } from '../../contract/data.js';
import { takenMessageRow } from '../../data/rows.js';
import { defineTool } from '../../contract/tool.js';
import { hasBusiness, scopeArgs, type BusinessEnv } from './scope.js';

/**
 * `take_message`: the router's way out when a lookup cannot answer ("Would you like me to take
 * a message?"). Stores the person's name, how to reach them and the message for the tenant's
 * own business, with the platform and user it came from, and confirms.
 */
export function createTakeMessageTool(env: BusinessEnv) {
  return defineTool({
    name: 'take_message',
    title: 'Taking a message',
    // Writes a message the business's staff will read and act on.
    effect: 'write',
    description:
      'Leave a message for the business’s staff when you could not answer (a lookup failed or the information is not on file). ' +
      'Ask for the name, a phone number or email to reach them, and the message first; never invent them.',
    input: z.object({
      name: z.string().trim().min(1).max(200).describe('The person’s name'),
      contact: z.string().trim().min(3).max(200).describe('Phone number or email to reach them'),
      message: z.string().trim().min(1).max(4_000).describe('What they want the business to know'),
    }),
    timeoutMs: env.timeoutMs,
    offer: (ctx) => hasBusiness(env, ctx),
    async run({ name, contact, message }, ctx) {
      try {
        const [row] = await ctx.data.call(
          'take_message',
          {
            ...scopeArgs(ctx.tenant),
            name,
            contact,
            message,
            platform: ctx.message.platform,
            user_id: ctx.message.userId,
          },
          takenMessageRow,
        );
        ctx.log.info({ tool: 'take_message', messageId: row?.message_id }, 'message taken for the business');
        return {
          content: `Message saved for the business (reference ${row?.message_id.slice(0, 8)}). Tell the user it was passed on and someone will get back to them at ${contact}.`,
          summary: 'Message taken',
          blocks: [
            { type: 'context', items: [`✉️ Message passed on for ${name}: we’ll get back to you at ${contact}.`] },
          ],
          data: { takenMessage: { id: row?.message_id, createdAt: row?.created_at } },
        };
      } catch (err) {
        ctx.log.warn({ err, code: err instanceof DataError ? err.code : undefined }, 'could not take a message');
        return {
          content:
            'Error: the message could not be saved. Do not retry; apologise and ask the user to contact the business directly.',
          summary: 'Message not saved',
        };
      }
    },
  });
}
