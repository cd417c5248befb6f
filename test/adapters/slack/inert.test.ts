/**
 * The Slack renderer's last step (src/adapters/slack/inert.ts): what model text can and cannot
 * do once it is in a Slack message. The whole app's paths are in inert-delivery.test.ts.
 */
import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  inertMessage,
  inertStreamAppend,
  inertStreamText,
  inertText,
  streamableLength,
  type SlackAudience,
} from '../../../src/adapters/slack/inert.js';
import { StreamDelivery } from '../../../src/adapters/slack/live-deliveries.js';
import { renderReply } from '../../../src/adapters/slack/render.js';
import { ThreadPoster } from '../../../src/adapters/slack/thread-poster.js';
import { silentLogger } from '../../../src/telemetry/logger.js';
import { startFakeSlack, type FakeSlack } from '../../fakes/slack/web-api.js';
import { freshTs } from './setup.js';

const audience: SlackAudience = { people: new Set(['U0ASKER']), unfurlDomains: ['docs.example.com'] };

describe('inertText', () => {
  it('renders special mentions as plain text and keeps dates', () => {
    expect(inertText('<!channel> <!here|here> <!everyone> <!subteam^S0ENG|@eng> <!subteam^S0X>', audience)).toBe(
      '@channel @here @everyone @eng @group',
    );
    expect(inertText('<!CHANNEL>', audience)).toBe('@channel');
    expect(inertText('due <!date^1700000000^{date}|Nov 14>', audience)).toBe('due <!date^1700000000^{date}|Nov 14>');
  });

  it('keeps a user mention live only for people in the conversation', () => {
    expect(inertText('<@U0ASKER> and <@U0STRANGER> and <@W0BOSS|boss>', audience)).toBe(
      '<@U0ASKER> and @U0STRANGER and @boss',
    );
  });

  it('turns markdown images into links', () => {
    expect(inertText('![chart](https://evil.example/p.png?d=1)', audience)).toBe(
      '[chart](https://evil.example/p.png?d=1)',
    );
  });
});

describe('inertText: what a label hides (issue 39)', () => {
  it('keeps a mention hidden in another mention’s label from closing into a live one', () => {
    expect(inertText('<@U0NOTIN|<!here>> <!subteam^S0TEAM|<!channel>> <@U0NOTIN|<@U0VICTIM>>', audience)).toBe(
      '‹@U0NOTIN|@here> ‹!subteam^S0TEAM|@channel> ‹@U0NOTIN|@U0VICTIM>',
    );
    expect(inertText('<<!here>>', audience)).toBe('‹@here>');
  });

  it('shows a link whose text names another site as its URL, drops a date’s link and a channel’s label', () => {
    expect(inertText('<https://evil.example/login|https://good.example/login>', audience)).toBe(
      '<https://evil.example/login>',
    );
    expect(inertText('[https://good.example/pay](https://evil.example/pay)', audience)).toBe(
      '<https://evil.example/pay>',
    );
    expect(inertText('[good.com](https://evil.example/(x))', audience)).toBe('<https://evil.example/(x)>');
    expect(
      inertText('[the docs](https://docs.example.com/a) [report.pdf](https://files.example.com/r.pdf)', audience),
    ).toBe('[the docs](https://docs.example.com/a) [report.pdf](https://files.example.com/r.pdf)');
    expect(inertText('<!date^1700000000^{date}^https://evil.example/d|Nov 14>', audience)).toBe(
      '<!date^1700000000^{date}|Nov 14>',
    );
    expect(inertText('<#C0GEN|not-general>', audience)).toBe('<#C0GEN>');
  });
});

