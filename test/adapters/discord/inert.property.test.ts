/**
 * The Discord renderer's two promises, on text fast-check builds from what an injected model
 * would combine (mentions, masked links whose text names another site, nested brackets, code,
 * CJK): no live mention (`@everyone`, `@here`, `<@id>`, `<@!id>`, `<@&id>`) and no deceptive
 * masked link in any text Discord shows, and the output, made inert again, is unchanged.
 * The checker reads Discord's markup with its own (test-only) patterns.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inertDiscordText } from '../../../src/adapters/discord/inert.js';
import { LIMITS } from '../../../src/adapters/discord/limits.js';
import { renderProgress, renderReply, type OutgoingMessage } from '../../../src/adapters/discord/render.js';

const PIECES = [
  '@everyone',
  '@here',
  '@',
  'everyone',
  '<@234567890123456789>',
  '<@!234567890123456789>',
  '<@&123456789012345678>',
  '<@',
  '<',
  '>',
  '123456789',
  '[https://good.example/pay](https://evil.example/pay)',
  '[good.example](https://evil.example/(x))',
  '[docs](https://docs.example.com/d)',
  '[a [https://good.example] b](https://evil.example/n)',
  '[x](<https://evil.example/a>)',
  '](https://evil.example/p)',
  'https://good.example',
  '[',
  ']',
  '(',
  ')',
  '`',
  '```',
  '\n',
  ' ',
  '漢字テキスト',
  '\\',
  '"',
];

const modelText = fc
  .array(
    fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...PIECES) },
      { weight: 1, arbitrary: fc.string({ maxLength: 3 }) },
    ),
    {
      maxLength: 40,
    },
  )
  .map((parts) => parts.join(''));

const hostOf = (url: string) => /^https?:\/\/([^/?#)>\s]+)/i.exec(url)?.[1]?.toLowerCase() ?? '';

/** Mentions Discord would render live, and masked links whose text names another host than the target. */
function liveTokens(text: string): string[] {
  const found = [...text.matchAll(/@(everyone|here)|<@[!&]?\d+>/gi)].map((m) => m[0]);
  for (const m of text.matchAll(/\[((?:[^[\]\n]|\[[^[\]\n]*\])*)\]\(\s*<?([^\s)>]*)>?(?:\([^\s)]*\))?\s*\)/g)) {
    // Discord makes a masked link only of an http(s) URL: `[https://good.example]()` is text.
    if (!/^https?:\/\//i.test(m[2]!)) continue;
    const target = hostOf(m[2]!);
    const named = [...m[1]!.matchAll(/(?:https?:\/\/)?([a-z0-9-]+\.example(?:\.com)?)/gi)].map((n) =>
      n[1]!.toLowerCase(),
    );
    if (named.some((host) => host !== target)) found.push(m[0]);
  }
  return found;
}

/** Every text of a message Discord shows. */
const shown = (m: OutgoingMessage): string[] => [
  m.content,
  ...m.embeds.flatMap((e) => [
    e.title ?? '',
    e.description ?? '',
    e.footer?.text ?? '',
    ...(e.fields ?? []).flatMap((f) => [f.name, f.value]),
  ]),
];

/** Runs per property: FC_RUNS overrides the default (e.g. FC_RUNS=20000 to hammer the renderer). */
const runs = (numRuns: number) => ({ numRuns: Number(process.env.FC_RUNS) || numRuns });
/**
 * Locally each run draws a new seed (a failure prints the seed and the counterexample). In CI the
 * seed is fixed, so whether a change lands does not depend on the draw: FC_SEED overrides both.
 * Counterexamples long runs (FC_RUNS=20000) found are kept below as examples.
 */
const seed = Number(process.env.FC_SEED) || (process.env.CI ? 20_261_127 : undefined);
if (seed) fc.configureGlobal({ seed });
/** A hammering run takes minutes: no per-test timeout then. */
const TIMEOUT = process.env.FC_RUNS ? 3_600_000 : undefined;

describe('counterexamples found by long runs', () => {
  const LINK = '[good.example](https://evil.example/(x))';

  it('a link cut after its first `)` is read as Discord reads it (the URL to that `)`): shown as its URL', () => {
    for (const text of [LINK.slice(0, -1), `${LINK.slice(0, -1)} and more`]) {
      const out = inertDiscordText(text);
      expect(liveTokens(out)).toEqual([]);
      expect(out).not.toContain('[good.example]');
      expect(inertDiscordText(out)).toBe(out);
    }
  });

  it('renderProgress: wherever its cuts fall in a link, nothing deceptive is shown', () => {
    const status = 'working';
    // The text is made inert, then cut to the room the status line leaves (shortened the other way
    // round, `[good.example](https://evil.example/(x))` lost its last `)` and went out live).
    const room = LIMITS.content - `-# ${status}`.length - 1;
    for (const at of [room, 2 * room])
      for (let k = -2; k <= LINK.length + 2; k++) {
        const out = renderProgress(`${'x'.repeat(at - LINK.length + k - 1)} ${LINK}`, status);
        expect(liveTokens(out)).toEqual([]);
        expect(inertDiscordText(out)).toBe(out);
      }
  });
});

describe('inertDiscordText', () => {
  it(
    'leaves no live mention or deceptive link and is a fixed point',
    () => {
      fc.assert(
        fc.property(modelText, (text) => {
          const out = inertDiscordText(text);
          expect(liveTokens(out)).toEqual([]);
          expect(inertDiscordText(out)).toBe(out);
        }),
        runs(1_000),
      );
    },
    TIMEOUT,
  );
});

describe('the Discord renderer (renderReply, renderProgress)', () => {
  it(
    'every text Discord shows is inert and a fixed point',
    () => {
      fc.assert(
        fc.property(modelText, modelText, (text, other) => {
          const messages = renderReply(
            {
              text,
              blocks: [
                { type: 'header', text: other },
                { type: 'markdown', text: other },
                { type: 'fields', fields: [{ label: other, value: text }] },
                { type: 'cards', cards: [{ title: other, subtitle: text, body: other, fields: [] }] },
                { type: 'context', items: [text] },
                { type: 'citations', sources: [{ title: other, url: 'https://evil.example/s', snippet: text }] },
              ],
            },
            { customIds: [] },
          );
          const texts = [...messages.flatMap(shown), renderProgress(text, other)];
          for (const s of texts) {
            expect(liveTokens(s)).toEqual([]);
            expect(inertDiscordText(s)).toBe(s);
          }
        }),
        runs(300),
      );
    },
    TIMEOUT,
  );
});
