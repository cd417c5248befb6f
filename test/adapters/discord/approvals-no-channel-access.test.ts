/**
 * Issue 43 on Discord, where the bot cannot post in the channel (Discord refuses its channel
 * messages: 403 Missing Access, 50001, or Missing Permissions, 50013). A slash command's approval
 * cannot be the bot's own channel message then, so it goes through the interaction's webhook and
 * a warning says why (structured, no stack at info). It still shows with its buttons and a click
 * decides it. Its expiry can edit it only while the interaction's token lives and the bot can
 * read the channel (Missing Access hides it); otherwise its buttons stay (as the README says) and
 * a click on them is told it expired. The fake refuses the calls with Discord's error body.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import type { APIMessage } from 'discord.js';
import { APPROVAL_POINTER } from '../../../src/adapters/discord/approval-channel.js';
import type { AdminDataPort } from '../../../src/data/index.js';
import type { FakeDiscord, RestFailure } from '../../fakes/discord/index.js';
import type { Harness } from '../../helpers/harness.js';
import { createNoteTool } from '../../helpers/note-tool.js';
import { expireNow, expiredApproval, useApprovalRig } from './approval-helpers.js';
import { buttonsOf, interactionAnswer, specProblems } from './helpers.js';

// Long enough for the first answer on a loaded CI machine, short enough to wait out.
const TOKEN_LIFETIME_MS = 12_000;
const MISSING_ACCESS: RestFailure = { status: 403, code: 50001, message: 'Missing Access' };
const MISSING_PERMISSIONS: RestFailure = { status: 403, code: 50013, message: 'Missing Permissions' };
const FALLBACK_LOG = 'could not post the approval in the channel; sent through the interaction';
const { tool: noteTool, written } = createNoteTool();

let lifts: (() => void)[] = [];
const rig = useApprovalRig({
  tools: [noteTool],
  written,
  discord: { tokenLifetimeMs: TOKEN_LIFETIME_MS },
  env: { APPROVAL_SWEEP_MS: '100' },
  logLevel: 'info',
});
let discord: FakeDiscord;
let data: AdminDataPort;
let h: Harness;
beforeAll(() => void ({ discord, data, h } = rig));
beforeEach(() => {
  for (const lift of lifts) lift();
  lifts = [];
});

/**
 * From now on, Discord refuses every message the bot creates in #general with `failure`; with
 * Missing Access (no View Channel), its reads of the channel's messages too.
 */
function refusePosts(failure: RestFailure): void {
  const general = discord.world.general.id;
  const forever = Number.MAX_SAFE_INTEGER;
  lifts.push(discord.failNext('POST', new RegExp(`^/channels/${general}/messages$`), failure, forever));
  if (failure.code === MISSING_ACCESS.code)
    lifts.push(discord.failNext('GET', new RegExp(`^/channels/${general}/messages`), failure, forever));
}

/** A slash command whose turn asks to write a note; its approval, as the interaction's answer. */
async function askToNote(text: string): Promise<{ approval: APIMessage; token: string }> {
  h.llm.script({ toolCalls: [{ name: 'write_note', arguments: { text } }] });
  const ask = discord.command('ask', { question: `note: ${text}` });
  const [approval] = await interactionAnswer(discord, ask.payload.token);
  return { approval: approval!, token: ask.payload.token };
}

async function expiredInDatabase(approvalId: string): Promise<void> {
  const until = Date.now() + 10_000;
  for (;;) {
    const rows = await data.transport.sql!.query('select state from public.tool_approvals where id = $1', [approvalId]);
    if (JSON.stringify(rows) === JSON.stringify([{ state: 'expired' }])) return;
    if (Date.now() > until) throw new Error(`approval ${approvalId} not expired: ${JSON.stringify(rows)}`);
    await sleep(50);
  }
}