describe('inertMessage', () => {
  it('cleans text and every block text, and turns unfurling off for a link off the list', () => {
    const out = inertMessage(
      {
        text: 'hi <!here>',
        blocks: [
          { type: 'section', text: { type: 'mrkdwn', text: '<https://evil.example/x|x> <@U0STRANGER>' } },
          { type: 'context', elements: [{ type: 'mrkdwn', text: '<!channel>' }] },
        ],
      },
      audience,
    );
    expect(JSON.stringify(out)).not.toMatch(/<!|<@U0STRANGER/);
    expect(out).toMatchObject({ text: 'hi @here', unfurl_links: false, unfurl_media: false });
  });

  it('lets a message unfurl only when every link is on SLACK_UNFURL_DOMAINS (subdomains included)', () => {
    const msg = (text: string) => inertMessage({ text, blocks: [{ type: 'markdown', text }] }, audience);
    expect(msg('see https://docs.example.com/a and <https://api.docs.example.com/b|b>').unfurl_links).toBe(true);
    expect(msg('see https://docs.example.com/a and https://evil.example/b').unfurl_media).toBe(false);
    expect(msg('see https://notdocs.example.com/a').unfurl_links).toBe(false);
    expect(msg('no links').unfurl_links).toBe(false);
  });
});

describe('inertStreamText', () => {
  it('shows links off the list as code, keeps links on it, and leaves code alone', () => {
    expect(
      inertStreamText(
        '[report](https://evil.example/r?d=s) <https://evil.example/t|t> https://evil.example/u ' +
          'https://docs.example.com/ok `https://evil.example/in-code`',
        audience,
      ),
    ).toBe(
      'report (`https://evil.example/r?d=s`) t (`https://evil.example/t`) `https://evil.example/u` ' +
        'https://docs.example.com/ok `https://evil.example/in-code`',
    );
  });

  it('makes a dangling token start harmless', () => {
    expect(inertStreamText('ping <!chan', audience)).toBe('ping ‹!chan');
  });
});

describe('streamableLength', () => {
  it('holds back a token, a markdown link or a URL that is still being written', () => {
    for (const [text, held] of [
      ['Hello <!chan', '<!chan'],
      ['Read [the rep', '[the rep'],
      ['Read [the report](https://evil', '[the report](https://evil'],
      ['See ![chart', '![chart'],
      ['Go to https://docs.exa', 'https://docs.exa'],
      ['Plain words ', ''],
      ['done <!channel> now ', ''],
    ] as const) {
      expect(text.slice(streamableLength(text)), text).toBe(held);
    }
  });

  it('gives up holding after a few hundred characters', () => {
    const text = `<!channel|${'x'.repeat(400)}`;
    expect(streamableLength(text)).toBe(text.length);
  });
});

describe('streaming in pieces', () => {
  const texts = [
    'Heads up <!channel> <!subteam^S0ENG|@eng> <@U0STRANGER> <@U0ASKER>.\n\nRead [the report](https://evil.example/r?d=s) and https://evil.example/raw?d=s\n\n![chart](https://evil.example/p.png)\n\nDocs: https://docs.example.com/guide',
    'See <https://evil.example/a?x=1|the page>, <@U0X|you>, `https://evil.example/in code` and h https://evil.example/end',
    "Code:\n```js\nfetch('https://evil.example/x');\n```\nthen https://evil.example/after <!here>",
  ];

  it('shows the same text however the model’s deltas and the flushes fall, so no piece is ever live', () => {
    let seed = 42;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (const text of texts) {
      const whole = inertStreamText(text, audience);
      for (let trial = 0; trial < 500; trial++) {
        // As StreamDelivery sends it: each flush the streamable head, with the fence state so far.
        let pending = '';
        let out = '';
        let inFence = false;
        const send = (s: string) => {
          const sent = inertStreamAppend(s, audience, inFence);
          out += sent.text;
          inFence = sent.inFence;
        };
        for (let i = 0; i < text.length;) {
          const n = 1 + Math.floor(random() * 12);
          pending += text.slice(i, i + n);
          i += n;
          if (random() < 0.3) {
            const head = pending.slice(0, streamableLength(pending));
            send(head);
            pending = pending.slice(head.length);
          }
        }
        send(pending);
        expect(out).toBe(whole);
      }
      expect(whole).not.toMatch(/<!(channel|here|subteam)|<@U0STRANGER|<@U0X/);
    }
  });
});

