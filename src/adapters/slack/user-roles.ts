import type { webApi } from '@slack/bolt';
import { LRUCache } from 'lru-cache';
import type { UserRole } from '../../contract/turn.js';
import type { Logger } from '../../telemetry/logger.js';
import { slackErrorCode } from './slack-errors.js';

/**
 * What `users.info` says of a person, asked once for every use: the asker's role (the tool
 * limits) and thread authors' display names (issue 42's thread context). Answers are cached
 * (10,000 people, 10 minutes); failures are not, so the next turn asks again.
 *
 * Role: Slack's multi- and single-channel guests (`is_restricted`, `is_ultra_restricted`) and
 * people Slack will not describe to us (a Slack Connect stranger: `user_not_found`) are guests;
 * everyone else is a member. Without the `users:read` scope (an app created from an older
 * manifest) everyone counts as a member and one warning says what to add. Any other failure
 * counts the user as a guest for this turn: the lower limit until Slack answers again.
 */
export interface SlackRoles {
  of(client: webApi.WebClient, teamId: string, userId: string): Promise<UserRole>;
}

/** Display names per workspace and user; a person Slack does not describe is shown by their id. */
export interface SlackNames {
  of(client: webApi.WebClient, teamId: string, userId: string): Promise<string>;
}

type Person = { role: UserRole; name: string };

export function createSlackPeople(log: Logger): { roles: SlackRoles; names: SlackNames } {
  const cache = new LRUCache<string, Person>({ max: 10_000, ttl: 10 * 60_000 });
  // One request per person at a time: a role and a name asked together share it.
  const asking = new Map<string, Promise<Person>>();
  let warnedScope = false;

  async function ask(client: webApi.WebClient, userId: string, key: string): Promise<Person> {
    try {
      const res = await client.users.info({ user: userId });
      const u = res.user;
      const person: Person = {
        role: u?.is_restricted || u?.is_ultra_restricted || u?.is_stranger ? 'guest' : 'member',
        name: u?.profile?.display_name || u?.profile?.real_name || u?.real_name || u?.name || userId,
      };
      cache.set(key, person);
      return person;
    } catch (err) {
      const code = slackErrorCode(err);
      if (code === 'missing_scope' || code === 'not_allowed_token_type') {
        if (!warnedScope)
          log.warn(
            { code },
            'slack users.info refused: add the users:read scope so guests get guest limits; until then everyone counts as a member',
          );
        warnedScope = true;
        return { role: 'member', name: userId };
      }
      if (code === 'user_not_found') {
        const stranger: Person = { role: 'guest', name: userId };
        cache.set(key, stranger);
        return stranger;
      }
      log.warn({ code }, 'slack users.info failed: the user counts as a guest for this turn');
      return { role: 'guest', name: userId };
    }
  }

  function person(client: webApi.WebClient, teamId: string, userId: string): Promise<Person> {
    const key = `${teamId}:${userId}`;
    const cached = cache.get(key);
    if (cached) return Promise.resolve(cached);
    let pending = asking.get(key);
    if (!pending) {
      pending = ask(client, userId, key).finally(() => asking.delete(key));
      asking.set(key, pending);
    }
    return pending;
  }

  return {
    roles: { of: async (client, teamId, userId) => (await person(client, teamId, userId)).role },
    names: { of: async (client, teamId, userId) => (await person(client, teamId, userId)).name },
  };
}
