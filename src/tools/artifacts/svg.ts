import { cssProblem, elementProblem, SVG_NS, type SvgAttribute } from './svg-policy.js';

/**
 * A well-formedness check for SVG artifacts: one <svg> root, balanced tags, attributes
 * written the XML way (name="value"), no DOCTYPE, and nothing but a picture (svg-policy.ts).
 * A small tokenizer rather than an XML library (none is a dependency, and this needs only
 * tags, attributes and text): one pass with indexOf jumps, linear in the input, because the
 * input is model-written and up to the size cap (backtracking regexes went quadratic here).
 * Where it and a browser's XML parser could disagree, it refuses.
 */

export type SvgCheck = { ok: true; code: string } | { ok: false; problem: string };

const NAME = /[A-Za-z_][\w:.-]*/y;
const SPACE = ' \t\r\n';

interface Tag {
  name: string;
  closing: boolean;
  selfClosing: boolean;
  start: number;
  end: number;
  attributes: SvgAttribute[];
}

/** The text of an open <style> element, collected across CDATA sections and comments. */
interface Style {
  css: string;
}

export function checkSvg(code: string): SvgCheck {
  const stack: string[] = [];
  let root: Tag | undefined;
  let rootClosed = false;
  let style: Style | undefined;
  let i = 0;
  while (i < code.length) {
    const lt = code.indexOf('<', i);
    const text = code.slice(i, lt < 0 ? code.length : lt);
    if (stack.length === 0 && text.replace(/^\uFEFF/, '').trim()) {
      return fail(rootClosed ? 'svg has text after the closing </svg>' : 'svg code must have an <svg> root element');
    }
    if (style) style.css += decodeReferences(text);
    if (lt < 0) break;
    if (style && code.startsWith('<![CDATA[', lt)) {
      const end = code.indexOf(']]>', lt + 9);
      if (end < 0) return fail('svg has an unclosed CDATA section');
      style.css += code.slice(lt + 9, end);
      i = end + 3;
      continue;
    }
    const skipped = skipMarkup(code, lt, stack.length > 0);
    if (typeof skipped === 'string') return fail(skipped);
    if (skipped !== undefined) {
      i = skipped;
      continue;
    }
    const tag = readTag(code, lt);
    if (typeof tag === 'string') return fail(tag);
    i = tag.end;
    if (rootClosed) return fail(`svg has content after the closing </${root?.name ?? 'svg'}>`);
    if (!root) {
      if (tag.closing || tag.name !== 'svg') return fail('svg code must have an <svg> root element');
      root = tag;
    }
    if (tag.closing) {
      const open = stack.pop();
      if (open !== tag.name)
        return fail(
          open ? `svg tags do not match: <${open}> closed by </${tag.name}>` : `svg has a stray </${tag.name}>`,
        );
      if (style) {
        const problem = cssProblem(style.css, `<${tag.name}>`, true);
        if (problem) return fail(problem);
        style = undefined;
      }
    } else {
      if (style) return fail(`svg <style> must contain only CSS, not <${tag.name}>`);
      const problem = elementProblem(tag.name, tag.attributes, tag === root);
      if (problem) return fail(problem);
      if (!tag.selfClosing) {
        stack.push(tag.name);
        if (tag.name.slice(tag.name.lastIndexOf(':') + 1).toLowerCase() === 'style') style = { css: '' };
      }
    }
    if (stack.length === 0) rootClosed = true;
  }
  if (!root) return fail('svg code must have an <svg> root element');
  if (stack.length > 0) return fail(`svg is incomplete: <${stack.at(-1)}> is never closed`);
  // Without the namespace a standalone .svg file opens as an XML tree, not a picture.
  if (root.attributes.some((a) => a.name === 'xmlns')) return { ok: true, code };
  const at = root.start + '<svg'.length;
  return { ok: true, code: `${code.slice(0, at)} xmlns="${SVG_NS}"${code.slice(at)}` };
}

/**
 * Comments, CDATA and the XML declaration: the index after them, or a problem. A DOCTYPE is
 * refused wherever it is: its entities (XXE, "billion laughs") are how XML turns hostile.
 * Other processing instructions are refused too (`<?xml-stylesheet?>` loads CSS or XSLT).
 */
