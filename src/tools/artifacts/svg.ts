/**
 * A well-formedness check for SVG artifacts: one <svg> root, balanced tags, quoted attribute
 * values closed, no script. One pass with indexOf jumps, linear in the input, because the
 * input is model-written and up to the size cap (backtracking regexes went quadratic here).
 */

export type SvgCheck = { ok: true; code: string } | { ok: false; problem: string };

const SVG_NS = 'http://www.w3.org/2000/svg';
const NAME = /[A-Za-z_][\w:.-]*/y;

interface Tag {
  name: string;
  closing: boolean;
  selfClosing: boolean;
  start: number;
  end: number;
  attributes: string;
}

export function checkSvg(code: string): SvgCheck {
  const stack: string[] = [];
  let root: Tag | undefined;
  let rootClosed = false;
  let i = 0;
  while (i < code.length) {
    const lt = code.indexOf('<', i);
    const text = code.slice(i, lt < 0 ? code.length : lt);
    if (stack.length === 0 && text.replace(/^\uFEFF/, '').trim()) {
      return fail(rootClosed ? 'svg has text after the closing </svg>' : 'svg code must have an <svg> root element');
    }
    if (lt < 0) break;
    const skipped = skipMarkup(code, lt, stack.length > 0);
    if (typeof skipped === 'string') return fail(skipped);
    if (skipped !== undefined) {
      i = skipped;
      continue;
    }
    const tag = readTag(code, lt);
    if (typeof tag === 'string') return fail(tag);
    i = tag.end;
    if (/(^|:)script$/i.test(tag.name)) return fail('svg must not contain <script>: artifacts are static images');
    if (rootClosed) return fail(`svg has content after the closing </svg> (<${tag.closing ? '/' : ''}${tag.name}>)`);
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
    } else if (!tag.selfClosing) {
      stack.push(tag.name);
    }
    if (stack.length === 0) rootClosed = true;
  }
  if (!root) return fail('svg code must have an <svg> root element');
  if (stack.length > 0) return fail(`svg is incomplete: <${stack.at(-1)}> is never closed`);
  // Without the namespace a standalone .svg file opens as an XML tree, not a picture.
  if (/\sxmlns\s*=/.test(root.attributes)) return { ok: true, code };
  const at = root.start + '<svg'.length;
  return { ok: true, code: `${code.slice(0, at)} xmlns="${SVG_NS}"${code.slice(at)}` };
}

/** Comments, CDATA, processing instructions and the DOCTYPE: the index after them, or a problem. */
function skipMarkup(code: string, lt: number, insideRoot: boolean): number | string | undefined {
  const until = (close: string, from: number, what: string): number | string => {
    const end = code.indexOf(close, from);
    return end < 0 ? `svg has an unclosed ${what}` : end + close.length;
  };
  if (code.startsWith('<!--', lt)) return until('-->', lt + 4, 'comment');
  if (code.startsWith('<![CDATA[', lt))
    return insideRoot ? until(']]>', lt + 9, 'CDATA section') : 'svg has CDATA outside the <svg> element';
  if (code.startsWith('<?', lt)) return until('?>', lt + 2, 'processing instruction');
  if (code.startsWith('<!', lt)) {
    if (insideRoot) return 'svg has a DOCTYPE inside the <svg> element';
    const gt = code.indexOf('>', lt);
    const bracket = code.indexOf('[', lt);
    if (bracket >= 0 && (gt < 0 || bracket < gt)) return until(']>', bracket, 'DOCTYPE');
    return gt < 0 ? 'svg has an unclosed DOCTYPE' : gt + 1;
  }
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
  const attrStart = j;
  while (j < code.length) {
    const c = code[j];
    if (c === '"' || c === "'") {
      const close = code.indexOf(c, j + 1);
      if (close < 0) return `svg has an unterminated attribute value in <${name}>`;
      j = close + 1;
    } else if (c === '>' || (c === '/' && code[j + 1] === '>')) {
      const selfClosing = c === '/';
      return {
        name,
        closing,
        selfClosing,
        start: lt,
        end: j + (selfClosing ? 2 : 1),
        attributes: code.slice(attrStart, j),
      };
    } else if (c === '<') {
      break;
    } else {
      j += 1;
    }
  }
  return `svg tag <${closing ? '/' : ''}${name}> is not closed with ">"`;
}

function fail(problem: string): SvgCheck {
  return { ok: false, problem };
}
