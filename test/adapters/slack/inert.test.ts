/**
 * The Slack renderer's last step (src/adapters/slack/inert.ts): what model text can and cannot
 * do once it is in a Slack message. The whole app's paths are in inert-delivery.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  inertMessage,
  inertStreamText,
  inertText,
  streamableLength,
  type SlackAudience,
} from '../../../src/adapters/slack/inert.js';

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
        let fences = 0;
        const send = (s: string) => {
          out += inertStreamText(s, audience, fences % 2 === 1);
          fences += s.match(/```/g)?.length ?? 0;
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
