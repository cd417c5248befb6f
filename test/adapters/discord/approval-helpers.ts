import type { APIMessage } from 'discord.js';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createDiscordAdapter } from '../../../src/adapters/discord/index.js';
import type { AdminDataPort } from '../../../src/data/index.js';
import {
  startFakeDiscord,
  type FakeDiscord,
  type FakeDiscordOptions,
  type InteractionRecord,
} from '../../fakes/discord/index.js';
import { openPgliteTestPort } from '../../helpers/db.js';
import { runAdapter, startHarness, type Harness } from '../../helpers/harness.js';
import type { AnyTool } from '../../../src/contract/tool.js';
import { buttonsOf, interactionAnswer } from './helpers.js';

/** The app the Discord approval tests share, set once the file's first `beforeAll` ran. */
export interface ApprovalRig {
  discord: FakeDiscord;
  data: AdminDataPort;
  h: Harness;
}

/**
 * Registers the hooks of a Discord approval test file: a fake Discord, an empty PGlite, the app
 * with `tools` (the note tool) and the Discord adapter; closed after the file; the model's
 * script and `written` emptied before each test. Register it before the file's own hooks.
 */
export function useApprovalRig(opts: {
  tools: AnyTool[];
  written: string[];
  discord?: FakeDiscordOptions;
  env?: Record<string, string>;
  logLevel?: string;
}): ApprovalRig {
  const rig = {} as ApprovalRig;
  let stop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    [rig.discord, rig.data] = await Promise.all([
      startFakeDiscord(opts.discord),
      openPgliteTestPort({ seedDemo: false }),
    ]);
    rig.h = await startHarness({
      tools: opts.tools,
      env: { ...rig.discord.env(), ...opts.env },
      data: rig.data,
      ...(opts.logLevel ? { logLevel: opts.logLevel } : {}),
    });
    stop = await runAdapter(rig.h.sb, createDiscordAdapter(rig.h.sb)!);
  });
  afterAll(async () => {
    await stop?.();
    await rig.h?.close();
    await rig.data?.close();
    await rig.discord?.close();
  });
  beforeEach(() => {
    opts.written.length = 0;
    rig.h.llm.reset();
  });
  return rig;
}

/**
 * The approval message an interaction's turn posted (issue 43): the bot's own message in the
 * interaction's channel (so its expiry can always edit it), once the interaction's own answer is
 * final (a slash command's points to it). Also returns that answer.
 */
export async function approvalOf(
  discord: FakeDiscord,
  it: InteractionRecord,
): Promise<{ approval: APIMessage; answer: APIMessage }> {
  const [answer] = await interactionAnswer(discord, it.payload.token);
  const channelId = it.payload.channel?.id ?? '';
  const approval = await discord.waitFor(
    () =>
      discord
        .messagesIn(channelId)
        .filter((m) => m.author.id === discord.world.bot.id && !m.webhook_id && !it.messageIds.has(m.id))
        .filter((m) => buttonsOf(m).some((b) => b.label === 'Approve' && !b.disabled))
        .at(-1),
    'the approval message in the channel',
  );
  return { approval, answer: answer! };
}

/** Every pending approval is past its expiry now: the sweep's next pass expires them. */
export async function expireNow(data: AdminDataPort): Promise<void> {
  await data.transport.sql!.query(
    "update public.tool_approvals set expires_at = now() - interval '1 second' where state = 'pending'",
  );
}

/** The approval message once its expiry edited it ("⌛ Expired at …"). */
export function expiredApproval(discord: FakeDiscord, approvalId: string): Promise<APIMessage> {
  return discord.waitFor(() => {
    const m = discord.world.messages.get(approvalId)!;
    return m.content.startsWith('⌛') && m;
  }, 'the approval message saying it expired');
}
