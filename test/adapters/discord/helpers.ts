import { MessageFlags, type APIButtonComponentWithCustomId, type APIMessage } from 'discord.js';
import { z } from 'zod';
import type { AgentExtension } from '../../../src/contract/extension.js';
import type { Reply } from '../../../src/reply/model.js';
import { defineTool } from '../../../src/contract/tool.js';
import type { FakeDiscord, RecordedCall } from '../../fakes/discord/index.js';

/** A suggestion longer than a custom_id can carry: it must travel through the kv store. */
export const LONG_SUGGESTION = `Compare the weather in Oslo with ${'Bergen, Trondheim, Stavanger, Tromsø and '.repeat(3)}Bodø over the last week`;

/** Answers with fields, a file and buttons: show more (paging), clear filters, a long suggestion. */
export const reportTool = defineTool({
  name: 'weather_report',
  title: 'Preparing the report',
  description: 'A weather report with follow-up buttons.',
  input: z.object({ city: z.string() }),
  async run({ city }) {
    return {
      content: `Report for ${city} ready.`,
      summary: `report for ${city}`,
      blocks: [
        { type: 'header', text: `Weather in ${city}` },
        {
          type: 'fields',
          fields: [
            { label: 'Today', value: 'Rain, 12°' },
            { label: 'Tomorrow', value: 'Sun, 15°' },
          ],
        },
        {
          type: 'file',
          file: {
            name: 'report.csv',
            mime: 'text/csv',
            data: new TextEncoder().encode('day,weather\nmon,rain\n'),
            title: 'Report',
          },
        },
        {
          type: 'buttons',
          buttons: [
            { actionId: 'test.more', label: 'Show more', value: '2', style: 'primary' },
            { actionId: 'test.clear', label: 'Clear filters' },
            { actionId: 'suggest', label: 'Compare cities', value: LONG_SUGGESTION },
          ],
        },
        { type: 'context', items: ['Source: test data'] },
      ],
    };
  },
});

const page = (n: number): Reply => ({
  text: `Page ${n} of the report.`,
  blocks: [
    {
      type: 'cards',
      cards: [
        {
          title: `Day ${n}`,
          subtitle: 'Forecast',
          fields: [{ label: 'Weather', value: 'Cloudy' }],
          body: 'Light wind.',
        },
      ],
    },
    { type: 'buttons', buttons: [{ actionId: 'test.more', label: 'Show more', value: String(n + 1) }] },
  ],
});

export interface Recorded {
  commands: Record<string, string>[];
}

/** `test.*` buttons answer directly (paging: no model call); `/quote` becomes a message. */
export function testExtension(recorded: Recorded): AgentExtension {
  return {
    actions: {
      test: async (action) =>
        action.id === 'test.clear'
          ? { reply: { text: 'Filters cleared.', blocks: [] } }
          : { reply: page(Number(action.value ?? 2)) },
    },
    commands: {
      quote: async (options) => {
        recorded.commands.push(options);
        return { message: `Quote in ${options.mode} mode: ${options.request}` };
      },
    },
  };
}

/** A progress message ends with a status line (⏳ working, ✓/✗ a tool's result). */
export const isProgress = (m: APIMessage) => /^-# [⏳✓✗]/m.test(m.content);
export const fromBot = (discord: FakeDiscord) => (m: APIMessage) => m.author.id === discord.world.bot.id;

/** The buttons of a message's action rows. */
export const buttonsOf = (m: APIMessage) =>
  (m.components ?? []).flatMap((row) =>
    'components' in row ? (row.components as unknown[]) : [],
  ) as APIButtonComponentWithCustomId[];

/** The messages an interaction's token produced (not the message clicked), once final. */
export const interactionAnswer = (discord: FakeDiscord, token: string, count = 1) =>
  discord.waitFor(
    () => {
      const it = discord.world.interactions.get(token)!;
      const mine = [...it.messageIds]
        .map((id) => discord.world.messages.get(id))
        .filter(
          (m): m is APIMessage =>
            m !== undefined && m.id !== (('message' in it.payload && it.payload.message.id) || ''),
        );
      return (
        mine.length >= count &&
        mine.every((m) => !isProgress(m) && ((m.flags ?? 0) & MessageFlags.Loading) === 0) &&
        mine
      );
    },
    `the answer to interaction ${token.slice(0, 12)}`,
  );

/** The bot's messages in a channel once none of them shows progress any more. */
export async function finalMessages(
  discord: FakeDiscord,
  channelId: string,
  count = 1,
  label = 'the answer',
  timeoutMs?: number,
): Promise<APIMessage[]> {
  return discord.waitFor(
    () => {
      const mine = discord
        .messagesIn(channelId)
        .filter(fromBot(discord))
        .filter((m) => ((m.flags ?? 0) & MessageFlags.Loading) === 0);
      return mine.length >= count && !mine.some(isProgress) && mine;
    },
    `${label} in ${channelId}`,
    timeoutMs,
  );
}

/** Waits until the fake has received no REST call for `quietMs`. */
export async function settle(discord: FakeDiscord, quietMs = 400): Promise<void> {
  await discord.waitFor(
    () => performance.now() - (discord.calls.at(-1)?.at ?? 0) > quietMs,
    'the bot to go quiet',
    15_000,
  );
}

/** Calls whose body Discord's spec (or its limits) would refuse, and responses of ours that do not match the spec. */
export function specProblems(calls: RecordedCall[]): string[] {
  return calls.flatMap((c) => [
    ...c.problems.map((p) => `${c.method} ${c.path}: ${p}`),
    ...c.responseProblems.map((p) => `fake response to ${c.method} ${c.path}: ${p}`),
  ]);
}

/** Takes a while, so the progress message shows it working. */
export const slowReportTool = defineTool({
  name: 'slow_report',
  title: 'Compiling the long report',
  description: 'A report that takes over a second.',
  input: z.object({}),
  timeoutMs: 5_000,
  async run() {
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    return { content: 'Long report compiled.', summary: 'long report compiled' };
  },
});

/** A reply far beyond one Discord message: a 150-row table and many cards. */
export const bigReplyTool = defineTool({
  name: 'big_reply',
  title: 'Building a big reply',
  description: 'Returns more than one message can hold.',
  input: z.object({}),
  async run() {
    const rows = Array.from({ length: 150 }, (_, i) => [
      `Product ${i + 1}`,
      `${(i * 7.5).toFixed(2)} EUR`,
      i % 2 ? 'in stock' : 'backorder',
    ]);
    const cards = Array.from({ length: 14 }, (_, i) => ({
      title: `Offer ${i + 1}: ${'a very long offer title '.repeat(15)}`,
      subtitle: 'Campaign',
      body: 'Details. '.repeat(60),
      fields: Array.from({ length: 30 }, (_, j) => ({ label: `Field ${j + 1}`, value: 'value '.repeat(40) })),
    }));
    const buttons = Array.from({ length: 28 }, (_, i) => ({
      actionId: 'test.more',
      label: `Page ${i + 2}`,
      value: String(i + 2),
    }));
    return {
      content: 'Built.',
      blocks: [
        { type: 'table', columns: ['Product', 'Price', 'Stock'], rows, caption: 'Price list' },
        { type: 'cards', cards },
        { type: 'buttons', buttons },
      ],
    };
  },
});
