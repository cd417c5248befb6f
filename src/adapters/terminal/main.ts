import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { createSwitchboard } from '../../wiring/app.js';
import { HELP_OPTION, readArgs } from '../../cli/args.js';
import { cliCommand } from '../../data/cli-command.js';
import { loadConfigForStartup } from '../../config/index.js';
import { createLogger } from '../../telemetry/logger.js';
import { createTerminalSession } from './session.js';
import { PLAIN_STYLE, TTY_STYLE } from './terminal-markdown.js';

const LOG_FILE = '.data/console.log';
const USAGE = `Usage: ${cliCommand('chat', '[--tenant <slug>]')}`;

/**
 * `npm run chat [-- --tenant <slug>]`: an interactive terminal chat in one thread, as the default
 * tenant or as the tenant mapped to the console workspace `<slug>` (the demo's `harbourside`;
 * map another with `npm run tenants -- approve console <slug> --tenant <slug>`). Logs (warn and
 * up, or LOG_LEVEL) go to .data/console.log when the chat is on a terminal, so no log line lands
 * inside the chat text; to stderr when stdout is a pipe or a file.
 */
async function main(): Promise<void> {
  const args = readArgs(process.argv.slice(2), { ...HELP_OPTION, tenant: { type: 'string' } });
  if (!args.ok) {
    console.error(`${args.problem}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (args.values.help) {
    console.log(USAGE);
    return;
  }
  const { values } = args;
  const config = loadConfigForStartup();
  const tty = process.stdout.isTTY === true;
  let logStream: NodeJS.WritableStream = process.stderr;
  if (tty) {
    await mkdir(dirname(LOG_FILE), { recursive: true });
    logStream = createWriteStream(LOG_FILE, { flags: 'a' });
  }
  const log = createLogger(process.env.LOG_LEVEL ? config.LOG_LEVEL : 'warn', logStream);
  const sb = await createSwitchboard(config, log);
  const workspaceId = values.tenant && values.tenant !== 'default' ? values.tenant : 'default';
  const tenant =
    workspaceId === 'default' ? await sb.data.defaultTenant() : await sb.data.resolveTenant('console', workspaceId);
  if (!tenant) {
    await sb.close();
    throw new Error(
      `--tenant ${workspaceId}: no tenant is mapped to the console workspace "${workspaceId}". ` +
        `Map one with \`npm run tenants -- approve console ${workspaceId} --tenant <slug>\`.`,
    );
  }
  let reprompt = () => {};
  const session = createTerminalSession(
    sb.agent,
    { write: (t) => process.stdout.write(t) },
    {
      filesDir: '.data/files',
      workspaceId,
      style: tty ? TTY_STYLE : PLAIN_STYLE,
      // The y/n prompt gives up when the approval expires (issue 43); the model is told.
      approvalTimeoutMs: config.APPROVAL_TIMEOUT,
      onUnprompted: () => reprompt(),
    },
  );
  console.log(
    `Switchboard console (tenant ${tenant.slug ?? tenant.name}, ${sb.data.kind} data, model ${config.OPENAI_MODEL}). \`/attach <path>\` sends a file with your next message; Ctrl-D to quit.` +
      (tty ? ` Warnings are logged to ${LOG_FILE}.` : ''),
  );

  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY });
  rl.setPrompt('you › ');
  reprompt = () => rl.prompt();
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
