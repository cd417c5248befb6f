/**
 * The fake Slack in a process of its own (benchmarks keep its CPU out of the app they measure;
 * handy for trying the app by hand too). Prints one JSON line: `{ url, origin, botToken, appToken }`.
 *
 *   npx tsx test/fakes/slack/serve.ts [--socket] [--bot-user U0…]
 */
import { startFakeSlack } from './web-api.js';

const args = process.argv.slice(2);
const botIndex = args.indexOf('--bot-user');
const slack = await startFakeSlack({
  socketMode: args.includes('--socket'),
  ...(botIndex >= 0 ? { botUserId: args[botIndex + 1] } : {}),
});
console.log(
  JSON.stringify({
    url: slack.url,
    origin: slack.origin,
    botToken: slack.options.botToken,
    appToken: slack.options.appToken,
  }),
);
const stop = () => void slack.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
