/**
 * Issue 43 on Discord (the fake gateway and REST, PGlite): an approval nobody decides expires on
 * its own (the sweep, every 100 ms here): its message says so without buttons, the model is told
 * and its answer is posted, the tool does not run; a later click is told it was already decided.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { AdminDataPort } from '../../../src/data/index.js';
import type { FakeDiscord } from '../../fakes/discord/index.js';
import { sentMessages, type Harness } from '../../helpers/harness.js';
import { createNoteTool } from '../../helpers/note-tool.js';
import { buttonsOf, interactionAnswer } from './helpers.js';
import { approvalOf, expireNow, expiredApproval, useApprovalRig } from './approval-helpers.js';

const { tool: noteTool, written } = createNoteTool();

const rig = useApprovalRig({ tools: [noteTool], written, env: { APPROVAL_SWEEP_MS: '100' } });
let discord: FakeDiscord;
let data: AdminDataPort;
let h: Harness;
beforeAll(() => void ({ discord, data, h } = rig));

const messagesOf = (token: string, count = 1) => interactionAnswer(discord, token, count);

/** Makes every pending approval past its time now (as if APPROVAL_TIMEOUT had passed). */
describe('a Discord approval nobody decides', () => {
  it('expires on its own: the message says so, the model is told, the tool does not run', async () => {
    h.llm.script({ toolCalls: [{ name: 'write_note', arguments: { text: 'call the plumber' } }] });
    const ask = discord.command('ask', { question: 'note: call the plumber' });
    const { approval } = await approvalOf(discord, ask);
    const approve = buttonsOf(approval!).find((b) => b.label === 'Approve')!;
    expect(approve).toBeDefined();
    const channelId = approval!.channel_id;

    h.llm.script({ text: 'Nobody approved it in time, so I did not note it.' });
    await expireNow(data);
    const answer = await discord.waitFor(
      () =>
        [...discord.world.messages.values()].find(
          (m) => m.channel_id === channelId && m.content === 'Nobody approved it in time, so I did not note it.',
        ),
      'the answer after the expiry',
    );
    expect(answer.id).not.toBe(approval!.id);
    const updated = await expiredApproval(discord, approval!.id);
    expect(updated.content).toMatch(/^⌛ Expired at \d\d:\d\d UTC\.$/);
    expect(updated.components ?? []).toEqual([]);
    expect(written).toEqual([]);
    const last = h.llm.requestsTo('/chat/completions').at(-1)!;
    expect(JSON.stringify(sentMessages(last.body))).toContain('no one approved this call in time');
    const rows = await data.transport.sql!.query('select state, decided_by from public.tool_approvals where id = $1', [
      approve.custom_id.split('|')[1],
    ]);
    expect(rows).toEqual([{ state: 'expired', decided_by: null }]);

    // A click after the expiry (on the button as it was) runs nothing and says so.
    const click = discord.click(approval!.id, approve.custom_id);
    const [late] = await messagesOf(click.payload.token);
    expect(late!.content).toContain('already decided (expired)');
    expect(written).toEqual([]);
  });

  it('in a mention’s thread: the bot’s own approval message is edited and the answer follows in the thread', async () => {
    h.llm.script({ toolCalls: [{ name: 'write_note', arguments: { text: 'water the plants' } }] });
    const asked = discord.say({ content: 'note: water the plants', mention: true });
    const approval = await discord.waitFor(
      () => discord.messagesIn(asked.id).find((m) => buttonsOf(m).some((b) => b.label === 'Approve')),
      'the approval message in the thread',
    );

    h.llm.script({ text: 'No one approved it, so the plants stay unnoted.' });
    await expireNow(data);
    await discord.waitFor(
      () => discord.messagesIn(asked.id).some((m) => m.content === 'No one approved it, so the plants stay unnoted.'),
      'the answer in the thread',
    );
    const updated = await expiredApproval(discord, approval.id);
    expect(updated.content).toMatch(/^⌛ Expired at \d\d:\d\d UTC\.$/);
    expect(updated.components ?? []).toEqual([]);
    expect(written).toEqual([]);
  });
});
