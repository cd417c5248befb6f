import type { webApi } from '@slack/bolt';
import { LRUCache } from 'lru-cache';
import type { UserRole } from '../../contract/turn.js';
import type { Logger } from '../../telemetry/logger.js';
import { slackErrorCode } from './slack-errors.js';

/**
 * Guest or member, for the tool limits: Slack's multi- and single-channel guests
 * (`is_restricted`, `is_ultra_restricted`) and people Slack will not describe to us (a Slack
 * Connect stranger: `user_not_found`) are guests; everyone else is a member. Answers from
 * `users.info` are cached (10,000 users, 10 minutes), failures are not.
 *
 * Without the `users:read` scope (an app created from an older manifest) everyone counts as a
 * member and one warning says what to add. Any other failure counts the user as a guest for
 * this turn: the lower limit until Slack answers again.
 */
export interface SlackRoles {
  of(client: webApi.WebClient, teamId: string, userId: string): Promise<UserRole>;
}

export function createSlackRoles(log: Logger): SlackRoles {
  const cache = new LRUCache<string, UserRole>({ max: 10_000, ttl: 10 * 60_000 });
  let warnedScope = false;
  return {
    async of(client, teamId, userId) {
      const key = `${teamId}:${userId}`;
      const cached = cache.get(key);
      if (cached) return cached;
      try {
        const res = await client.users.info({ user: userId });
        const role: UserRole =
          res.user?.is_restricted || res.user?.is_ultra_restricted || res.user?.is_stranger ? 'guest' : 'member';
        cache.set(key, role);
        return role;
      } catch (err) {
        const code = slackErrorCode(err);
        if (code === 'missing_scope' || code === 'not_allowed_token_type') {
          if (!warnedScope)
            log.warn(
              { code },
              'slack users.info refused: add the users:read scope so guests get guest limits; until then everyone counts as a member',
            );
          warnedScope = true;
          return 'member';
        }
        if (code === 'user_not_found') {
          cache.set(key, 'guest');
          return 'guest';
        }
        log.warn({ code }, 'slack users.info failed: the user counts as a guest for this turn');
        return 'guest';
      }
    },
  };
}
