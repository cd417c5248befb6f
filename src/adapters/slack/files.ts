import { z } from 'zod';
import { hostFetcher, PLATFORM_FILE_HOSTS } from '../../attachments/download.js';
import type { AttachmentFetcher, IncomingAttachment } from '../../contract/turn.js';

/**
 * Files on a Slack message (`file_share`, or files in a DM or thread): what the inbox records
 * (names, types, sizes and Slack's private URLs; no bytes), and the fetcher that downloads them
 * with the workspace's bot token (`files:read`) from Slack's file host only.
 */

const slackFile = z.object({
  name: z.string().optional(),
  title: z.string().optional(),
  mimetype: z.string().optional(),
  size: z.number().optional(),
  url_private_download: z.string().optional(),
  url_private: z.string().optional(),
  /** `hidden_by_limit` (a free workspace's old file), `tombstone` (deleted): no bytes to fetch. */
  mode: z.string().optional(),
});

export const slackFiles = z.array(z.unknown()).optional();

/** The event's `files` as attachments; a file Slack hides or deleted has no URL and is left out. */
export function attachmentsOf(files: readonly unknown[] | undefined): IncomingAttachment[] {
  const out: IncomingAttachment[] = [];
  for (const raw of files ?? []) {
    const parsed = slackFile.safeParse(raw);
    if (!parsed.success) continue;
    const f = parsed.data;
    const url = f.url_private_download ?? f.url_private;
    if (!url || f.mode === 'hidden_by_limit' || f.mode === 'tombstone') continue;
    out.push({
      name: f.name ?? f.title ?? 'file',
      mediaType: f.mimetype ?? 'application/octet-stream',
      ...(f.size !== undefined ? { size: f.size } : {}),
      source: { kind: 'url', url },
    });
  }
  return out;
}

/**
 * Downloads with the bot token, from files.slack.com (and SLACK_API_URL's host when set: a fake
 * or a proxy); a file URL elsewhere, or a redirect there, is refused and the token never leaves.
 */
export function slackFileFetcher(token: string | undefined, apiUrl: string | undefined): AttachmentFetcher {
  const hosts = [...(PLATFORM_FILE_HOSTS.slack ?? []), ...(apiUrl ? [new URL(apiUrl).hostname] : [])];
  return hostFetcher(hosts, token ? { authorization: `Bearer ${token}` } : {});
}
