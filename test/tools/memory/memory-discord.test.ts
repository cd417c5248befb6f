/**
 * `/memory` on Discord (issue 45; the fake gateway and REST API, PGlite): the command answers with
 * this channel's and the team's notes, each with a Forget button; a click forgets the note
 * through the inbox like every other button, without asking the model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createDiscordAdapter } from '../../../src/adapters/discord/index.js';
import type { AdminDataPort } from '../../../src/data/index.js';
import { memoryAddedRow, memoryAdminRow } from '../../../src/data/rows.js';
import { startFakeDiscord, type FakeDiscord } from '../../fakes/discord/index.js';
import { openPgliteTestPort } from '../../helpers/db.js';
import { runAdapter, startHarness, type Harness } from '../../helpers/harness.js';
import { buttonsOf, interactionAnswer } from '../../adapters/discord/helpers.js';

let discord: FakeDiscord;
let port: AdminDataPort;
let h: Harness;
let stop: (() => Promise<void>) | undefined;

beforeAll(async () => {
  [discord, port] = await Promise.all([startFakeDiscord(), openPgliteTestPort()]);
  await port.admin(
    'set_tenant_tools',
    { tenant: 'default', tools: ['artifacts', 'campaigns', 'competitors', 'memory', 'quotes', 'web'] },
    z.unknown(),
  );
  h = await startHarness({ env: discord.env(), data: port });
  stop = await runAdapter(h.sb, createDiscordAdapter(h.sb)!);
}, 120_000);
afterAll(async () => {
  await stop?.();
  await h?.close();
  await port?.close();
  await discord?.close();
});

async function add(scope: 'channel' | 'team', text: string): Promise<string> {
  const [row] = await port.forTenant(await port.defaultTenant()).call(
    'memory_add',
    {
      scope,
      platform: 'discord',
      user_id: discord.world.people.bob.id,
      text,
      member: true,
      max_per_user: 10,
      max_per_tenant: 10,
      ttl_days: 30,
      ...(scope === 'channel' ? { channel_id: discord.world.general.id } : {}),
    },
    memoryAddedRow,
  );
  return row!.id!;
}

describe('/memory on Discord', () => {
  it('lists the channel’s and the team’s notes with Forget buttons; a click forgets one', async () => {
    await add('channel', 'The launch is on May 2');
    const team = await add('team', 'Our fiscal year starts in July');

    const list = discord.command('memory', {});
    const [answer] = await interactionAnswer(discord, list.payload.token);
    const shown = JSON.stringify(answer);
    expect(shown).toContain('The launch is on May 2');
    expect(shown).toContain('Our fiscal year starts in July');
    const buttons = buttonsOf(answer!);
    expect(buttons.map((b) => b.label)).toEqual(['Forget 1', 'Forget 2']);

    const click = discord.click(answer!.id, buttons[1]!.custom_id);
    const [done] = await interactionAnswer(discord, click.payload.token);
    expect(done!.content).toContain('Forgotten (team): “Our fiscal year starts in July”');
    const left = await port.admin('memory_admin_list', { tenant: 'default' }, memoryAdminRow);
    expect(left.map((r) => r.id)).not.toContain(team);
    expect(left.map((r) => r.text)).toEqual(['The launch is on May 2']);
    expect(h.llm.requestsTo('/chat/completions')).toHaveLength(0);
  });
});
