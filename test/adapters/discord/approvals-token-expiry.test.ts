/**
 * Issue 43 on Discord: a slash command's approval outlives the interaction's token (15 minutes,
 * as long as APPROVAL_TIMEOUT by default; 4 s in this fake). Its approval message is the bot's
 * own channel message, so when nobody decides it, the expiry still edits it: it says it expired
 * and its buttons go; the model's answer follows in the channel; the tool never runs.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AdminDataPort } from '../../../src/data/index.js';
import type { FakeDiscord } from '../../fakes/discord/index.js';
import type { Harness } from '../../helpers/harness.js';
import { createNoteTool } from '../../helpers/note-tool.js';
import { buttonsOf } from './helpers.js';
import { approvalOf, expiredApproval, expireNow, useApprovalRig } from './approval-helpers.js';

// Long enough for the first answer on a loaded CI machine, short enough to wait out.
const TOKEN_LIFETIME_MS = 12_000;
const { tool: noteTool, written } = createNoteTool();

const rig = useApprovalRig({
  tools: [noteTool],
  written,
  discord: { tokenLifetimeMs: TOKEN_LIFETIME_MS },
  env: { APPROVAL_SWEEP_MS: '100' },
});
let discord: FakeDiscord;
let data: AdminDataPort;
let h: Harness;
beforeAll(() => void ({ discord, data, h } = rig));

describe('a slash command’s approval after its interaction token expired', () => {
  it('still loses its buttons and says it expired; the answer follows in the channel', async () => {
    h.llm.script({ toolCalls: [{ name: 'write_note', arguments: { text: 'renew the lease' } }] });
    const ask = discord.command('ask', { question: 'note: renew the lease' });
    const { approval } = await approvalOf(discord, ask);
    expect(buttonsOf(approval).map((b) => b.label)).toEqual(['Approve', 'Deny']);

    // The interaction's token is dead: its webhook can no longer edit anything.
    await sleep(TOKEN_LIFETIME_MS + 200);
    const edits = discord.calls.length;
    h.llm.script({ text: 'Nobody approved the note in time, so I did not write it.' });
    await expireNow(data);
    const updated = await expiredApproval(discord, approval.id);
    expect(updated.content).toMatch(/^⌛ Expired at \d\d:\d\d UTC\.$/);
    expect(updated.components ?? []).toEqual([]);
    await discord.waitFor(
      () =>
        discord
          .messagesIn(approval.channel_id)
          .some((m) => m.content === 'Nobody approved the note in time, so I did not write it.'),
      'the answer after the expiry',
    );
    // The message was edited with the bot token, not through the dead webhook.
    const later = discord.calls.slice(edits);
    expect(
      later.some((c) => c.method === 'PATCH' && c.path.includes(`/messages/${approval.id}`) && c.status === 200),
    ).toBe(true);
    expect(later.filter((c) => c.path.includes('/webhooks/') && c.status === 401)).toEqual([]);
    expect(written).toEqual([]);
  }, 90_000);
});
