import { z } from 'zod';
import { domainList, hex32, optionalString, optionalUrl, type Report } from './fields.js';

/** Slack: one workspace (a bot token) or many (OAuth), over HTTP events or Socket Mode. */
export const slackSettings = z.object({
  SLACK_BOT_TOKEN: optionalString,
  SLACK_SIGNING_SECRET: optionalString,
  SLACK_APP_TOKEN: optionalString,
  SLACK_API_URL: optionalUrl,
  /** OAuth (many workspaces): Basic Information → App Credentials. */
  SLACK_CLIENT_ID: optionalString,
  SLACK_CLIENT_SECRET: optionalString,
  /** Signs the OAuth `state` (any long random string). */
  SLACK_STATE_SECRET: optionalString,
  /** The redirect URL Slack sends installers back to, when the app lists more than one (default: Slack uses the first). */
  SLACK_REDIRECT_URL: optionalUrl,
  /** Seals installation tokens at rest: 32 bytes as 64 hex characters (`openssl rand -hex 32`). */
  SLACK_TOKEN_ENCRYPTION_KEY: hex32('is 32 bytes as 64 hexadecimal characters (openssl rand -hex 32)'),
  /** Comma-separated domains whose links may unfurl in Slack (a domain covers its subdomains); every other link is posted with unfurling off. */
  SLACK_UNFURL_DOMAINS: domainList,
});

/** The Slack settings that only make sense together: a way in for events, one install mode. */
export function checkSlackSettings(c: z.infer<typeof slackSettings>, report: Report): void {
  const oauth = Boolean(c.SLACK_CLIENT_ID || c.SLACK_CLIENT_SECRET || c.SLACK_STATE_SECRET);
  if ((c.SLACK_SIGNING_SECRET || c.SLACK_APP_TOKEN) && !c.SLACK_BOT_TOKEN && !oauth)
    report(
      'SLACK_BOT_TOKEN',
      'is required when Slack is configured (xoxb-…), unless the app is installed through OAuth (SLACK_CLIENT_ID…)',
    );
  if (oauth) {
    for (const name of [
      'SLACK_CLIENT_ID',
      'SLACK_CLIENT_SECRET',
      'SLACK_STATE_SECRET',
      'SLACK_TOKEN_ENCRYPTION_KEY',
    ] as const) {
      if (!c[name])
        report(
          name,
          'is required for Slack OAuth (SLACK_CLIENT_ID, SLACK_CLIENT_SECRET, SLACK_STATE_SECRET and SLACK_TOKEN_ENCRYPTION_KEY go together)',
        );
    }
    if (c.SLACK_BOT_TOKEN)
      report(
        'SLACK_BOT_TOKEN',
        'is for one workspace; with SLACK_CLIENT_ID every workspace installs through /slack/install. Unset one of them',
      );
    if (!c.SLACK_SIGNING_SECRET && !c.SLACK_APP_TOKEN)
      report(
        'SLACK_SIGNING_SECRET',
        'Slack OAuth is configured but events cannot arrive: set SLACK_SIGNING_SECRET (HTTP events) or SLACK_APP_TOKEN (Socket Mode)',
      );
  }
  if (c.SLACK_BOT_TOKEN && !c.SLACK_SIGNING_SECRET && !c.SLACK_APP_TOKEN)
    report(
      'SLACK_APP_TOKEN',
      'SLACK_BOT_TOKEN is set but neither SLACK_APP_TOKEN (Socket Mode) nor SLACK_SIGNING_SECRET (HTTP events) is; set one',
    );
}
