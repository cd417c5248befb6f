import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { createSwitchboard } from '../../app.js';
import { loadConfigForStartup } from '../../config.js';
import { createLogger } from '../../logger.js';
import { createConsoleSession } from './session.js';

/**
 * `npm run chat [-- --tenant <slug>]`: an interactive terminal chat in one thread, as the default
 * tenant or as the tenant mapped to the console workspace `<slug>` (the demo's `harbourside`;
 * map another with `npm run tenants -- approve console <slug> --tenant <slug>`). Logs go to stderr at warn.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { tenant: { type: 'string' } } });
  const config = loadConfigForStartup();
  const log = createLogger(process.env.LOG_LEVEL ? config.LOG_LEVEL : 'warn', process.stderr);
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
  const session = createConsoleSession(
    sb.agent,
    { write: (t) => process.stdout.write(t) },
    { filesDir: '.data/files', workspaceId },
  );
  console.log(
    `Switchboard console (tenant ${tenant.slug ?? tenant.name}, ${sb.data.kind} data, model ${config.OPENAI_MODEL}). Ctrl-D to quit.`,
  );

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
