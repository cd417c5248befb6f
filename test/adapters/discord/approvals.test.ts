/**
 * Issue 43 on Discord (the fake gateway and REST, PGlite): a `write` call posts an approval
 * message with Approve / Deny components and runs nothing; bob's click (not the asker) changes
 * nothing and is told "only … can approve this"; alice's Approve runs the call once and the
 * answer follows; the clicked message's buttons are disabled.
 */
import { MessageFlags } from 'discord.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AdminDataPort } from '../../../src/data/index.js';
import { tenantApprovalsRow } from '../../../src/data/rows.js';
import type { FakeDiscord } from '../../fakes/discord/index.js';
import type { Harness } from '../../helpers/harness.js';
import { createNoteTool } from '../../helpers/note-tool.js';
import { buttonsOf, interactionAnswer } from './helpers.js';
import { approvalOf, useApprovalRig } from './approval-helpers.js';
import { APPROVAL_POINTER } from '../../../src/adapters/discord/approval-channel.js';

const { tool: noteTool, written } = createNoteTool();

const rig = useApprovalRig({ tools: [noteTool], written });
let discord: FakeDiscord;
let data: AdminDataPort;
let h: Harness;
beforeAll(() => void ({ discord, data, h } = rig));

const messagesOf = (token: string, count = 1) => interactionAnswer(discord, token, count);

describe('approvals on Discord', () => {
  it('Approve/Deny components; a stranger changes nothing; the asker’s Approve runs the call once', async () => {
    h.llm.script({ toolCalls: [{ name: 'write_note', arguments: { text: 'buy milk' } }] });
    const ask = discord.command('ask', { question: 'note: buy milk' });
    const { approval, answer: pointer } = await approvalOf(discord, ask);
    // The command's own answer points to the approval, which is the bot's own message (editable at any time).
    expect(pointer.content).toBe(APPROVAL_POINTER);
    expect(approval.webhook_id).toBeUndefined();
    expect(approval!.content).toContain('I need an OK before I go on');
    const approve = buttonsOf(approval!).find((b) => b.label === 'Approve')!;
    expect(buttonsOf(approval!).map((b) => b.label)).toEqual(['Approve', 'Deny']);
    expect(written).toEqual([]);

    const stranger = discord.click(approval!.id, approve.custom_id, discord.world.people.bob);
    const [refusal] = await messagesOf(stranger.payload.token);
    expect(refusal!.content).toContain('can approve this');
    expect(refusal!.flags! & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect(written).toEqual([]);

    h.llm.script({ text: 'Noted it.' });
    const click = discord.click(approval!.id, approve.custom_id);
    const [answer] = await messagesOf(click.payload.token);
    expect(answer!.content).toBe('Noted it.');
    expect(written).toEqual(['buy milk']);
  });

  it('a Discord role as approvers: its holder approves, the asker without it cannot', async () => {
    await data.admin(
      'set_tenant_approvals',
      { tenant: 'default', approvals: { approvers: { discordRole: discord.world.memberRoleId } } },
      tenantApprovalsRow,
    );
    h.llm.script({ toolCalls: [{ name: 'write_note', arguments: { text: 'from bob' } }] });
    const ask = discord.command('ask', { question: 'note: from bob' }, { author: discord.world.people.bob });
    const { approval } = await approvalOf(discord, ask);
    const approve = buttonsOf(approval!).find((b) => b.label === 'Approve')!;
    const own = discord.click(approval!.id, approve.custom_id, discord.world.people.bob);
    const [refusal] = await messagesOf(own.payload.token);
    expect(refusal!.content).toContain(
      `Only holders of the Discord role ${discord.world.memberRoleId} can approve this.`,
    );
    expect(written).toEqual([]);
    h.llm.script({ text: 'Noted it.' });
    const click = discord.click(approval!.id, approve.custom_id, discord.world.people.alice);
    await messagesOf(click.payload.token);
    expect(written).toEqual(['from bob']);
    await data.admin('set_tenant_approvals', { tenant: 'default', approvals: null }, tenantApprovalsRow);
  });
});
