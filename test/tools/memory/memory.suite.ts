/**
 * Long-term memory (issue 45) through the real app (agent, tools, data port) on a given database:
 * the privacy matrix, forgetting from the tool and the /memory buttons, limits, TTL, secrets, the
 * taint gate, and a turn that recalls nothing adding nothing to the prompt.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { IncomingMessage, TurnEvent } from '../../../src/contract/turn.js';
import type { AdminDataPort } from '../../../src/data/index.js';
import { importRows } from '../../../src/data/import/run.js';
import { memoryAdminRow, tenantListRow } from '../../../src/data/rows.js';
import { MEMORY_NOTE_HEAD } from '../../../src/tools/memory/index.js';
import type { FakeToolCall } from '../../fakes/openai-server.js';
import {
  collect,
  message,
  replyOf,
  sentMessages,
  sentToolNames,
  startHarness,
  type Harness,
} from '../../helpers/harness.js';

export interface MemoryTarget {
  open(): Promise<{ port: AdminDataPort; close(): Promise<void> }>;
}

const DAY = 86_400_000;
let n = 0;

export function defineMemorySuite(label: string, target: MemoryTarget): void {
  describe(label, () => {
    let port: AdminDataPort;
    let closePort: () => Promise<void>;
    let h: Harness;
    let offsetMs = 0;

    beforeAll(async () => {
      ({ port, close: closePort } = await target.open());
      h = await startHarness({
        data: port,
        now: () => new Date(Date.now() + offsetMs),
        env: { MEMORY_MAX_PER_USER: '4', MEMORY_MAX_PER_TENANT: '12' },
      });
      // The demo tenant names its families (a PGlite template seeded before memory existed may lack it).
      await port.admin(
        'set_tenant_tools',
        { tenant: 'default', tools: ['artifacts', 'campaigns', 'competitors', 'memory', 'quotes', 'web'] },
        z.unknown(),
      );
      await importRows(port, 'tenants', (await port.defaultTenant()).id, [{ slug: 'mem-b', name: 'Tenant B' }]);
      const b = (await port.admin('list_tenants', {}, tenantListRow)).find((t) => t.slug === 'mem-b');
      await importRows(port, 'tenant_workspaces', b!.id, [{ platform: 'slack', workspace_id: 'T-B' }]);
    }, 120_000);
    afterAll(async () => {
      await h?.close();
      await closePort?.();
    });
    beforeEach(async () => {
      h.llm.reset();
      offsetMs = 0;
      await port.admin('memory_purge', { tenant: 'default' }, z.unknown());
      await port.admin('memory_purge', { tenant: 'mem-b' }, z.unknown());
    });

    /** A Slack message in tenant A (the default tenant serves the unmapped workspace T-A). */
    const slack = (text: string, over: Partial<IncomingMessage> = {}): IncomingMessage =>
      message(text, {
        platform: 'slack',
        workspaceId: 'T-A',
        channelId: 'D-alice',
        threadId: `th-${++n}`,
        userId: 'U-alice',
        isDirect: true,
        role: 'member',
        ...over,
      });
    const inChannel = (channelId: string, over: Partial<IncomingMessage> = {}) => ({
      channelId,
      isDirect: false,
      ...over,
    });

    /** Runs a turn whose model calls `call` first (if any), then answers. */
    const turn = async (m: IncomingMessage, call?: FakeToolCall): Promise<TurnEvent[]> => {
      h.llm.script(...(call ? [{ toolCalls: [call] }, { text: 'Done.' }] : [{ text: 'Answer.' }]));
      return collect(h.sb.agent.handle(m));
    };
    const remember = (m: IncomingMessage, args: Record<string, unknown>) =>
      turn(m, { name: 'remember', arguments: args });
    /** The memory note the turn's first request carried, if any. */
    const recalledIn = async (m: IncomingMessage): Promise<string | undefined> => {
      const before = h.llm.requestsTo('/chat/completions').length;
      await turn(m);
      const first = h.llm.requestsTo('/chat/completions')[before]!;
      const notes = sentMessages(first.body).filter(
        (x) => x.role === 'system' && typeof x.content === 'string' && x.content.startsWith(MEMORY_NOTE_HEAD),
      );
      expect(notes.length).toBeLessThanOrEqual(1);
      return notes[0]?.content as string | undefined;
    };
    const stored = async (tenant = 'default') => port.admin('memory_admin_list', { tenant }, memoryAdminRow);
    const toolResult = (events: TurnEvent[]) =>
      events.find((e): e is Extract<TurnEvent, { type: 'tool_result' }> => e.type === 'tool_result');

    describe('where each scope is recalled', () => {
      it('a DM note is recalled in that person’s DMs only: never in a channel, never for someone else', async () => {
        await remember(slack('Please remember that I prefer answers in Danish'), {
          scope: 'user',
          text: 'I prefer answers in Danish',
        });
        expect((await stored()).map((r) => [r.scope, r.text])).toEqual([['user', 'I prefer answers in Danish']]);

        const dm = await recalledIn(slack('Which answers do you prefer? Danish?'));
        expect(dm).toContain('<memory scope="user">I prefer answers in Danish</memory>');
        expect(await recalledIn(slack('Answers in Danish please', inChannel('C-general')))).toBeUndefined();
        expect(
          await recalledIn(slack('Answers in Danish please', { userId: 'U-bob', channelId: 'D-bob' })),
        ).toBeUndefined();
        // The same user id on another platform is another person.
        expect(await recalledIn(slack('Answers in Danish please', { platform: 'discord' }))).toBeUndefined();
      });

      it('“for all channels” makes a person’s note follow them into channels (theirs only)', async () => {
        await remember(slack('Remember for all channels: I prefer answers in Danish'), {
          scope: 'user',
          text: 'I prefer answers in Danish',
          everywhere: true,
        });
        expect(await recalledIn(slack('Answers in Danish please', inChannel('C-general')))).toContain('Danish');
        expect(
          await recalledIn(slack('Answers in Danish please', inChannel('C-general', { userId: 'U-bob' }))),
        ).toBeUndefined();
      });

      it('a channel’s note is recalled in that channel and its threads, never in another channel', async () => {
        await remember(slack('Remember: this channel plans the spring campaign', inChannel('C-spring')), {
          scope: 'channel',
          text: 'This channel plans the spring campaign launch',
        });
        expect(await recalledIn(slack('How is the spring campaign going?', inChannel('C-spring')))).toContain(
          '<memory scope="channel">This channel plans the spring campaign launch</memory>',
        );
        // Someone else, another thread of the same channel.
        expect(
          await recalledIn(slack('spring campaign status?', inChannel('C-spring', { userId: 'U-bob' }))),
        ).toContain('spring campaign');
        expect(await recalledIn(slack('How is the spring campaign going?', inChannel('C-other')))).toBeUndefined();
        expect(await recalledIn(slack('How is the spring campaign going?'))).toBeUndefined();
      });

      it('a team note is recalled for members everywhere in the tenant, never in another tenant', async () => {
        await remember(slack('Remember that our fiscal year starts in July'), {
          scope: 'team',
          text: 'Our fiscal year starts in July',
        });
        expect(
          await recalledIn(slack('When does the fiscal year start?', inChannel('C-x', { userId: 'U-bob' }))),
        ).toContain('<memory scope="team">Our fiscal year starts in July</memory>');
        expect(await recalledIn(slack('When does the fiscal year start?', { workspaceId: 'T-B' }))).toBeUndefined();
        expect(
          await recalledIn(slack('When does the fiscal year start?', inChannel('C-x', { workspaceId: 'T-B' }))),
        ).toBeUndefined();
        // A guest of A does not get the team's notes.
        expect(
          await recalledIn(
            slack('When does the fiscal year start?', inChannel('C-x', { role: 'guest', userId: 'U-g' })),
          ),
        ).toBeUndefined();
      });

      it('a guest cannot write team or channel notes; their own note keeps no phone number or email', async () => {
        const guest = { role: 'guest' as const, userId: 'U-guest', channelId: 'D-guest' };
        const team = await remember(slack('Remember that prices double tomorrow', guest), {
          scope: 'team',
          text: 'Prices double tomorrow',
        });
        expect(toolResult(team)?.summary).toBe('Not saved (guest)');
        const channel = await remember(slack('Remember this for the channel', { ...guest, ...inChannel('C-x') }), {
          scope: 'channel',
          text: 'Prices double tomorrow',
        });
        expect(toolResult(channel)?.summary).toBe('Not saved (guest)');
        expect(await stored()).toEqual([]);
        // Their own note is kept, without their contact details.
        const own = await remember(slack('Remember my contact: call +61 412 345 678 or mail bea@example.com', guest), {
          scope: 'user',
          text: 'Call me on +61 412 345 678 or mail bea@example.com',
        });
        expect(toolResult(own)?.ok).toBe(true);
        expect((await stored()).map((r) => [r.scope, r.text])).toEqual([
          ['user', 'Call me on [phone removed] or mail [email removed]'],
        ]);
        expect(JSON.stringify(replyOf(own))).toContain('emails and phones removed');
      });
    });

    describe('what is stored', () => {
      it('secrets are scrubbed as the logger scrubs them', async () => {
        const events = await remember(slack('Remember our staging login'), {
          scope: 'team',
          text: 'Staging uses password=hunter2 and key sk-abcdefghijklmnop1234 for the deploy',
        });
        expect(toolResult(events)?.ok).toBe(true);
        const [row] = await stored();
        expect(row?.text).toBe('Staging uses password=[redacted] and key sk-[redacted] for the deploy');
        // The reply and what the model reads back say what was kept, never the secret.
        expect(JSON.stringify(replyOf(events))).not.toContain('hunter2');
        expect(JSON.stringify(toolResult(events))).not.toContain('hunter2');
      });

      it('limits: 500 characters a note, MEMORY_MAX_PER_USER a person, MEMORY_MAX_PER_TENANT a tenant, each with a clear answer', async () => {
        const long = await remember(slack('Remember this'), { scope: 'user', text: 'x'.repeat(501) });
        expect(toolResult(long)?.summary).toBe('Not saved (too long)');
        for (let i = 1; i <= 4; i++)
          await remember(slack('Remember this'), { scope: 'user', text: `Note number ${i}` });
        const fifth = await remember(slack('Remember this'), { scope: 'user', text: 'Note number 5' });
        expect(toolResult(fifth)?.summary).toBe('Not saved (limit)');
        expect(replyOf(fifth)?.blocks).toContainEqual({
          type: 'context',
          items: [expect.stringContaining('you have 4 notes, the most I keep per person')],
        });
        // Others fill the tenant to 12; the 13th is refused for the tenant.
        for (let i = 5; i <= 12; i++)
          await remember(slack('Remember this', { userId: `U-${i % 3}` }), { scope: 'team', text: `Team note ${i}` });
        const full = await remember(slack('Remember this', { userId: 'U-new' }), { scope: 'team', text: 'One more' });
        expect(toolResult(full)?.summary).toBe('Not saved (limit)');
        expect(await stored()).toHaveLength(12);
      });

      it('a note expires after MEMORY_TTL_DAYS: not recalled, not listed', async () => {
        await remember(slack('Remember that our fiscal year starts in July'), {
          scope: 'team',
          text: 'Our fiscal year starts in July',
        });
        offsetMs = 364 * DAY;
        expect(await recalledIn(slack('fiscal year?'))).toContain('July');
        offsetMs = 366 * DAY;
        expect(await recalledIn(slack('fiscal year?'))).toBeUndefined();
        const list = await collect(h.sb.agent.handle(slack('', { command: { name: 'memory', options: {} } })));
        expect(replyOf(list)?.text).toBe('What I remember: 0 notes.');
      });
    });

    describe('the prompt', () => {
      it('a turn that recalls nothing adds nothing: no note, and no memory tools unless it asks to remember', async () => {
        await remember(slack('Remember that our fiscal year starts in July'), {
          scope: 'team',
          text: 'Our fiscal year starts in July',
        });
        h.llm.reset();
        expect(await recalledIn(slack('Show me recent cash-back campaigns'))).toBeUndefined();
        const [request] = h.llm.requestsTo('/chat/completions');
        expect(sentToolNames(request!.body)).not.toContain('remember');
        expect(sentToolNames(request!.body)).not.toContain('forget');
        expect(JSON.stringify(request!.body)).not.toContain('fiscal');
      });

      it('recalled notes ride after the conversation (the cacheable prefix), within MEMORY_MAX_TOKENS, and the turn record counts them', async () => {
        for (const t of ['Campaign reviews happen on Mondays', 'Campaign budgets are approved by Ana'])
          await remember(slack('Remember this'), { scope: 'team', text: t });
        const m = slack('Tell me about campaign reviews');
        h.llm.reset();
        await turn(m);
        const sent = sentMessages(h.llm.requestsTo('/chat/completions')[0]!.body);
        const note = sent.findIndex((x) => typeof x.content === 'string' && x.content.startsWith(MEMORY_NOTE_HEAD));
        expect(note).toBeGreaterThan(sent.findIndex((x) => x.role === 'user'));
        expect(sent.slice(note).every((x) => x.role === 'system')).toBe(true);
        const line = h.logs.lines.filter((l) => l.msg === 'turn').at(-1);
        expect(line).toMatchObject({ memories: 2 });
        expect(JSON.stringify(line)).not.toContain('Mondays');
      });
    });

    describe('writing waits for a person in a tainted turn', () => {
      it('a remember in a turn that brought a file waits for approval; the same request without a file runs', async () => {
        const file = {
          name: 'notes.txt',
          mediaType: 'text/plain',
          source: {
            kind: 'inline' as const,
            data: Buffer.from('Remember: our brand never says cheap.').toString('base64'),
          },
        };
        // The step pauses on the call: no answer is asked for until a person decides.
        h.llm.script({
          toolCalls: [{ name: 'remember', arguments: { scope: 'team', text: 'Our brand never says cheap' } }],
        });
        const http = { platform: 'http' as const, workspaceId: 'default', channelId: 'api' };
        const asked = slack('Remember what the file says', { ...http, attachments: [file] });
        const tainted = await collect(h.sb.agent.handle(asked));
        const pending = tainted.find(
          (e): e is Extract<TurnEvent, { type: 'approval_required' }> => e.type === 'approval_required',
        );
        expect(pending?.approvals.map((a) => a.tool)).toEqual(['remember']);
        expect(await stored()).toEqual([]);
        // The asker's OK runs the waiting call, for the asker, and the turn goes on.
        h.llm.script({ text: 'Saved.' });
        await collect(
          h.sb.agent.handle(
            slack('', {
              ...http,
              threadId: asked.threadId,
              action: { id: 'approval.approve', value: pending!.approvals[0]!.id },
            }),
          ),
        );
        expect((await stored()).map((r) => [r.text, r.platform, r.author_id])).toEqual([
          ['Our brand never says cheap', 'http', 'U-alice'],
        ]);
        const plain = await remember(slack('Remember: invoices go out on Fridays'), {
          scope: 'team',
          text: 'Invoices go out on Fridays',
        });
        expect(plain.some((e) => e.type === 'approval_required')).toBe(false);
        expect((await stored()).map((r) => r.text).sort()).toEqual([
          'Invoices go out on Fridays',
          'Our brand never says cheap',
        ]);
      });
    });

    describe('forgetting', () => {
      it('by asking (a description), and never another person’s note', async () => {
        await remember(slack('Remember that I prefer answers in Danish'), {
          scope: 'user',
          text: 'I prefer answers in Danish',
        });
        const bob = await turn(slack('Forget that I prefer Danish', { userId: 'U-bob', channelId: 'D-bob' }), {
          name: 'forget',
          arguments: { description: 'prefer answers in Danish' },
        });
        expect(toolResult(bob)?.summary).toBe('No match');
        expect(await stored()).toHaveLength(1);
        const alice = await turn(slack('Forget that I prefer Danish'), {
          name: 'forget',
          arguments: { description: 'prefer answers in Danish' },
        });
        expect(toolResult(alice)?.summary).toBe('Forgotten');
        expect(await stored()).toEqual([]);
      });

      it('/memory lists you (in a DM), this channel and the team, with Forget buttons that work for whoever may', async () => {
        await remember(slack('Remember that I prefer answers in Danish'), {
          scope: 'user',
          text: 'I prefer answers in Danish',
        });
        await remember(slack('Remember the launch', inChannel('C-spring')), {
          scope: 'channel',
          text: 'Launch is on May 2',
        });
        await remember(slack('Remember fiscal year'), { scope: 'team', text: 'Our fiscal year starts in July' });

        const dm = replyOf(await collect(h.sb.agent.handle(slack('', { command: { name: 'memory', options: {} } }))));
        expect(dm?.text).toBe('What I remember: 2 notes.');
        expect(JSON.stringify(dm?.blocks)).toContain('I prefer answers in Danish');
        expect(JSON.stringify(dm?.blocks)).toContain('Our fiscal year starts in July');

        // In the channel: its note and the team's; the person's own only as a count.
        const here = replyOf(
          await collect(
            h.sb.agent.handle(slack('', { ...inChannel('C-spring'), command: { name: 'memory', options: {} } })),
          ),
        );
        const text = JSON.stringify(here?.blocks);
        expect(text).toContain('Launch is on May 2');
        expect(text).not.toContain('Danish');
        expect(text).toContain('1 private note');
        const buttons = here?.blocks.flatMap((b) => (b.type === 'buttons' ? b.buttons : [])) ?? [];
        expect(buttons.map((b) => b.label)).toEqual(['Forget 1', 'Forget 2']);

        // A guest sees no team note and gets no button for the channel's.
        const guestView = replyOf(
          await collect(
            h.sb.agent.handle(
              slack('', {
                ...inChannel('C-spring'),
                role: 'guest',
                userId: 'U-g',
                command: { name: 'memory', options: {} },
              }),
            ),
          ),
        );
        expect(JSON.stringify(guestView?.blocks)).not.toContain('fiscal');
        expect(guestView?.blocks.some((b) => b.type === 'buttons')).toBe(false);
        // A guest clicking the channel note's button (from the member's list) is refused.
        const click = (value: string, over: Partial<IncomingMessage> = {}) =>
          collect(
            h.sb.agent.handle(slack('', { ...inChannel('C-spring'), action: { id: 'memory.forget', value }, ...over })),
          );
        const refused = replyOf(await click(buttons[0]!.value!, { role: 'guest', userId: 'U-g' }));
        expect(refused?.text).toBe('Only members of the workspace can forget team and channel notes.');
        // A member's click forgets it.
        const done = replyOf(await click(buttons[0]!.value!, { userId: 'U-bob' }));
        expect(done?.text).toBe('Forgotten (channel): “Launch is on May 2”');
        expect((await stored()).map((r) => r.scope).sort()).toEqual(['team', 'user']);
        // The three remembers (a call and an answer each); lists and clicks ask no model.
        expect(h.llm.requestsTo('/chat/completions')).toHaveLength(6);
      });
    });
  });
}
