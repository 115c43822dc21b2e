/**
 * FHIR narratives: escaping every data value placed in XHTML, and a small
 * checker for the narrative rules (well-formed XHTML, only basic formatting
 * elements and attributes, no scripts: FHIR R4 txt-1, txt-2).
 */

const NEEDS_ESCAPE = /[&<>"'\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF\uD800-\uDFFF]/;

/**
 * Escapes text for XHTML content or attribute values. Characters XML does
 * not allow at all (C0 controls other than tab, newline and carriage
 * return, lone surrogates, U+FFFE/U+FFFF) become U+FFFD, so the result is
 * always well-formed.
 *
 * @example
 * escapeXhtml('<b>Tom & "Jerry"</b>') //=> '&lt;b&gt;Tom &amp; &quot;Jerry&quot;&lt;/b&gt;'
 */
export function escapeXhtml(text: string): string {
  // Most values have nothing to escape: one scan, and they are returned as they are.
  if (!NEEDS_ESCAPE.test(text)) return text;
  return text
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/**
 * A data value as narrative XHTML: escaped ({@link escapeXhtml}) and
 * isolated in `<span dir="auto">`, so that bidi controls inside it (a
 * right-to-left override, U+202E, say) can reorder only the value, never
 * the label or punctuation written after it.
 *
 * @example
 * isolatedXhtml('Hypertension \u202E') //=> '<span dir="auto">Hypertension \u202E</span>'
 * isolatedXhtml('a < b')               //=> '<span dir="auto">a &lt; b</span>'
 */
export function isolatedXhtml(text: string): string {
  return `<span dir="auto">${escapeXhtml(text)}</span>`;
}

/** The XHTML namespace every narrative div declares. */
export const XHTML_NS = 'http://www.w3.org/1999/xhtml';

/** Wraps already-escaped XHTML content in the narrative `div`. */
export function narrativeDiv(inner: string): string {
  return `<div xmlns="${XHTML_NS}">${inner}</div>`;
}

/** The elements FHIR narratives may use (R4 narrative rules, basic HTML formatting). */
const ALLOWED_ELEMENTS = new Set([
  'a',
  'abbr',
  'acronym',
  'b',
  'big',
  'blockquote',
  'br',
  'caption',
  'cite',
  'code',
  'col',
  'colgroup',
  'dd',
  'dfn',
  'div',
  'dl',
  'dt',
  'em',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'i',
  'img',
  'kbd',
  'li',
  'ol',
  'p',
  'pre',
  'q',
  'samp',
  'small',
  'span',
  'strong',
  'sub',
  'sup',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'tt',
  'ul',
  'var',
]);
const ALLOWED_ATTRIBUTES = new Set([
  'abbr',
  'accesskey',
  'align',
  'alt',
  'axis',
  'bgcolor',
  'border',
  'cellhalign',
  'cellpadding',
  'cellspacing',
  'cellvalign',
  'char',
  'charoff',
  'charset',
  'class',
  'colspan',
  'compact',
  'coords',
  'dir',
  'frame',
  'headers',
  'height',
  'href',
  'hreflang',
  'hspace',
  'id',
  'lang',
  'longdesc',
  'name',
  'nowrap',
  'rel',
  'rev',
  'rowspan',
  'rules',
  'scope',
  'shape',
  'span',
  'src',
  'start',
  'style',
  'summary',
  'tabindex',
  'title',
  'type',
  'valign',
  'value',
  'vspace',
  'width',
  'xml:lang',
  'xmlns',
]);

const ISOLATE_TAG = 'span dir="auto"';
const ROOT_TAG = `div xmlns="${XHTML_NS}"`;

/** Whether `text.slice(from, to)` is a tag name alone (`[A-Za-z][A-Za-z0-9]*`), read in place. */
function isSimpleTag(text: string, from: number, to: number): boolean {
  if (to <= from) return false;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i) | 32; // ASCII letters to lower case
    if (c >= 97 && c <= 122) continue;
    const d = text.charCodeAt(i);
    if (i > from && d >= 48 && d <= 57) continue;
    return false;
  }
  return true;
}

