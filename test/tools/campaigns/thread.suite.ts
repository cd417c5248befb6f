import { beforeEach, expect, it } from 'vitest';
import { createHttpApp } from '../../../src/adapters/http/app.js';
import * as rows from '../../../src/data/rows.js';
import type { Button } from '../../../src/reply/model.js';
import { sentMessages } from '../../helpers/harness.js';
import { blocksOf, buttonsOf, call, daysAgo, newThread, runTurn, say, textOf, type CampaignWorld } from './setup.js';
import { peer } from '../../helpers/peer.js';

/** What a thread remembers: multi-step turns, active filters, paging and the buttons. */
export function defineThreadTests(world: () => CampaignWorld): void {
  const w = () => world();
  const T = () => w().tenant.id;
  beforeEach(() => w().llm.reset());

  it('filters, then searches the text within the filter, in one turn within the step cap', async () => {
    const turn = await runTurn(
      w(),
      'Of the recent Cash Back or Premium campaigns, which mention bonus points?',
      [
        call('filter_campaigns', { value_prop: ['Cash Back', 'Premium'], date_range: 'last_180_days' }),
        call('full_text_search', { query: '"bonus points"' }),
        say('Two of them mention bonus points.'),
      ],
      { threadId: newThread() },
    );
    expect(turn.error).toBeUndefined();
    expect(turn.requests).toBe(3);
    expect(turn.requests).toBeLessThanOrEqual(w().h.config.AGENT_MAX_STEPS);
    const expected = await w().port.call(
      'search_campaigns_by_text',
      {
        tenant_id: T(),
        query: '"bonus points"',
        value_props: ['Cash Back', 'Premium'],
        date_from: daysAgo(179),
        date_to: daysAgo(0),
        limit: 20,
      },
      rows.textCampaignRow,
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(turn.campaigns.map((c) => c.id)).toEqual(expected.map((c) => c.id));
    for (const c of turn.campaigns) {
      expect(textOf(c)).toContain('bonus points');
      expect(c.key_value_props.some((p) => p === 'Cash Back' || p === 'Premium')).toBe(true);
    }
    // The second search's cards replace the first's: one card list in the reply.
    expect(blocksOf(turn, 'cards')).toHaveLength(1);
    expect(turn.toolResults[1]).toMatch(/Filters: Value prop: Cash Back or Premium; Dates: last 180 days/);
    expect(turn.reply?.text).toBe('Two of them mention bonus points.');
  });

  it('an empty search after a successful one in the same turn keeps the cards and data of the first', async () => {
    const turn = await runTurn(
      w(),
      'x',
      [
        call('filter_campaigns', { value_prop: ['Low Price'] }),
        call('full_text_search', { query: 'quantum blockchain' }),
        say('ok'),
      ],
      { threadId: newThread() },
    );
    expect(turn.campaigns).toHaveLength(20);
    expect(turn.data.total).toBe(20);
    expect(blocksOf(turn, 'cards')).toHaveLength(1);
  });

  it('remembers the active filters: the model is told, follow-ups merge, [] drops one, reset drops all', async () => {
    const threadId = newThread();
    await runTurn(w(), 'low price campaigns', [call('filter_campaigns', { value_prop: ['Low Price'] }), say('ok')], {
      threadId,
    });
    const follow = await runTurn(
      w(),
      'only the instagram ones',
      [call('filter_campaigns', { channel: ['Instagram'] }), say('ok')],
      { threadId },
    );
    const firstRequest = w().llm.requestsTo('/chat/completions').at(-2)!;
    const system = sentMessages(firstRequest.body)
      .filter((m) => m.role === 'system')
      .map((m) => String(m.content));
    expect(system.some((s) => s.startsWith('Active campaign filters in this thread: Value prop: Low Price.'))).toBe(
      true,
    );
    expect(follow.data.detectedFilters).toEqual({ channel: ['Instagram'], value_prop: ['Low Price'] });
    const expected = await w().port.call(
      'filter_campaigns',
      { tenant_id: T(), channels: ['Instagram'], value_props: ['Low Price'], limit: 20 },
      rows.campaignRow,
    );
    expect(follow.campaigns.map((c) => c.id)).toEqual(expected.map((c) => c.id));
    expect(blocksOf(follow, 'context')[0]).toMatchObject({
      items: expect.arrayContaining(['Filters: Channel: Instagram · Value prop: Low Price']),
    });

    const anyChannel = await runTurn(
      w(),
      'all channels again',
      [call('full_text_search', { query: 'save', channel: [] }), say('ok')],
      { threadId },
    );
    expect(anyChannel.data.detectedFilters).toEqual({ value_prop: ['Low Price'] });
    expect(new Set(anyChannel.campaigns.map((c) => c.channel)).size).toBeGreaterThan(1);
    const fresh = await runTurn(
      w(),
      'new topic: fiber',
      [call('full_text_search', { query: 'fiber', reset_filters: true }), say('ok')],
      { threadId },
    );
    expect(fresh.data.detectedFilters).toEqual({});
    expect(buttonsOf(fresh).map((b) => b.label)).not.toContain('Clear filters');
  });

  it('Show more pages through the cached result without a model call; a stale button says so', async () => {
    const threadId = newThread();
    const turn = await runTurn(
      w(),
      'travel campaigns',
      [call('full_text_search', { query: 'travel', limit: 12 }), say('ok')],
      { threadId },
    );
    expect(turn.campaigns).toHaveLength(12);
    const more = buttonsOf(turn).find((b) => b.actionId === 'campaigns.more') as Button;
    expect(more).toMatchObject({ label: 'Show more (7 left)', value: expect.stringMatching(/:5$/) });

    const seen = new Set<string>();
    const cardsTitles = (t: Awaited<ReturnType<typeof runTurn>>) => {
      const [cards] = blocksOf(t, 'cards');
      return cards?.type === 'cards' ? cards.cards : [];
    };
    for (const c of cardsTitles(turn)) seen.add(`${c.title}|${c.subtitle}|${c.body}`);
    let button: Button | undefined = more;
    const pages: string[] = [];
    while (button) {
      const page = await runTurn(w(), '', [], { threadId, action: { id: button.actionId, value: button.value } });
      expect(page.requests).toBe(0);
      expect(page.error).toBeUndefined();
      pages.push(page.reply!.text);
      for (const c of cardsTitles(page)) seen.add(`${c.title}|${c.subtitle}|${c.body}`);
      button = buttonsOf(page).find((b) => b.actionId === 'campaigns.more');
    }
    expect(pages).toEqual(['Campaigns 6–10 of 12.', 'Campaigns 11–12 of 12.']);
    expect(seen.size).toBe(12);

    // A newer search in the thread makes the old button stale.
    await runTurn(w(), 'fiber', [call('full_text_search', { query: 'fiber' }), say('ok')], { threadId });
    const stale = await runTurn(w(), '', [], { threadId, action: { id: 'campaigns.more', value: more.value } });
    expect(stale.reply?.text).toMatch(/earlier search/);
    expect(stale.requests).toBe(0);
  });

  it('Clear filters drops the active filters without a model call; suggestions become the next message', async () => {
    const threadId = newThread();
    const turn = await runTurn(
      w(),
      'playful instagram campaigns',
      [call('filter_campaigns', { channel: ['Instagram'], sentiment: ['Playful'] }), say('ok')],
      { threadId },
    );
    const clear = buttonsOf(turn).find((b) => b.actionId === 'campaigns.clear') as Button;
    const cleared = await runTurn(w(), '', [], { threadId, action: { id: clear.actionId, value: clear.value } });
    expect(cleared.requests).toBe(0);
    expect(cleared.reply?.text).toBe(
      'Cleared the campaign filters (Channel: Instagram · Sentiment: Playful). New searches cover all campaigns.',
    );
    const again = await runTurn(w(), '', [], { threadId, action: { id: clear.actionId, value: clear.value } });
    expect(again.reply?.text).toBe('No campaign filters are active in this thread.');

    const suggestion = buttonsOf(turn).find((b) => b.actionId.startsWith('suggest.')) as Button;
    const next = await runTurn(w(), '', [call('filter_campaigns', { limit: 5 }), say('ok')], {
      threadId,
      action: { id: suggestion.actionId, value: suggestion.value },
    });
    const first = w().llm.requestsTo('/chat/completions').at(-2)!;
    const sent = sentMessages(first.body);
    expect(sent.at(-1)).toMatchObject({ role: 'user', content: suggestion.value });
    expect(sent.some((m) => m.role === 'system' && String(m.content).startsWith('Active campaign filters'))).toBe(
      false,
    );
    expect(next.data.detectedFilters).toEqual({});
  });

  it('POST /api/chat returns campaigns, total, suggestions and detectedFilters; Show more works over HTTP', async () => {
    const app = createHttpApp({ agent: w().h.sb.agent, log: w().h.sb.log });
    const post = async (body: unknown) => {
      const res = await app.request(
        '/api/chat',
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        },
        peer(),
      );
      expect(res.status).toBe(200);
      return (await res.json()) as Record<string, unknown>;
    };
    w().llm.script(
      call('filter_campaigns', { channel: ['Email'], limit: 8 }),
      say('Here are the latest email campaigns.'),
    );
    const threadId = newThread();
    const body = await post({ message: 'show me email campaigns', threadId });
    expect(body.response).toBe('Here are the latest email campaigns.');
    expect(body.total).toBe(8);
    expect((body.campaigns as { channel: string }[]).every((c) => c.channel === 'Email')).toBe(true);
    expect(body.detectedFilters).toEqual({ channel: ['Email'] });
    expect((body.suggestions as string[]).length).toBeGreaterThanOrEqual(2);
    const blocks = body.blocks as { type: string; buttons?: Button[] }[];
    const more = blocks.flatMap((b) => b.buttons ?? []).find((b) => b.actionId === 'campaigns.more')!;
    const page = await post({ threadId, action: { id: more.actionId, value: more.value } });
    expect(page.response).toBe('Campaigns 6–8 of 8.');
    expect((page.blocks as { type: string }[]).some((b) => b.type === 'cards')).toBe(true);
  });
}
