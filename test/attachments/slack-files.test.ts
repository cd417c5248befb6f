import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sentMessages } from '../helpers/harness.js';
import { makePdf } from '../helpers/sample-files.js';
import { eventBody, mention, postEvent, sign, startSlackRig, type SlackRig } from '../adapters/slack/setup.js';

/**
 * A file shared with a mention in Slack, through the real adapter (Bolt, HTTP mode) and the fake
 * Slack: downloaded with the bot token from Slack's file host (the fake's host stands in for
 * files.slack.com), read into the model's message; a file URL on another host is refused and
 * named in the reply.
 */

let rig: SlackRig;
let files: Server;
let filesUrl: string;
const seen: { url: string; authorization?: string }[] = [];

beforeAll(async () => {
  rig = await startSlackRig({ mode: 'http' });
  const pdf = makePdf(['Brief: launch in March.']);
  files = createServer((req, res) => {
    seen.push({
      url: req.url ?? '',
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
    });
    if (req.headers.authorization !== `Bearer ${rig.slack.options.botToken}`)
      return res.writeHead(302, { location: '/login' }).end();
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': pdf.length }).end(pdf);
  });
  await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await rig.close();
  await new Promise((r) => files.close(r));
});

describe('Slack: files shared with a mention', () => {
  it('downloads them with the bot token from the file host, refuses another host, and says so in the thread', async () => {
    rig.llm.script({ text: 'The brief says March.' });
    const event = mention('what does the brief say?', {
      files: [
        {
          id: 'F0BRIEF',
          name: 'brief.pdf',
          mimetype: 'application/pdf',
          size: 600,
          url_private_download: `${filesUrl}/files-pri/T0FAKETEAM-F0BRIEF/download/brief.pdf`,
        },
        {
          id: 'F0ELSE',
          name: 'elsewhere.txt',
          mimetype: 'text/plain',
          size: 10,
          url_private_download: 'https://files.example.com/elsewhere.txt',
        },
        { id: 'F0GONE', name: 'gone.txt', mode: 'tombstone' },
      ],
    });
    expect((await postEvent(rig.eventsUrl, eventBody(event), sign())).status).toBe(200);
    await rig.delivered(1, 20_000);
    expect(seen).toEqual([
      {
        url: '/files-pri/T0FAKETEAM-F0BRIEF/download/brief.pdf',
        authorization: `Bearer ${rig.slack.options.botToken}`,
      },
    ]);
    const user = sentMessages(rig.llm.lastRequest('/chat/completions')!.body).at(-1)!;
    expect(user.content).toContain('<attachment name="brief.pdf" type="PDF">\nBrief: launch in March.\n</attachment>');
    expect(user.content).toContain(
      "I could not read elsewhere.txt: it is on files.example.com, not on the platform's own file host.",
    );
    const posted = JSON.stringify(rig.slack.threadReplies('C0CHAN1', event.ts));
    expect(posted).toContain('The brief says March.');
    expect(posted).toContain(
      "I could not read elsewhere.txt: it is on files.example.com, not on the platform's own file host.",
    );
  });
});
