/** `npm run discord:deploy` run as a user runs it, against the fake Discord REST. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from '../../fakes/discord/index.js';
import { specProblems } from './helpers.js';
import { slashCommands } from '../../../src/adapters/discord/commands.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

let discord: FakeDiscord;
beforeAll(async () => {
  discord = await startFakeDiscord();
});
afterAll(async () => {
  await discord.close();
});

/** The script with only the given environment (plus PATH), so nothing from the shell leaks in. */
async function deploy(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'src/adapters/discord/deploy.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('discord:deploy', () => {
  it('registers /ask and /quote globally, or in DISCORD_GUILD_ID, with spec-valid payloads', async () => {
    const [global, guild] = await Promise.all([
      deploy(discord.env()),
      deploy({ ...discord.env(), DISCORD_GUILD_ID: discord.world.guildId }),
    ]);
    // Every command the adapter declares (/ask, /quote, /switchboard, and any a tool family adds).
    const names = slashCommands()
      .map((c) => `/${c.name}`)
      .join(', ');
    expect(names).toMatch(/^\/ask, \/quote, .*\/switchboard/);
    expect(global).toMatchObject({
      code: 0,
      stdout: `Registered ${names} globally (new or changed commands can take a while to show).\n`,
    });
    expect(guild).toMatchObject({ code: 0, stdout: `Registered ${names} in server ${discord.world.guildId}.\n` });

    const puts = discord.calls.filter((c) => c.method === 'PUT');
    expect(puts.map((c) => c.path).sort()).toEqual(
      [
        `/applications/${discord.world.applicationId}/commands`,
        `/applications/${discord.world.applicationId}/guilds/${discord.world.guildId}/commands`,
      ].sort(),
    );
    expect(specProblems(discord.calls)).toEqual([]);
    const [ask, quote] = puts[0]!.body as unknown as Record<string, unknown>[];
    expect(ask).toMatchObject({
      name: 'ask',
      description: 'Ask Switchboard a question',
      contexts: [0, 1],
      integration_types: [0],
      options: [{ type: 3, name: 'question', required: true, max_length: 2_000 }],
    });
    expect(quote).toMatchObject({
      name: 'quote',
      options: [
        { type: 3, name: 'mode', required: true, choices: [{ value: 'calc' }, { value: 'price' }, { value: 'table' }] },
        { type: 3, name: 'request', required: true },
      ],
    });
  });

  it('explains a rejected token or missing settings instead of printing a stack', async () => {
    const badToken = await deploy({ ...discord.env(), DISCORD_TOKEN: 'wrong-token' });
    expect(badToken.code).toBe(1);
    expect(badToken.stderr).toMatch(/^Could not register the commands: Discord rejected DISCORD_TOKEN \(401\)/);
    expect(badToken.stderr).not.toMatch(/at .+\.ts:\d+/);

    const missing = await deploy({ DISCORD_API_URL: discord.apiUrl });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/Set DISCORD_TOKEN and DISCORD_APPLICATION_ID/);
  });
});