function skipMarkup(code: string, lt: number, insideRoot: boolean): number | string | undefined {
  const until = (close: string, from: number, what: string): number | string => {
    const end = code.indexOf(close, from);
    return end < 0 ? `svg has an unclosed ${what}` : end + close.length;
  };
  if (code.startsWith('<!--', lt)) return until('-->', lt + 4, 'comment');
  if (code.startsWith('<![CDATA[', lt))
    return insideRoot ? until(']]>', lt + 9, 'CDATA section') : 'svg has CDATA outside the <svg> element';
  if (code.startsWith('<?', lt)) {
    if (lt === 0 && /^<\?xml[ \t\r\n]/.test(code.slice(0, 6))) return until('?>', lt + 2, 'XML declaration');
    return 'svg must not contain processing instructions (<?…?>) other than the <?xml …?> declaration first';
  }
  if (code.startsWith('<!', lt)) return 'svg must not have a DOCTYPE or <!ENTITY> declarations: remove them';
  return undefined;
}

function readTag(code: string, lt: number): Tag | string {
  let j = lt + 1;
  const closing = code[j] === '/';
  if (closing) j += 1;
  NAME.lastIndex = j;
  const name = NAME.exec(code)?.[0];
  if (!name) return 'svg has a "<" that does not start a tag (write &lt; in text)';
  j += name.length;
  const attributes: SvgAttribute[] = [];
  const unclosed = `svg tag <${closing ? '/' : ''}${name}> is not closed with ">"`;
  for (;;) {
    const before = j;
    while (j < code.length && SPACE.includes(code[j]!)) j += 1;
    const c = code[j];
    if (c === undefined || c === '<') return unclosed;
    if (c === '>' || (c === '/' && code[j + 1] === '>' && !closing)) {
      const selfClosing = c === '/';
      return { name, closing, selfClosing, start: lt, end: j + (selfClosing ? 2 : 1), attributes };
    }
    if (closing) return `svg closing tag </${name}> must not have attributes`;
    if (j === before) return `svg tag <${name}> needs a space before each attribute`;
    const attribute = readAttribute(code, j, name);
    if (typeof attribute === 'string') return attribute;
    attributes.push(attribute.attribute);
    j = attribute.end;
  }
}

/** One `name="value"` (or single quotes), as XML requires: anything else is refused, not guessed. */
function readAttribute(code: string, at: number, tag: string): { attribute: SvgAttribute; end: number } | string {
  NAME.lastIndex = at;
  const name = NAME.exec(code)?.[0];
  if (!name) return `svg tag <${tag}> has something that is not an attribute (write name="value")`;
  let j = at + name.length;
  while (j < code.length && SPACE.includes(code[j]!)) j += 1;
  if (code[j] !== '=') return `svg attribute ${name} on <${tag}> needs a value in quotes (${name}="…")`;
  j += 1;
  while (j < code.length && SPACE.includes(code[j]!)) j += 1;
  const quote = code[j];
  if (quote !== '"' && quote !== "'") return `svg attribute ${name} on <${tag}> needs its value in quotes`;
  const close = code.indexOf(quote, j + 1);
  if (close < 0) return `svg has an unterminated attribute value in <${tag}>`;
  const raw = code.slice(j + 1, close);
  if (raw.includes('<')) return `svg attribute ${name} on <${tag}> must not contain "<" (write &lt;)`;
  return { attribute: { name, value: decodeReferences(raw) }, end: close + 1 };
}

const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/**
 * XML's character references and five predefined entities, decoded as the browser's parser
 * does (so `&#106;avascript:` is seen as `javascript:`). With no DOCTYPE there are no others;
 * an unknown one is kept as written (the browser would refuse the file).
 */
function decodeReferences(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#[xX][0-9a-fA-F]+|#[0-9]+|[a-z]{2,4});/g, (whole, ref: string) => {
    if (ref[0] !== '#') return NAMED[ref] ?? whole;
    const point = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    // Past Unicode: the browser refuses the file, so the reference stays as written.
    return point <= 0x10ffff ? String.fromCodePoint(point) : whole;
  });
}

function fail(problem: string): SvgCheck {
  return { ok: false, problem };
}
