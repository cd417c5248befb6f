import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDiscordAdapter } from '../../src/adapters/discord/index.js';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.js';
import { runAdapter, sentMessages, startHarness, type Harness } from '../helpers/harness.js';
import { PNG_1X1 } from '../helpers/sample-files.js';
import { finalMessages } from '../adapters/discord/helpers.js';

/**
 * Files on a Discord message, through a real discord.js client and the fake Discord: fetched
 * from the CDN host (DISCORD_API_URL's host stands in for cdn.discordapp.com), an image shown to
 * a model that takes images, and an attachment URL on another host refused and named in the answer.
 */

let discord: FakeDiscord;
let h: Harness;
let stop: (() => Promise<void>) | undefined;
let cdn: Server;
let cdnUrl: string;
const seen: string[] = [];

beforeAll(async () => {
  discord = await startFakeDiscord();
  h = await startHarness({ env: { ...discord.env(), MODEL_INPUT_IMAGES: 'on' } });
  stop = await runAdapter(h.sb, createDiscordAdapter(h.sb)!);
  cdn = createServer((req, res) => {
    seen.push(req.url ?? '');
    if (req.url?.endsWith('/chart.png')) return res.writeHead(200, { 'content-type': 'image/png' }).end(PNG_1X1);
    res.writeHead(200, { 'content-type': 'text/csv' }).end('week,signups\n1,40\n2,55\n');
  });
  await new Promise<void>((r) => cdn.listen(0, '127.0.0.1', r));
  cdnUrl = `http://127.0.0.1:${(cdn.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await stop?.();
  await h?.close();
  await discord?.close();
  await new Promise((r) => cdn.close(r));
});

const attachment = (filename: string, url: string, size = 100) => ({
  id: `${Math.floor(Math.random() * 1e15)}`,
  filename,
  size,
  url,
  proxy_url: url,
});

describe('Discord: files on a message', () => {
  it('reads a CSV and shows an image from the CDN, and refuses an attachment on another host', async () => {
    h.llm.script({ text: 'Signups grew from 40 to 55.' });
    const { world } = discord;
    const asked = world.createMessage({
      channelId: world.general.id,
      author: world.people.alice,
      content: `<@${world.bot.id}> how are signups?`,
      mentions: [world.bot],
      attachments: [
        attachment('signups.csv', `${cdnUrl}/attachments/1/2/signups.csv`),
        attachment('chart.png', `${cdnUrl}/attachments/1/3/chart.png`),
        attachment('other.csv', 'https://cdn.example.net/attachments/1/4/other.csv'),
      ],
    });
    const [answer] = await finalMessages(discord, asked.id);
    expect(seen).toEqual(['/attachments/1/2/signups.csv', '/attachments/1/3/chart.png']);
    const user = sentMessages(h.llm.lastRequest('/chat/completions')!.body).at(-1)!;
    const parts = user.content as { type: string; text?: string; image_url?: { url: string } }[];
    expect(parts[0]!.text).toContain('how are signups?');
    expect(parts[0]!.text).toContain('<attachment name="signups.csv" type="CSV table">');
    expect(parts[1]).toEqual({
      type: 'image_url',
      image_url: { url: `data:image/png;base64,${PNG_1X1.toString('base64')}` },
    });
    expect(answer!.content).toContain('Signups grew from 40 to 55.');
    expect(JSON.stringify(answer)).toContain(
      "I could not read other.csv: it is on cdn.example.net, not on the platform's own file host.",
    );
  });
});