/** An element's name and its opening tag without attributes, after the `<`: `['li', 'li>']`. */
type OpenTag = readonly [name: string, open: string];

/** The elements abha-link writes besides the root and the isolates: allowed, and none counts as content by itself. */
const COMMON_TAGS: readonly OpenTag[] = ['li', 'ul', 'p', 'b'].map((name) => [name, `${name}>`]);
const ISOLATE: OpenTag = ['span', `${ISOLATE_TAG}>`];

/** The common element whose opening tag (no attributes) starts at `from`, just after its `<`; undefined for any other. */
function commonTag(text: string, from: number): OpenTag | undefined {
  for (const tag of COMMON_TAGS) if (text.startsWith(tag[1], from)) return tag;
  return undefined;
}

/** Why a narrative div is not acceptable, or undefined when it is. Never quotes the text. */
export function xhtmlProblem(div: string): string | undefined {
  if (!div.startsWith('<div')) return 'must be an XHTML <div> element';
  const stack: string[] = [];
  let i = 0;
  let sawRoot = false;
  let content = false;
  // Most narratives hold no control character and no entity anywhere: then their text needs no check, only a look for content.
  const plain = !XML_FORBIDDEN.test(div) && !div.includes('&');
  while (i < div.length) {
    const lt = div.indexOf('<', i);
    const end = lt === -1 ? div.length : lt;
    if (end > i) {
      if (stack.length === 0) return 'has content outside the root <div>';
      const bad = plain ? undefined : checkText(div.slice(i, end));
      if (bad !== undefined) return bad;
      if (!content && hasContent(div, i, end)) content = true;
    }
    if (lt === -1) break;
    const first = div.charCodeAt(lt + 1);
    // The commonest tags, read in place with no search for their `>` (tag names hold none): the closing tag of the
    // element open, and the bidi isolate abha-link writes around every value, inside the root (always acceptable).
    if (first === 47 /* / */) {
      const open = stack.length > 0 ? stack[stack.length - 1] : undefined;
      if (open !== undefined && div.charCodeAt(lt + 2 + open.length) === 62 /* > */ && div.startsWith(open, lt + 2)) {
        stack.pop();
        i = lt + 3 + open.length;
        continue;
      }
    } else if (stack.length > 0) {
      const tag = first === 115 /* s */ && div.startsWith(ISOLATE[1], lt + 1) ? ISOLATE : commonTag(div, lt + 1);
      if (tag !== undefined) {
        stack.push(tag[0]);
        i = lt + 1 + tag[1].length;
        continue;
      }
    }
    const gt = div.indexOf('>', lt);
    if (gt === -1) return 'is not well-formed XHTML (unclosed tag)';
    i = gt + 1;
    if (first === 33 /* ! */ || first === 63 /* ? */) return 'must not contain comments, processing instructions or CDATA';
    if (first === 47 /* / */) {
      // Not `</name>` of the element open (read above): one with white space in it is cut out and trimmed.
      if (stack.pop() !== div.slice(lt + 2, gt).trim()) return 'is not well-formed XHTML (mismatched closing tag)';
      continue;
    }
    // The root div as abha-link writes it: always acceptable, no parsing needed.
    if (stack.length === 0 && !sawRoot && gt - lt - 1 === ROOT_TAG.length && div.startsWith(ROOT_TAG, lt + 1)) {
      sawRoot = true;
      stack.push('div');
      continue;
    }
    const selfClosing = div.charCodeAt(gt - 1) === 47; /* / */
    const bodyEnd = selfClosing ? gt - 1 : gt;
    // A tag without attributes (most of them) needs no attribute parsing.
    const simple = isSimpleTag(div, lt + 1, bodyEnd);
    const body = div.slice(lt + 1, bodyEnd);
    const m = simple ? undefined : /^([A-Za-z][A-Za-z0-9]*)((?:\s+[A-Za-z:_-]+\s*=\s*(?:"[^"<]*"|'[^'<]*'))*)\s*$/.exec(body);
    if (m === null) return 'is not well-formed XHTML (malformed tag)';
    const name = m === undefined ? body : (m[1] ?? '');
    const attributes = m === undefined ? '' : (m[2] ?? '');
    if (!ALLOWED_ELEMENTS.has(name)) return 'uses an element narratives may not contain (only basic HTML formatting is allowed)';
    if (stack.length === 0) {
      if (sawRoot) return 'has content outside the root <div>';
      if (name !== 'div') return 'must be an XHTML <div> element';
      sawRoot = true;
    }
    if (attributes !== '')
      for (const a of attributes.matchAll(/([A-Za-z:_-]+)\s*=\s*("[^"<]*"|'[^'<]*')/g)) {
        const attr = (a[1] ?? '').toLowerCase();
        if (!ALLOWED_ATTRIBUTES.has(attr)) return 'uses an attribute narratives may not contain (no event handlers or scripts)';
        const value = (a[2] ?? '').slice(1, -1);
        const bad = checkText(value);
        if (bad !== undefined) return bad;
        if ((attr === 'href' || attr === 'src') && /^\s*(javascript|vbscript|data):/i.test(value)) return 'links to a script or data URL';
        if (stack.length === 0 && attr === 'xmlns' && value !== XHTML_NS) return `root <div> must declare xmlns="${XHTML_NS}"`;
      }
    if (stack.length === 0 && !/\sxmlns\s*=\s*"http:\/\/www\.w3\.org\/1999\/xhtml"/.test(attributes)) return `root <div> must declare xmlns="${XHTML_NS}"`;
    if (name === 'img' || name === 'br' || name === 'hr') content = true;
    if (!selfClosing) stack.push(name);
  }
  if (stack.length > 0) return 'is not well-formed XHTML (unclosed element)';
  if (!content) return 'must have some non-whitespace content';
  return undefined;
}

const XML_FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F]/;

/** Whether `text.slice(from, to)` has non-whitespace content (as `trim() !== ''`), without slicing it when it is ASCII. */
function hasContent(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || (c >= 9 && c <= 13)) continue;
    return c < 128 || text.slice(i, to).trim() !== '';
  }
  return false;
}

