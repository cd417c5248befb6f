/**
 * Issue 43 on Discord (the fake gateway and REST, PGlite), the outcomes the other Discord files
 * leave out: Deny (the call does not run, the model is told, the clicked buttons are disabled); a
 * double click on Approve (one run, the second told it was already decided); an empty approver
 * list (the asker alone, never anyone: a stranger is refused privately); an approval a click's
 * turn asks is the bot's own channel message as well.
 */
import { MessageFlags } from 'discord.js';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AdminDataPort } from '../../../src/data/index.js';
import { tenantApprovalsRow } from '../../../src/data/rows.js';
import type { FakeDiscord } from '../../fakes/discord/index.js';
import { sentMessages, type Harness } from '../../helpers/harness.js';
import { createNoteTool } from '../../helpers/note-tool.js';
import { buttonsOf, interactionAnswer, settle } from './helpers.js';
import { approvalOf, useApprovalRig } from './approval-helpers.js';

const { tool: noteTool, written } = createNoteTool();

const rig = useApprovalRig({ tools: [noteTool], written });
let discord: FakeDiscord;
let data: AdminDataPort;
let h: Harness;
beforeAll(() => void ({ discord, data, h } = rig));
beforeEach(async () => {
  await data.admin('set_tenant_approvals', { tenant: 'default', approvals: null }, tenantApprovalsRow);
});

async function askForNote(text: string) {
  h.llm.script({ toolCalls: [{ name: 'write_note', arguments: { text } }] });
  const ask = discord.command('ask', { question: `note: ${text}` });
  const { approval } = await approvalOf(discord, ask);
  const button = (label: string) => buttonsOf(approval).find((b) => b.label === label)!;
  return { approval, approve: button('Approve'), deny: button('Deny') };
}

describe('approval outcomes on Discord', () => {
  it('Deny: the call does not run, the model is told, the clicked message’s buttons are disabled', async () => {
    const { approval, deny } = await askForNote('sell the car');
    h.llm.script({ text: 'Understood, I did not note it.' });
    const click = discord.click(approval.id, deny.custom_id);
    const [answer] = await interactionAnswer(discord, click.payload.token);
    expect(answer!.content).toBe('Understood, I did not note it.');
    expect(written).toEqual([]);
    const last = h.llm.requestsTo('/chat/completions').at(-1)!;
    expect(JSON.stringify(sentMessages(last.body))).toContain('the person declined this call');
    const clicked = await discord.waitFor(() => {
      const m = discord.world.messages.get(approval.id)!;
      return buttonsOf(m).every((b) => b.disabled) && m;
    }, 'the approval’s buttons disabled');
    expect(buttonsOf(clicked).map((b) => b.label)).toEqual(['Approve', 'Deny']);
  });

  it('a double click on Approve runs the call once; the second is told it was already decided', async () => {
    const { approval, approve } = await askForNote('water the fern');
    h.llm.script({ text: 'Noted the fern.' }); // one answer: a second resumed turn would call past the script
    const first = discord.click(approval.id, approve.custom_id);
    const second = discord.click(approval.id, approve.custom_id);
    const [a] = await interactionAnswer(discord, first.payload.token);
    const [b] = await interactionAnswer(discord, second.payload.token);
    expect([a!.content, b!.content].sort()).toEqual(['Noted the fern.', 'This was already decided (approved).']);
    await settle(discord);
    expect(written).toEqual(['water the fern']);
  });

  it('an approval asked by a click’s turn (the next call of a resumed turn) is the bot’s own message too', async () => {
    const { approval, approve } = await askForNote('first note');
    // The resumed turn calls the tool again: a second approval, asked from the click's interaction.
    h.llm.script({ toolCalls: [{ name: 'write_note', arguments: { text: 'second note' } }] });
    discord.click(approval.id, approve.custom_id);
    const next = await discord.waitFor(
      () =>
        discord
          .messagesIn(approval.channel_id)
          .find(
            (m) =>
              m.id !== approval.id &&
              m.content.includes('second note') &&
              buttonsOf(m).some((b) => b.label === 'Approve' && !b.disabled),
          ),
      'the second approval message',
    );
    expect(next.webhook_id).toBeUndefined();
    expect(next.author.id).toBe(discord.world.bot.id);
    expect(written).toEqual(['first note']);
    h.llm.script({ text: 'Both noted.' });
    const second = discord.click(next.id, buttonsOf(next).find((b) => b.label === 'Approve')!.custom_id);
    const [answer] = await interactionAnswer(discord, second.payload.token);
    expect(answer!.content).toBe('Both noted.');
    expect(written).toEqual(['first note', 'second note']);
  });

  it('an empty approver list means the asker alone: a stranger is refused privately, the asker approves', async () => {
    await data.admin(
      'set_tenant_approvals',
      { tenant: 'default', approvals: { approvers: { users: [] } } },
      tenantApprovalsRow,
    );
    const { approval, approve } = await askForNote('order paper');
    const stranger = discord.click(approval.id, approve.custom_id, discord.world.people.bob);
    const [refusal] = await interactionAnswer(discord, stranger.payload.token);
    expect(refusal!.content).toContain(`Only the person who asked`);
    expect(refusal!.flags! & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect(written).toEqual([]);
    h.llm.script({ text: 'Paper ordered.' });
    const own = discord.click(approval.id, approve.custom_id);
    const [answer] = await interactionAnswer(discord, own.payload.token);
    expect(answer!.content).toBe('Paper ordered.');
    expect(written).toEqual(['order paper']);
  });
});
