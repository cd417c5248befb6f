import { createInterface } from 'node:readline/promises';
import { createSwitchboard } from '../../app.js';
import { loadConfigForStartup } from '../../config.js';
import { createLogger } from '../../logger.js';
import { createConsoleSession } from './session.js';

/** `npm run chat`: an interactive terminal chat in one thread. Logs go to stderr at warn. */
async function main(): Promise<void> {
  const config = loadConfigForStartup();
  const log = createLogger(process.env.LOG_LEVEL ? config.LOG_LEVEL : 'warn', process.stderr);
  const sb = await createSwitchboard(config, log);
  const session = createConsoleSession(
    sb.agent,
    { write: (t) => process.stdout.write(t) },
    { filesDir: '.data/files' },
  );
  console.log(`Switchboard console (${sb.data.kind} data, model ${config.OPENAI_MODEL}). Ctrl-D to quit.`);

  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY });
  rl.setPrompt('you › ');
  rl.prompt();
  for await (const line of rl) {
    await session.send(line);
    rl.prompt();
  }
  await sb.close();
}

main().catch((err: unknown) => {
  console.error(`Switchboard console stopped: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
