import { describe, expect, it } from 'vitest';
import {
  checkArtifact,
  createArtifactTools,
  fileSlug,
  MAX_CODE_CHARS,
  previewOf,
} from '../../../src/tools/artifacts/index.js';
import { toolParameters } from '../../../src/agent/json-schema.js';
import { parseArguments } from '../../../src/agent/registry.js';
import { geminiViolations, openAiStrictViolations } from '../../helpers/schema-rules.js';

const [tool] = createArtifactTools().tools;
const COUNTER = `import { useState } from 'react';

export default function Counter() {
  const [n, setN] = useState(0);
  return <button onClick={() => setN(n + 1)}>Clicked {n} times</button>;
}`;
const SVG =
  '<svg viewBox="0 0 10 10"><g fill="red"><circle cx="5" cy="5" r="4"/></g><text x="1" y="9">a &gt; b</text></svg>';

describe('artifact checks', () => {
  it('accepts a typical artifact of each type', () => {
    expect(checkArtifact('react', COUNTER)).toEqual({ ok: true, code: COUNTER });
    expect(checkArtifact('html', '<!doctype html><html><body><h1>Hi</h1></body></html>')).toMatchObject({ ok: true });
    expect(checkArtifact('svg', `<?xml version="1.0"?>\n<!-- logo -->\n${SVG}`)).toMatchObject({ ok: true });
    expect(checkArtifact('mermaid', 'flowchart TD\n  A --> B')).toMatchObject({ ok: true });
    expect(checkArtifact('mermaid', '---\ntitle: Flow\n---\n%% a comment\nsequenceDiagram\n  A->>B: hi')).toMatchObject(
      { ok: true },
    );
    expect(checkArtifact('markdown', '# Notes\n\n- one')).toMatchObject({ ok: true });
  });

  it('drops a Markdown fence around the code and adds the SVG namespace a standalone file needs', () => {
    expect(checkArtifact('mermaid', '```mermaid\npie\n  "a": 1\n```')).toEqual({ ok: true, code: 'pie\n  "a": 1' });
    const svg = checkArtifact('svg', SVG);
    expect(svg.ok && svg.code).toBe(SVG.replace('<svg ', '<svg xmlns="http://www.w3.org/2000/svg" '));
    const already = '<svg xmlns="http://www.w3.org/2000/svg"/>';
    expect(checkArtifact('svg', already)).toEqual({ ok: true, code: already });
  });

  it('explains what is wrong with a bad artifact, so the model can fix it', () => {
    const problem = (type: Parameters<typeof checkArtifact>[0], code: string) => {
      const r = checkArtifact(type, code);
      return r.ok ? 'ok' : r.problem;
    };
    expect(problem('react', 'Here is your component!')).toMatch(/must define a component/);
    expect(problem('react', '<!DOCTYPE html><html></html>')).toMatch(/use type "html"/);
    expect(problem('react', 'export default function App() { return null; }')).toMatch(/return JSX/);
    expect(problem('html', 'Just some prose.')).toMatch(/no HTML element/);
    expect(problem('svg', '<div>not an svg</div>')).toMatch(/<svg> root/);
    expect(problem('svg', '<svg><g><circle/></svg>')).toMatch(/<g> closed by <\/svg>/);
    expect(problem('svg', '<svg><rect/>')).toMatch(/<svg> is never closed/);
    expect(problem('svg', '<svg></svg><svg></svg>')).toMatch(/after the closing <\/svg>/);
    expect(problem('svg', '<svg></svg> trailing words')).toMatch(/text after the closing/);
    expect(problem('svg', '<svg><script>alert(1)</script></svg>')).toMatch(/must not contain <script>/);
    expect(problem('mermaid', 'A --> B')).toMatch(/must start with a diagram type.*"A --> B"/);
    expect(problem('mermaid', '---\ntitle: x\nflowchart TD')).toMatch(/front matter/);
    expect(problem('markdown', '```\n\n```')).toBe('code is empty');
  });

  it('validates arguments with fixable messages: unknown type, empty title, 1 MB of code', () => {
    const parse = (args: Record<string, unknown>) => parseArguments(JSON.stringify(args), tool!.input);
    expect(parse({ type: 'svg', title: 'Logo', code: SVG })).toMatchObject({ ok: true });
    const unknownType = parse({ type: 'pdf', title: 'Report', code: 'x' });
    expect(!unknownType.ok && unknownType.error).toMatch(/^Invalid arguments: type: .*"react"/);
    const noTitle = parse({ type: 'markdown', title: '  ', code: '# x' });
    expect(!noTitle.ok && noTitle.error).toMatch(/title: give the artifact a title/);
    const longTitle = parse({ type: 'markdown', title: 'x'.repeat(101), code: '# x' });
    expect(!longTitle.ok && longTitle.error).toMatch(/title: keep the title to 100 characters/);
    const huge = parse({ type: 'html', title: 'Big', code: `<p>${'x'.repeat(1024 * 1024)}</p>` });
    expect(!huge.ok && huge.error).toMatch(/code: code is longer than 100,000 characters/);
    expect(MAX_CODE_CHARS).toBe(100_000);
  });

  it('names files from titles and previews the first lines', () => {
    expect(fileSlug('My Counter App!', 'artifact')).toBe('my-counter-app');
    expect(fileSlug('Café déjà vu', 'artifact')).toBe('cafe-deja-vu');
    expect(fileSlug('日本語', 'artifact')).toBe('artifact');
    expect(previewOf('a\nb')).toBe('a\nb');
    const long = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n');
    expect(previewOf(long).split('\n')).toHaveLength(13);
    expect(previewOf(long).endsWith('\n…')).toBe(true);
  });

  it('exports a schema valid for OpenAI strict mode and for Gemini', () => {
    const openai = toolParameters(tool!.input, 'openai');
    expect(openAiStrictViolations(openai)).toEqual([]);
    expect(geminiViolations(toolParameters(tool!.input, 'gemini'))).toEqual([]);
    expect((openai.properties as Record<string, { enum?: string[] }>).type?.enum).toEqual([
      'react',
      'html',
      'svg',
      'mermaid',
      'markdown',
    ]);
  });
});
