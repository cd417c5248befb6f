import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../../../src/adapters/http/app.js';
import { startHttpServer, type RunningServer } from '../../../src/adapters/http/server.js';
import type { TurnEvent } from '../../../src/contract/turn.js';
import { checkArtifact, createArtifactTools } from '../../../src/tools/artifacts/index.js';
import { collect, message, replyOf, startHarness, type Harness } from '../../helpers/harness.js';

/**
 * SVG artifacts are delivered as image/svg+xml: opened in a browser, the file is a document.
 * Each vector below would run script, navigate, embed a page or fetch a URL from it; each must
 * go back to the model as a fixable error and never reach the user as a file.
 */

const XLINK = 'xmlns:xlink="http://www.w3.org/1999/xlink"';
const svg = (body: string, attrs = '') => `<svg viewBox="0 0 10 10"${attrs}>${body}</svg>`;

const VECTORS: [string, string, RegExp][] = [
  ['an onload handler', svg('<rect/>', ' onload="alert(1)"'), /event handlers \(onload on <svg>\)/],
  ['an onclick on a child', svg('<rect width="5" OnClick="alert(1)"/>'), /event handlers \(OnClick on <rect>\)/],
  ['a javascript: link', svg('<a href="javascript:alert(1)"><rect/></a>'), /href on <a> must point inside the image/],
  [
    'a javascript: xlink:href hidden by character references and a tab',
    svg('<a xlink:href="&#106;ava&#9;script:alert(1)"><rect/></a>', ` ${XLINK}`),
    /xlink:href on <a> must point inside the image/,
  ],
  [
    'a <foreignObject> with an iframe',
    svg(
      '<foreignObject width="10" height="10"><iframe xmlns="http://www.w3.org/1999/xhtml" src="https://evil.example/"/></foreignObject>',
    ),
    /must not contain <foreignObject>/,
  ],
  ['an <iframe>', svg('<iframe src="https://evil.example/"/>'), /must not contain <iframe>/],
  ['an <embed>', svg('<embed src="https://evil.example/x.swf"/>'), /must not contain <embed>/],
  ['an <object>', svg('<object data="https://evil.example/x"/>'), /must not contain <object>/],
  ['a prefixed <svg:script>', svg('<svg:script>alert(1)</svg:script>'), /must not contain <svg:script>/],
  [
    'an external image beacon',
    svg('<image href="https://evil.example/beacon.png" width="1" height="1"/>'),
    /href on <image> must point inside the image/,
  ],
  [
    'a protocol-relative image',
    svg('<image href="//evil.example/beacon.png"/>'),
    /href on <image> must point inside the image/,
  ],
  ['a data: image', svg('<image href="data:image/svg+xml;base64,PHN2Zy8+"/>'), /href on <image> must point inside/],
  ['an external <use>', svg('<use href="https://evil.example/sprite.svg#icon"/>'), /href on <use> must point inside/],
  [
    '<animate to="javascript:"> on a link',
    svg('<a href="#x"><animate attributeName="href" to="javascript:alert(1)"/><rect/></a>'),
    /must not animate href \(<animate>\)/,
  ],
  ['<set> of xlink:href', svg('<a><set attributeName="xlink:href" to="#x"/></a>'), /must not animate xlink:href/],
  [
    '<set> of an event handler',
    svg('<rect><set attributeName="onclick" to="alert(1)"/></rect>'),
    /must not animate onclick/,
  ],
  [
    'a javascript: animation value',
    svg('<rect><animate attributeName="fill" values="red; javascript:alert(1)"/></rect>'),
    /values on <animate> must not hold a javascript:/,
  ],
  [
    'an external url() in a style attribute',
    svg('<rect style="fill: url(https://evil.example/x.svg#g)"/>'),
    /style on <rect> has a url\(\) that leaves the image/,
  ],
  [
    'an external url() in a presentation attribute',
    svg('<rect fill="url(\'//evil.example/beacon\')"/>'),
    /fill on <rect> has a url\(\) that leaves the image/,
  ],
  [
    'an external url() in a <style>, split by a CDATA section',
    svg('<style>rect { fill: u<![CDATA[rl(https://evil.example/beacon)]]> }</style><rect/>'),
    /<style> has a url\(\) that leaves the image/,
  ],
  ['an @import', svg('<style>@import "https://evil.example/x.css";</style>'), /<style> must not use @import/],
  ['a CSS escape', svg('<style>rect { fill: u\\72l(https://evil.example/) }</style>'), /must not contain backslashes/],
  [
    'the XHTML namespace (meta refresh)',
    svg('<h:meta xmlns:h="http://www.w3.org/1999/xhtml" http-equiv="refresh" content="0;url=javascript:alert(1)"/>'),
    /must not use the XHTML namespace/,
  ],
  [
    'a DOCTYPE with entities (billion laughs)',
    `<!DOCTYPE svg [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>${svg('<text>&b;</text>')}`,
    /must not have a DOCTYPE or <!ENTITY> declarations/,
  ],
  [
    'an external entity (XXE)',
    `<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>${svg('<text>&x;</text>')}`,
    /must not have a DOCTYPE/,
  ],
  [
    'an xml-stylesheet processing instruction',
    `<?xml-stylesheet type="text/xsl" href="https://evil.example/x.xsl"?>${svg('<rect/>')}`,
    /must not contain processing instructions/,
  ],
  [
    'an unquoted attribute',
    svg('<rect width=5 onload=alert(1)/>'),
    /attribute width on <rect> needs its value in quotes/,
  ],
];

