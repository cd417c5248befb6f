/**
 * Issue 41, item 2, on Discord with the in-process inbox: while the database cannot be reached,
 * a DM's turn waits and runs again (no warning posted, a second message of the conversation
 * waits behind it), and is answered once the database is back; with the retries spent the user
 * gets the warning, once. The database's tenant lookups fail as pg fails when its server is gone.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDiscordAdapter } from '../../../src/adapters/discord/index.js';
import { DataError } from '../../../src/contract/data.js';
import type { AdminDataPort } from '../../../src/data/index.js';
import { startFakeDiscord, type FakeDiscord } from '../../fakes/discord/index.js';
import { openPgliteTestPort } from '../../helpers/db.js';
import { runAdapter, startHarness, type Harness } from '../../helpers/harness.js';
import { finalMessages, fromBot, settle, testExtension } from './helpers.js';

/** The port with its tenant lookups failing while `down.now`, as the pg transport's errors arrive. */
function withOutage(data: AdminDataPort, down: { now: boolean; failed: number }): AdminDataPort {
  const refused = (fn: string) => {
    down.failed++;
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    return new DataError(fn, `Database call ${fn} failed`, { cause });
  };
  return {
    ...data,
    resolveTenant: (p, w) => (down.now ? Promise.reject(refused('resolve_tenant')) : data.resolveTenant(p, w)),
    defaultTenant: () => (down.now ? Promise.reject(refused('default_tenant')) : data.defaultTenant()),
  };
}

describe('a Discord conversation while the database is away', { timeout: 60_000 }, () => {
  let data: AdminDataPort;
  let discord: FakeDiscord;
  let h: Harness;
  let stop: (() => Promise<void>) | undefined;
  const down = { now: false, failed: 0 };

  beforeAll(async () => {
    data = await openPgliteTestPort({ seedDemo: false });
    discord = await startFakeDiscord();
    h = await startHarness({
      env: { ...discord.env(), INBOX_RETRY_ATTEMPTS: '3', INBOX_RETRY_MAX_MS: '100' },
      data: withOutage(data, down),
      extensions: [testExtension({ commands: [] })],
    });
    stop = await runAdapter(h.sb, createDiscordAdapter(h.sb)!);
  });
  afterAll(async () => {
    await stop?.();
    await h?.close();
    await discord?.close();
    await data?.close();
  });
  beforeEach(() => {
    h.llm.reset();
    down.failed = 0;
  });

  it('waits, then answers both messages in order once the database is back; no warning', async () => {
    h.llm.script({ text: 'First answer.' }, { text: 'Second answer.' });
    down.now = true;
    const first = discord.dm('first question');
    await discord.waitFor(() => down.failed >= 2, 'the first turn to fail twice');
    discord.dm('second question');
    await new Promise((resolve) => setTimeout(resolve, 100));
    down.now = false;
    await finalMessages(discord, first.channel_id, 2, 'both answers');
    await settle(discord);
    const said = discord
      .messagesIn(first.channel_id)
      .filter(fromBot(discord))
      .map((m) => m.content);
    expect(said).toEqual(['First answer.', 'Second answer.']);
    expect(h.logs.lines.filter((l) => l.msg === 'turn failed')).toEqual([]);
  });

  it('tells the user once its retries are spent', async () => {
    down.now = true;
    try {
      const asked = discord.dm('are you there?');
      // The DM already holds the first test's answers: only what came after this question counts.
      const after = () =>
        discord
          .messagesIn(asked.channel_id)
          .filter(fromBot(discord))
          .filter((m) => BigInt(m.id) > BigInt(asked.id));
      await discord.waitFor(() => after().length > 0, 'the warning', 15_000);
      await settle(discord);
      expect(after().map((m) => m.content)).toEqual([expect.stringMatching(/^⚠️ I could not reach my storage/)]);
      expect(down.failed).toBe(4); // the first run and INBOX_RETRY_ATTEMPTS (3) more
    } finally {
      down.now = false;
    }
  });
});
