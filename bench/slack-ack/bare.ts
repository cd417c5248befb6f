/** The baseline for bench/slack-ack.ts: a bare Bolt app (HTTPReceiver) that acks `app_mention`s and does nothing else. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, LogLevel } from '@slack/bolt';
import { runUnderBench } from './child.js';

const { slackApiUrl, botToken, signingSecret } = JSON.parse(process.argv[2] ?? '{}') as {
  slackApiUrl: string;
  botToken: string;
  signingSecret: string;
};

await runUnderBench(async () => {
  const bare = new App({ token: botToken, signingSecret, clientOptions: { slackApiUrl }, logLevel: LogLevel.ERROR });
  bare.event('app_mention', async () => undefined);
  const server = (await bare.start({ port: 0, host: '127.0.0.1' })) as Server;
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: async () => void (await bare.stop()),
  };
});