/** A picture with every safe kind of reference: gradients, <use>, styles and animation inside the image. */
const SAFE = [
  `<svg xmlns="http://www.w3.org/2000/svg" ${XLINK} viewBox="0 0 100 100">`,
  '<defs><linearGradient id="g"><stop offset="0" stop-color="#fff"/></linearGradient>',
  '<circle id="dot" r="4"/></defs>',
  '<style><![CDATA[ .a { fill: url(#g); } ]]> .b { stroke: url( "#g" ) }</style>',
  '<rect class="a" width="10" height="10" style="filter: url(#f)"/><use href="#dot" x="5"/><use xlink:href="#dot"/>',
  '<a href="#dot"><text x="1" y="9">a &amp; b &lt; c</text></a>',
  '<animate attributeName="opacity" values="0;1" dur="1s"/><set attributeName="fill" to="red"/>',
  '</svg>',
].join('');

let h: Harness;
let server: RunningServer;

beforeAll(async () => {
  h = await startHarness({ tools: createArtifactTools(undefined).tools });
  server = await startHttpServer(createHttpApp({ agent: h.sb.agent, log: h.sb.log }), 0, '127.0.0.1');
});
afterAll(async () => {
  await server.close();
  await h.close();
});
beforeEach(() => h.llm.reset());

type ToolResult = Extract<TurnEvent, { type: 'tool_result' }>;

describe('SVG artifacts are images only', () => {
  it.each(VECTORS)('refuses %s back to the model, and the user gets no file', async (_what, code, problem) => {
    h.llm.script(
      { toolCalls: [{ name: 'generate_artifact', arguments: { type: 'svg', title: 'Logo', code } }] },
      { text: 'I could not make that logo.' },
    );
    const events = await collect(h.sb.agent.handle(message('Make a logo')));
    const [result] = events.filter((e): e is ToolResult => e.type === 'tool_result');
    expect(result).toMatchObject({ ok: false, summary: expect.stringMatching(/^Invalid svg artifact: /) });
    expect(result!.summary).toMatch(problem);
    expect(result!.summary).toMatch(/Fix the code and call generate_artifact again\.$/);
    expect(replyOf(events)?.blocks.filter((b) => b.type === 'file')).toEqual([]);
    expect(events.some((e) => e.type === 'tool_event')).toBe(false);
  });

  it('keeps a picture whose links, styles and animations stay inside it', () => {
    expect(checkArtifact('svg', SAFE)).toEqual({ ok: true, code: SAFE });
  });

  it('over HTTP: a malicious SVG from the model reaches the caller as no file, only the model’s answer', async () => {
    h.llm.script(
      {
        toolCalls: [
          {
            name: 'generate_artifact',
            arguments: {
              type: 'svg',
              title: 'Logo',
              code: svg('<image href="https://evil.example/b.png"/>', ' onload="fetch(1)"'),
            },
          },
        ],
      },
      { text: 'I could not make that logo.' },
    );
    const res = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'Make a logo' }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { response: string; blocks: { type: string }[]; toolCalls: unknown[] };
    expect(body.response).toBe('I could not make that logo.');
    expect(body.blocks.filter((b) => b.type === 'file')).toEqual([]);
    expect(body.toolCalls).toMatchObject([{ ok: false, error: { code: 'validation_failed' } }]);
  });
});