/** Text and attribute values: only the five XML entities and character references, no raw < or forbidden characters. */
function checkText(text: string): string | undefined {
  if (XML_FORBIDDEN.test(text)) return 'contains characters XML does not allow';
  if (!text.includes('&')) return undefined;
  for (const m of text.matchAll(/&([^;\s]*);?/g)) {
    const ref = m[1] ?? '';
    if (!m[0].endsWith(';') || !/^(amp|lt|gt|quot|apos|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6})$/.test(ref)) return 'contains an undefined or malformed entity (escape & as &amp;)';
  }
  return undefined;
}

/**
 * The plain text of a narrative div produced by abha-link (or any simple
 * XHTML): tags removed, entities decoded, block elements as line breaks.
 *
 * @example
 * narrativeText('<div xmlns="http://www.w3.org/1999/xhtml"><p>Rest &amp; fluids</p></div>') //=> 'Rest & fluids'
 */
export function narrativeText(div: string): string {
  return div
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|li|tr|h[1-6]|div)>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);/g, (_, e: string) => {
      if (e.startsWith('#x')) return safeChar(Number.parseInt(e.slice(2), 16));
      if (e.startsWith('#')) return safeChar(Number(e.slice(1)));
      return ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" } as Record<string, string>)[e] ?? '';
    })
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .join('\n');
}

function safeChar(code: number): string {
  return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '\uFFFD';
}