describe('a slash command’s approval where the bot cannot post in the channel', () => {
  it.each([
    ['Missing Access', MISSING_ACCESS],
    ['Missing Permissions', MISSING_PERMISSIONS],
  ])(
    '%s: shows through the interaction with its buttons; a click decides it, the tool runs once',
    async (_, failure) => {
      refusePosts(failure);
      const from = h.logs.lines.length;
      const { approval } = await askToNote('renew the lease');
      // The command's own answer is the approval itself (not a pointer to a channel message).
      expect(approval.webhook_id).toBeDefined();
      expect(approval.content).toContain('I need an OK before I go on');
      expect(approval.content).not.toBe(APPROVAL_POINTER);
      expect(buttonsOf(approval).map((b) => [b.label, b.disabled ?? false])).toEqual([
        ['Approve', false],
        ['Deny', false],
      ]);
      expect(discord.messagesIn(approval.channel_id).filter((m) => !m.webhook_id)).toEqual([]);
      const refused = discord.callsMatching('POST', /^\/channels\/\d+\/messages$/).filter((c) => c.status === 403);
      expect(refused.length).toBeGreaterThan(0);

      const warned = h.logs.lines.slice(from).filter((l) => String(l.msg).startsWith(FALLBACK_LOG));
      expect(warned).toEqual([
        expect.objectContaining({
          level: 40,
          code: failure.code,
          err: { type: `DiscordAPIError[${failure.code}]`, message: failure.message },
        }),
      ]);

      h.llm.script({ text: 'Noted it.' });
      const approve = buttonsOf(approval).find((b) => b.label === 'Approve')!;
      const click = discord.click(approval.id, approve.custom_id);
      const [answer] = await interactionAnswer(discord, click.payload.token);
      expect(answer!.content).toBe('Noted it.');
      expect(written).toEqual(['renew the lease']);
      const decided = await discord.waitFor(() => {
        const m = discord.world.messages.get(approval.id)!;
        return buttonsOf(m).every((b) => b.disabled) && m;
      }, 'the approval’s buttons disabled');
      expect(decided.content).toContain('I need an OK before I go on');
      expect(specProblems(discord.calls)).toEqual([]);
    },
  );

  it('expiring while the interaction token lives (Missing Permissions): the webhook takes its buttons away', async () => {
    refusePosts(MISSING_PERMISSIONS);
    const { approval } = await askToNote('call the plumber');
    h.llm.script({ text: 'Nobody approved it in time, so I did not note it.' });
    const edits = discord.calls.length;
    await expireNow(data);
    const updated = await expiredApproval(discord, approval.id);
    expect(updated.content).toMatch(/^⌛ Expired at \d\d:\d\d UTC\.$/);
    expect(updated.components ?? []).toEqual([]);
    expect(
      discord.calls
        .slice(edits)
        .some(
          (c) => c.method === 'PATCH' && c.path.endsWith(`/messages/${approval.id}`) && c.path.includes('/webhooks/'),
        ),
    ).toBe(true);
    expect(written).toEqual([]);
  });

  it('expiring while the token lives, but Missing Access hides the channel: the buttons stay, a warning says why', async () => {
    refusePosts(MISSING_ACCESS);
    const { approval } = await askToNote('book the van');
    const from = h.logs.lines.length;
    h.llm.script({ text: 'Nobody approved the van in time.' });
    await expireNow(data);
    await expiredInDatabase(buttonsOf(approval)[0]!.custom_id.split('|')[1]!);
    // The expiry finds an approval message by reading the channel, which the bot cannot do here.
    const warned = await discord.waitFor(
      () => h.logs.lines.slice(from).find((l) => l.msg === 'discord approval message not updated'),
      'the warning that the approval message was not updated',
    );
    expect(warned).toMatchObject({ level: 40, code: 50001, err: { message: 'Missing Access' } });
    expect(buttonsOf(discord.world.messages.get(approval.id)!).every((b) => !b.disabled)).toBe(true);
    const approve = buttonsOf(approval).find((b) => b.label === 'Approve')!;
    const click = discord.click(approval.id, approve.custom_id);
    const [late] = await interactionAnswer(discord, click.payload.token);
    expect(late!.content).toContain('already decided (expired)');
    expect(written).toEqual([]);
  });

  it('expiring after the interaction token lapsed: the buttons stay; a click is told it expired', async () => {
    refusePosts(MISSING_PERMISSIONS);
    const { approval } = await askToNote('order toner');
    await sleep(TOKEN_LIFETIME_MS + 200);
    h.llm.script({ text: 'Nobody approved the toner in time.' });
    await expireNow(data);
    await expiredInDatabase(buttonsOf(approval)[0]!.custom_id.split('|')[1]!);
    const kept = discord.world.messages.get(approval.id)!;
    expect(kept.content).toContain('I need an OK before I go on');
    expect(buttonsOf(kept).map((b) => [b.label, b.disabled ?? false])).toEqual([
      ['Approve', false],
      ['Deny', false],
    ]);

    const approve = buttonsOf(kept).find((b) => b.label === 'Approve')!;
    const click = discord.click(approval.id, approve.custom_id);
    const [late] = await interactionAnswer(discord, click.payload.token);
    expect(late!.content).toContain('already decided (expired)');
    expect(written).toEqual([]);
  }, 60_000);
});
