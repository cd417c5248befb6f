import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readAttachments, type AttachmentSettings } from '../../src/attachments/read.js';
import { slackFileFetcher } from '../../src/adapters/slack/files.js';
import type { IncomingAttachment, Platform } from '../../src/contract/turn.js';
import { captureLogs } from '../helpers/harness.js';

/**
 * Where shared files may come from: the platform's own hosts only (a configured API URL's host
 * stands in for files.slack.com and Discord's CDN here), redirects checked hop by hop, the bot
 * token sent nowhere else; downloads streamed and cut at the byte cap and the timeout.
 */

interface Recorded {
  url: string;
  authorization?: string;
}

/** A loopback file host on `address`: `routes[path]` answers, every request is recorded. */
async function fileHost(address: string, routes: Record<string, (res: ServerResponse) => void>) {
  const seen: Recorded[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push({
      url: req.url ?? '',
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
    });
    const route = routes[req.url ?? ''];
    if (route) route(res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  const { port } = server.address() as AddressInfo;
  return { seen, url: `http://${address}:${port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

let own: Awaited<ReturnType<typeof fileHost>>;
let other: Awaited<ReturnType<typeof fileHost>>;

beforeAll(async () => {
  other = await fileHost('127.0.0.2', { '/secret.txt': (res) => res.end('from elsewhere') });
  own = await fileHost('127.0.0.1', {
    '/notes.txt': (res) => res.end('meeting notes'),
    '/moved.txt': (res) => res.writeHead(302, { location: '/notes.txt' }).end(),
    '/away.txt': (res) => res.writeHead(302, { location: `${other.url}/secret.txt` }).end(),
    // No Content-Length: the cap is found while streaming.
    '/endless.txt': (res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = 'a'.repeat(16_384);
      let sent = 0;
      const push = () => {
        while (sent < 64 && res.write(chunk)) sent++;
        if (sent < 64) res.once('drain', push);
        else res.end();
      };
      push();
    },
    '/hangs.txt': () => {},
  });
});
afterAll(async () => {
  await own.close();
  await other.close();
});
beforeEach(() => {
  own.seen.length = 0;
  other.seen.length = 0;
});

const settings = (apiUrl: string): AttachmentSettings => ({
  ATTACHMENT_MAX_TOKENS: 8_000,
  ATTACHMENT_MAX_BYTES: 100_000,
  ATTACHMENT_MAX_FILES: 8,
  ATTACHMENT_DOWNLOAD_TIMEOUT_MS: 500,
  ATTACHMENT_EXTRACT_TIMEOUT_MS: 5_000,
  DISCORD_API_URL: `${apiUrl}/api`,
  SLACK_API_URL: `${apiUrl}/api/`,
});

const ref = (url: string, name = 'notes.txt'): IncomingAttachment => ({
  name,
  mediaType: 'text/plain',
  source: { kind: 'url', url },
});

async function read(platform: Platform, refs: IncomingAttachment[], token?: string) {
  const { log, logs } = captureLogs();
  const files = await readAttachments({
    platform,
    attachments: refs,
    settings: settings(own.url),
    ...(platform === 'slack' ? { fetcher: slackFileFetcher(token, `${own.url}/api/`) } : {}),
    images: false,
    signal: new AbortController().signal,
    log,
  });
  return { files, logs };
}

describe('shared files come from the platform host only', () => {
  it('downloads a Discord attachment from its file host, and follows a redirect that stays there', async () => {
    const { files } = await read('discord', [ref(`${own.url}/notes.txt`), ref(`${own.url}/moved.txt`, 'moved.txt')]);
    expect(files.problems).toEqual([]);
    expect(files.text).toContain('<attachment name="notes.txt" type="text">\nmeeting notes\n</attachment>');
    expect(files.text).toContain('<attachment name="moved.txt" type="text">\nmeeting notes\n</attachment>');
  });

  it('refuses a URL on another host without asking it', async () => {
    const { files, logs } = await read('discord', [ref(`${other.url}/secret.txt`, 'secret.txt')]);
    expect(files.problems).toEqual([
      `I could not read secret.txt: it is on ${new URL(other.url).host}, not on the platform's own file host.`,
    ]);
    expect(other.seen).toEqual([]);
    expect(logs.lines.find((l) => l.msg === 'a shared file was not read')).toMatchObject({
      kind: 'refused',
      platform: 'discord',
    });
  });

  it('refuses a redirect to another host, and the bot token never reaches it', async () => {
    const { files } = await read('slack', [ref(`${own.url}/away.txt`, 'away.txt')], 'xoxb-secret');
    expect(files.problems[0]).toMatch(
      /^I could not read away\.txt: it is on 127\.0\.0\.2:\d+, not on the platform's own file host\.$/,
    );
    expect(other.seen).toEqual([]);
    expect(own.seen).toEqual([{ url: '/away.txt', authorization: 'Bearer xoxb-secret' }]);
  });

  it('refuses plain HTTP to a public host (files.slack.com over http)', async () => {
    const { files } = await read(
      'slack',
      [ref('http://files.slack.com/files-pri/T1-F1/a.txt', 'a.txt')],
      'xoxb-secret',
    );
    expect(files.problems[0]).toMatch(/^I could not read a\.txt: it is on files\.slack\.com/);
  });

  it('stops a download at ATTACHMENT_MAX_BYTES while it streams', async () => {
    const { files } = await read('discord', [ref(`${own.url}/endless.txt`, 'endless.txt')]);
    expect(files.problems).toEqual(['I could not read endless.txt: it is over the 98 KB limit.']);
  });

  it('gives up a download past its timeout and goes on with the next file', async () => {
    const { files } = await read('discord', [ref(`${own.url}/hangs.txt`, 'hangs.txt'), ref(`${own.url}/notes.txt`)]);
    expect(files.problems).toEqual(['I could not read hangs.txt: it took too long to download.']);
    expect(files.text).toContain('meeting notes');
  });

  it('reads a declared size over the cap as too large without downloading it', async () => {
    const { files } = await read('discord', [{ ...ref(`${own.url}/notes.txt`), size: 5_000_000 }]);
    expect(files.problems).toEqual(['I could not read notes.txt: it is over the 98 KB limit.']);
    expect(own.seen).toEqual([]);
  });

  it('reads a path for the console only, and inline bytes for the HTTP API only', async () => {
    const path = { name: 'p.txt', mediaType: 'text/plain', source: { kind: 'path' as const, path: '/etc/hostname' } };
    const inline = { name: 'i.txt', mediaType: 'text/plain', source: { kind: 'inline' as const, data: 'aGk=' } };
    const fromHttp = await read('http', [path, inline]);
    expect(fromHttp.files.problems).toEqual(['I could not read p.txt: it came without its bytes.']);
    expect(fromHttp.files.text).toContain('<attachment name="i.txt" type="text">\nhi\n</attachment>');
    const fromDiscord = await read('discord', [path]);
    expect(fromDiscord.files.problems).toEqual(['I could not read p.txt: it came without a link to fetch it from.']);
  });
});
