/**
 * What an SVG artifact may contain: a picture and nothing more. The file is delivered as
 * `image/svg+xml`, and a user who opens it in a browser opens a document that could run
 * script, navigate, embed a page or fetch a URL (a beacon) if we let it. So: no script or
 * embedding elements, no event handlers, no link or reference that leaves the document
 * (only `#fragment`), no animation that rewrites a link or a handler, no CSS that fetches.
 *
 * Every check here reads an attribute value or a stylesheet once, with `indexOf` and
 * `includes` (no backtracking regex): the input is model-written and up to the size cap.
 */

export interface SvgAttribute {
  /** As written, prefix included (`xlink:href`). */
  name: string;
  /** With XML character and entity references decoded, as the browser's parser sees it. */
  value: string;
}

export const SVG_NS = 'http://www.w3.org/2000/svg';
const XHTML_NS = 'http://www.w3.org/1999/xhtml';

/** Elements that run script, embed another document or object, or (SVG Tiny) listen for events. */
const ACTIVE_ELEMENTS = new Set([
  'script',
  'foreignobject',
  'iframe',
  'frame',
  'embed',
  'object',
  'applet',
  'handler',
  'listener',
]);

/** Attributes whose whole value is a URL: only a reference inside the document may stay. */
const URL_ATTRIBUTES = new Set(['href', 'src']);
/** Animation values: what `set`/`animate` write into the animated attribute. */
const ANIMATION_VALUES = new Set(['to', 'from', 'by', 'values']);
/** Schemes that run code, carry a document, or reach the network, and a network-path reference. */
const URL_SCHEMES = ['javascript:', 'vbscript:', 'data:', 'http:', 'https:', 'ftp:', 'file:'];
/** CSS that fetches without `url(`, or that we cannot read plainly. */
const CSS_FETCHES = ['@import', 'image-set(', 'image(', 'cross-fade(', 'src(', 'element('];

const localName = (name: string) => name.slice(name.lastIndexOf(':') + 1).toLowerCase();

/**
 * What the URL parser sees: no ASCII whitespace or control characters (it drops tabs and
 * newlines anywhere, and spaces and controls at the ends, so "java&#9;script:" still runs).
 */
function compact(value: string): string {
  let out = '';
  for (const ch of value) if (ch > ' ' && ch !== '\u007f') out += ch;
  return out.toLowerCase();
}

function isExternal(reference: string): boolean {
  const url = compact(reference);
  return url.startsWith('//') || URL_SCHEMES.some((scheme) => url.includes(scheme));
}

/** Why an element with these attributes is not a static image, or undefined. */
export function elementProblem(name: string, attributes: readonly SvgAttribute[], isRoot: boolean): string | undefined {
  const element = localName(name);
  if (ACTIVE_ELEMENTS.has(element)) return `svg must not contain <${name}>: artifacts are static images`;
  const animates = element === 'set' || element.startsWith('animate');
  for (const { name: attribute, value } of attributes) {
    const local = localName(attribute);
    const where = `${attribute} on <${name}>`;
    if (local.startsWith('on')) return `svg must not have event handlers (${where}): artifacts are static images`;
    if (attribute === 'xmlns' || attribute.startsWith('xmlns:')) {
      if (value.trim() === XHTML_NS) return `svg must not use the XHTML namespace (${where}): use SVG elements only`;
      if (isRoot && attribute === 'xmlns' && value.trim() !== SVG_NS)
        return `the <svg> root's xmlns must be "${SVG_NS}"`;
      continue;
    }
    if (attribute === 'xml:base') return `svg must not set xml:base (on <${name}>)`;
    if (URL_ATTRIBUTES.has(local) && !compact(value).startsWith('#') && compact(value) !== '')
      return `${where} must point inside the image (#id): no javascript:, data: or external links`;
    if (animates && local === 'attributename') {
      const target = localName(value.trim());
      if (URL_ATTRIBUTES.has(target) || target.startsWith('on') || target === 'base')
        return `svg must not animate ${value.trim()} (<${name}>): animate presentation attributes only`;
    }
    if (ANIMATION_VALUES.has(local) && value.split(';').some(isExternal))
      return `${where} must not hold a javascript:, data: or external URL`;
    const css = cssProblem(value, where, local === 'style');
    if (css) return css;
  }
  return undefined;
}

/**
 * Why a stylesheet (a `<style>` element, a `style` attribute) or a presentation attribute
 * (`fill="url(#g)"`, `cursor`, `filter`: any attribute may hold a CSS `url()`) would fetch
 * something, or undefined. Only `url(#id)` stays. `stylesheet` marks text that is all CSS,
 * where the other fetching forms are refused too.
 */
export function cssProblem(text: string, where: string, stylesheet: boolean): string | undefined {
  // CSS escapes (`u\72l(`) would hide a url( from the search below; a picture needs none.
  if (text.includes('\\')) return `${where} must not contain backslashes (CSS escapes)`;
  const lower = text.toLowerCase();
  if (stylesheet) {
    const fetch = CSS_FETCHES.find((f) => lower.includes(f));
    if (fetch) return `${where} must not use ${fetch}${fetch.endsWith('(') ? ')' : ''}: styles may reference only #ids`;
  }
  for (let at = lower.indexOf('url('); at >= 0; at = lower.indexOf('url(', at + 4)) {
    let j = at + 4;
    while (j < lower.length && ' \t\r\n\f"\''.includes(lower[j]!)) j += 1;
    if (lower[j] !== '#') return `${where} has a url() that leaves the image: use url(#id) only`;
  }
  return undefined;
}
