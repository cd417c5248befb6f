import { checkSvg } from './svg.js';
import { truncate } from '../../reply/text.js';

/**
 * Cheap per-type checks on a model-written artifact: enough to catch the usual mistakes
 * (wrong type, truncated markup, a prose answer in place of code) and send them back to
 * the model as a fixable error. Not a renderer: a valid artifact may still draw badly.
 */

export const ARTIFACT_TYPES = ['react', 'html', 'svg', 'mermaid', 'markdown'] as const;
export type ArtifactType = (typeof ARTIFACT_TYPES)[number];

export const ARTIFACT_FILES: Record<ArtifactType, { ext: string; mime: string }> = {
  react: { ext: 'jsx', mime: 'text/javascript' },
  html: { ext: 'html', mime: 'text/html' },
  svg: { ext: 'svg', mime: 'image/svg+xml' },
  mermaid: { ext: 'mmd', mime: 'text/plain' },
  markdown: { ext: 'md', mime: 'text/markdown' },
};

/** The diagram types Mermaid 11 knows; a diagram must start with one of them. */
export const MERMAID_KEYWORDS = [
  'graph',
  'flowchart',
  'sequenceDiagram',
  'classDiagram',
  'stateDiagram',
  'stateDiagram-v2',
  'erDiagram',
  'journey',
  'gantt',
  'pie',
  'quadrantChart',
  'requirementDiagram',
  'gitGraph',
  'C4Context',
  'C4Container',
  'C4Component',
  'C4Dynamic',
  'C4Deployment',
  'mindmap',
  'timeline',
  'zenuml',
  'sankey-beta',
  'xychart-beta',
  'block-beta',
  'packet-beta',
  'kanban',
  'architecture-beta',
  'radar-beta',
  'treemap-beta',
];

export type Checked = { ok: true; code: string } | { ok: false; problem: string };

/** Models often wrap code in a Markdown fence even when asked not to; the fence is not part of the file. */
export function unwrapFence(code: string): string {
  const m = /^\s*```[\w+-]*[ \t]*\r?\n([\s\S]*?)\r?\n```\s*$/.exec(code);
  return m ? (m[1] ?? '') : code;
}

export function checkArtifact(type: ArtifactType, raw: string): Checked {
  const code = unwrapFence(raw).trim();
  if (!code) return { ok: false, problem: 'code is empty' };
  switch (type) {
    case 'react':
      return checkReact(code);
    case 'html':
      return /<([a-z][a-z0-9-]*)(\s[^<>]*)?\/?>/i.test(code)
        ? { ok: true, code }
        : { ok: false, problem: 'html code contains no HTML element' };
    case 'svg':
      return checkSvg(code);
    case 'mermaid':
      return checkMermaid(code);
    case 'markdown':
      return { ok: true, code };
  }
}

function checkReact(code: string): Checked {
  if (/^(<!doctype html|<html[\s>])/i.test(code))
    return { ok: false, problem: 'this is an HTML document: use type "html"' };
  if (/^<svg[\s>]/i.test(code)) return { ok: false, problem: 'this is an SVG image: use type "svg"' };
  const component = /\bexport\s+default\b|\bfunction\s+[A-Z]\w*\s*\(|\b(?:const|let|var)\s+[A-Z]\w*\s*=/.test(code);
  if (!component)
    return { ok: false, problem: 'react code must define a component (e.g. `export default function App() { … }`)' };
  if (!/<[A-Za-z>]|createElement\(/.test(code))
    return { ok: false, problem: 'react code renders nothing: return JSX from the component' };
  return { ok: true, code };
}

function checkMermaid(code: string): Checked {
  const lines = code.split(/\r?\n/).map((l) => l.trim());
  let i = 0;
  if (lines[0] === '---') {
    // YAML front matter (title, config) comes before the diagram type.
    const end = lines.indexOf('---', 1);
    if (end < 0) return { ok: false, problem: 'mermaid front matter (---) is not closed' };
    i = end + 1;
  }
  const first = lines.slice(i).find((l) => l !== '' && !l.startsWith('%%'));
  const keyword = first?.split(/[\s:;{]/, 1)[0] ?? '';
  if (!MERMAID_KEYWORDS.includes(keyword)) {
    return {
      ok: false,
      problem: `mermaid code must start with a diagram type (e.g. flowchart TD, sequenceDiagram), not "${truncate(first ?? '', 40)}"`,
    };
  }
  return { ok: true, code };
}