describe('what the property tests found (issue 39): inert is a fixed point', () => {
  it('encodes the brackets of a Slack link’s URL, so no markdown reader finds a link inside it', () => {
    // Slack reads the token first; a markdown reader could see `[https://good…](https://evil…)` in it.
    const out = inertText('<https://[https://good.example/pay](https://evil.example/pay)>', audience);
    expect(out).toBe('<https://%5Bhttps://good.example/pay%5D(https://evil.example/pay)>');
    expect(inertText(out, audience)).toBe(out);
  });

  it('takes a site name with more after it (`good.example-0`) for the site a reader sees', () => {
    expect(inertText('<https://evil.example/s|good.example-0>', audience)).toBe('<https://evil.example/s>');
    expect(inertText('<https://evil.example/s|good.com.1>', audience)).toBe('<https://evil.example/s>');
    expect(inertText('<https://evil.example/s|good.example漢字テキスト0>', audience)).toBe('<https://evil.example/s>');
    expect(inertText('<https://files.example.com/r|report.pdf-2>', audience)).toBe(
      '<https://files.example.com/r|report.pdf-2>',
    );
  });

  it('reads a URL in a link’s text even when a word is glued to its scheme (`0https://docs`)', () => {
    expect(inertText('[0https://docs](https://docs.example.com/p)', audience)).toBe('<https://docs.example.com/p>');
    expect(inertText('[https://docs](https://docs.example.com/p)', audience)).toBe('<https://docs.example.com/p>');
  });

  it('never makes the text after a `|` in a bare URL the label of a link', () => {
    const [message] = renderReply({
      text: '',
      blocks: [{ type: 'fields', fields: [{ label: 'Link', value: 'https://a.example/x|https://b.example' }] }],
    }).messages;
    const [field] = texts(inertMessage(message!, audience).blocks).filter((t) => t.includes('a.example'));
    expect(field).toBe('*Link*\n<https://a.example/x>|https://b.example');
  });

  it('never writes a link as code right after an empty code span (the backticks would open a fence)', () => {
    const out = inertStreamText('``https://evil.example/a ``` <https://evil.example/x|the page>', audience);
    expect(out).toBe('ˋˋ`https://evil.example/a` ``` <https://evil.example/x|the page>');
    expect(inertStreamText(out, audience)).toBe(out);
  });
});

describe('StreamDelivery: the fence state between appends is the renderer’s reading (issue 39)', () => {
  let slack: FakeSlack;
  let client: webApi.WebClient;
  beforeAll(async () => {
    slack = await startFakeSlack();
    client = new webApi.WebClient(slack.options.botToken, { slackApiUrl: slack.url, retryConfig: { retries: 0 } });
  });
  afterAll(() => slack.close());

  /** Streams `pieces` as the writer flushes them (the last one with chat.stopStream); the markdown Slack joined. */
  async function streamed(pieces: string[]): Promise<string> {
    const target = {
      client,
      channel: 'C0INERT',
      threadTs: freshTs(),
      userId: 'U0ASKER',
      userTeamId: 'T0FAKETEAM',
      status: false,
      audience,
    };
    const delivery = new StreamDelivery(target, new ThreadPoster(target, silentLogger()), async () => undefined);
    for (const piece of pieces.slice(0, -1)) await delivery.append({ markdown_text: piece });
    expect(await delivery.stop({ markdown_text: pieces.at(-1)! })).toBe(true);
    const [message] = slack.threadReplies(target.channel, target.threadTs);
    return message!.stream!.markdown;
  }

  // Each: the pieces the property test's counterexample cut the text into, and what Slack shows.
  // A ``` after a code span (`` `a```js ``) opens no fence, so the next append's links are prose.
  for (const [pieces, shown] of [
    [['` ```js\n', '`'], '` `ˋˋjs\nˋ'],
    [['`<@U0ASKER>``` ', '<https://'], '`<@U0ASKER>`ˋˋ ‹`https://`'],
    [
      ['`<@U0ASKER>```js\n', '<https://evil.example/x|the page>'],
      '`<@U0ASKER>`ˋˋjs\nthe page (`https://evil.example/x`)',
    ],
  ] as const) {
    it(`streams ${JSON.stringify(pieces)} as prose after the code span`, async () => {
      const markdown = await streamed([...pieces]);
      expect(markdown).toBe(shown);
      expect(inertStreamText(markdown, audience)).toBe(markdown);
    });
  }
});

/** Every string under a `text` key. */
function texts(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(texts);
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => (k === 'text' && typeof v === 'string' ? [v] : texts(v)));
  return [];
}
