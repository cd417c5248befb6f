import type { HandlerDeps } from './handler-deps.js';
import { workspaceOf, type SlackContext } from './normalize.js';

/**
 * Another app's post (or a person's message the bot does not answer) in a thread the bot
 * follows: noted, so the next turn there fetches what is new (src/adapters/slack/thread-context.ts).
 * The bot's own posts and messages outside followed threads are not noted.
 */
export async function noteUnanswered(raw: unknown, ctx: SlackContext, deps: Pick<HandlerDeps, 'state'>): Promise<void> {
  const e = raw as { ts?: unknown; thread_ts?: unknown; channel?: unknown; user?: unknown; bot_id?: unknown };
  if (typeof e.ts !== 'string' || typeof e.thread_ts !== 'string' || typeof e.channel !== 'string') return;
  if (e.ts === e.thread_ts) return;
  if ((ctx.botUserId && e.user === ctx.botUserId) || (ctx.botId && e.bot_id === ctx.botId)) return;
  const workspaceId = workspaceOf(ctx);
  if (!(await deps.state.follows(workspaceId, e.channel, e.thread_ts))) return;
  await deps.state.noteActivity(workspaceId, e.channel, e.thread_ts, e.ts);
}
