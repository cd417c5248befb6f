import { webApi } from '@slack/bolt';

const WebApiErrorCode = webApi.ErrorCode;

/**
 * The Slack error code of a failed Web API call (`not_in_channel`, `ratelimited`…), for logs and
 * for deciding what to tell the user. Never includes the request (tokens) or the response body.
 */
export function slackErrorCode(err: unknown): string {
  if (isCodedError(err)) {
    switch (err.code) {
      case WebApiErrorCode.PlatformError:
        return String((err as { data?: { error?: unknown } }).data?.error ?? 'platform_error');
      case WebApiErrorCode.RateLimitedError:
        return 'ratelimited';
      case WebApiErrorCode.HTTPError:
        return `http_${(err as { statusCode?: number }).statusCode ?? 'error'}`;
      case WebApiErrorCode.RequestError:
        return 'request_failed';
      default:
        return String(err.code);
    }
  }
  // web-api retries a 429 itself and, once out of retries, rethrows its own plain Error.
  if (err instanceof Error && err.message.startsWith('A rate limit was exceeded')) return 'ratelimited';
  return 'unknown';
}

function isCodedError(err: unknown): err is Error & { code: string } {
  return err instanceof Error && typeof (err as { code?: unknown }).code === 'string';
}

/** Codes that mean our token is wrong or revoked: an admin must act, not the user. */
export const AUTH_ERROR_CODES = new Set([
  'invalid_auth',
  'not_authed',
  'token_revoked',
  'token_expired',
  'account_inactive',
  'missing_scope',
]);

/** What to tell the person who asked, for failures they can do something about. */
export function explainSlackError(code: string): string | undefined {
  switch (code) {
    case 'not_in_channel':
      return 'I’m not a member of this channel, so I can’t reply here. Invite me with `/invite @Switchboard` and ask again, or send me a direct message.';
    case 'channel_not_found':
      return 'I can’t see this conversation. If it’s a private channel, invite me with `/invite @Switchboard` first; otherwise send me a direct message.';
    case 'is_archived':
      return 'This channel is archived, so I can’t reply in it.';
    case 'ratelimited':
      return 'Slack is rate-limiting me right now, so part of my answer may be missing. Please try again in a minute.';
    case 'msg_too_long':
    case 'invalid_blocks':
      return 'Slack refused my answer’s formatting. The error has been logged; please try asking in a different way.';
    default:
      return AUTH_ERROR_CODES.has(code)
        ? 'Slack rejected my credentials. A Switchboard admin needs to check SLACK_BOT_TOKEN and the app’s scopes.'
        : undefined;
  }
}
