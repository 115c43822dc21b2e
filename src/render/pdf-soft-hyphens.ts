/**
 * The soft hyphens (U+00AD) a PDF's text layer must not carry. The renderer
 * puts soft hyphens into the words of the page (hyphenate.ts); Chromium keeps
 * every one of them in a printed PDF's text, so a search for "Metformin" misses
 * "Met\u00adformin" and a copied drug name comes out broken. Before printing,
 * the printer runs this script in the page (through the DevTools protocol: the
 * document's own scripts stay off): it lays the page out at the width of the
 * printed page's content box, keeps each soft hyphen where a line breaks (the
 * visible hyphen) and removes the others, which are invisible and take no room.
 *
 * It leaves the page as it was when it cannot be sure: when the width of the
 * printed pages cannot be read from the `@page` rules (a `:first` page with
 * other side margins, a page size or margin it does not understand, pages of
 * several widths), and, paragraph by paragraph, when a line would move
 * (without a soft hyphen two letters may kern closer: a line can then take one
 * more word), checked on every text node of the page after the change.
 */
import type { PageSize } from './model.js';

/** What the script did, for tests and benchmarks. */
export interface SoftHyphenCleanup {
  /** Soft hyphens removed. */
  readonly removed: number;
  /** Soft hyphens kept: where a line breaks, or in a paragraph put back as it was. */
  readonly kept: number;
  /** Text nodes put back as they were because a line moved. */
  readonly restoredNodes: number;
  /** Why nothing was removed, when nothing could be. */
  readonly skipped?: string;
}

// Runs in the page: plain ES2022, nothing of this module. The document's own methods and getters are taken from
// Document.prototype, so that an element named "body" or "createRange" (DOM clobbering) cannot stand in for them.
const SCRIPT = String.raw`(defaultSize) => {
  const SHY = '\u00ad';
  const MM = 96 / 25.4;
  // CSS named page sizes, portrait, in mm.
  const SIZES = { a5: [148, 210], a4: [210, 297], a3: [297, 420], b5: [176, 250], b4: [250, 353], 'jis-b5': [182, 257], 'jis-b4': [257, 364], letter: [215.9, 279.4], legal: [215.9, 355.6], ledger: [279.4, 431.8] };
  const doc = (name) => Object.getOwnPropertyDescriptor(Document.prototype, name).get.call(document);
  const call = (name, ...args) => Document.prototype[name].apply(document, args);
  const body = doc('body');
  const html = doc('documentElement');
  if (body === null || !(html instanceof HTMLElement)) return { removed: 0, kept: 0, restoredNodes: 0 };
  const count = (s) => s.split(SHY).length - 1;

  // The width of the printed pages' content box in CSS px, or why it cannot be known.
  const contentWidth = () => {
    const rules = [];
    const visit = (list) => {
      for (const r of list) {
        if (r instanceof CSSPageRule) rules.push(r);
        else if (r instanceof CSSImportRule) { if (r.styleSheet !== null && matchMedia(r.media.mediaText || 'all').matches) visit(r.styleSheet.cssRules); }
        else if (r instanceof CSSMediaRule) { if (matchMedia(r.media.mediaText).matches) visit(r.cssRules); }
        else if (r instanceof CSSSupportsRule) { if (CSS.supports(r.conditionText)) visit(r.cssRules); }
        else if (r.cssRules !== undefined && !(r instanceof CSSStyleRule)) visit(r.cssRules);
      }
    };
    try {
      for (const sheet of doc('styleSheets')) if (!sheet.disabled && matchMedia(sheet.media.mediaText || 'all').matches) visit(sheet.cssRules);
    } catch {
      return 'a style sheet cannot be read';
    }
    const PROPS = ['size', 'margin-left', 'margin-right'];
    const setsWidth = (r) => PROPS.some((p) => r.style.getPropertyValue(p) !== '');
    const pageOf = (el) => { const p = getComputedStyle(el).page; return p === undefined || p === '' || p === 'auto' ? '' : p; };
    const name = pageOf(body) || pageOf(html);
    // The cascade of the body's page: @page rules, then those of its name (more specific), each in order.
    const values = {};
    for (const named of [false, true]) {
      for (const r of rules) {
        const m = /^([^\s:]*)((?::[a-z-]+)*)$/i.exec(r.selectorText.trim());
        if (m === null) { if (setsWidth(r)) return 'an @page selector'; continue; }
        const [, n, pseudo] = m;
        if (n !== '' && n !== name) {
          // Another named page matters only when something is printed on it.
          if (!named && setsWidth(r) && [...body.querySelectorAll('*')].some((e) => pageOf(e) === n)) return 'pages of several widths';
          continue;
        }
        if (pseudo !== '') { if (!named && setsWidth(r)) return 'a :first, :left or :right page of another width'; continue; }
        if ((n !== '') !== named) continue;
        for (const p of PROPS) { const v = r.style.getPropertyValue(p).trim().toLowerCase(); if (v !== '') values[p] = v; }
      }
    }
    // Lengths in CSS px, resolved by the browser itself.
    const probe = call('createElement', 'div');
    for (const [p, v] of [['position', 'absolute'], ['visibility', 'hidden'], ['box-sizing', 'content-box']]) probe.style.setProperty(p, v);
    html.append(probe);
    const px = (v) => {
      if (!/^(\d*\.)?\d+(mm|cm|in|pt|pc|px|q)$/.test(v)) return NaN;
      probe.style.setProperty('width', v);
      return probe.getBoundingClientRect().width;
    };
    try {
      const words = (values.size || 'auto').split(/\s+/);
      const lengths = words.filter((x) => /^[\d.]/.test(x)).map(px);
      const named = words.find((x) => SIZES[x] !== undefined);
      let page = (SIZES[named] || SIZES[defaultSize.toLowerCase()]).map((x) => x * MM);
      if (lengths.length > 0) page = [lengths[0], lengths[1] ?? lengths[0]];
      if (words.includes('landscape')) page = [Math.max(...page), Math.min(...page)];
      else if (words.includes('portrait')) page = [Math.min(...page), Math.max(...page)];
      const margin = (v) => (v === undefined ? 0 : v.endsWith('%') ? (page[0] * parseFloat(v)) / 100 : px(v));
      const width = page[0] - margin(values['margin-left']) - margin(values['margin-right']);
      // Chromium lays printed pages out at the content width rounded up to a whole CSS pixel (measured: content boxes of
      // 499.2, 499.6, 500.3 and 710.55 px break lines as 500, 500, 501 and 711 px do on the screen).
      return Number.isFinite(width) && width > 0 ? Math.ceil(width - 0.001) : 'a page size or margin';
    } finally {
      probe.remove();
    }
  };

  // Every text node with something printed (each is checked after the change), and those with soft hyphens.
  const texts = [];
  const nodes = [];
  const walker = call('createTreeWalker', body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n !== null; n = walker.nextNode()) {
    if (n.data.includes(SHY)) nodes.push(texts.length);
    if (/\S/.test(n.data)) texts.push(n);
  }
  const all = nodes.reduce((k, t) => k + count(texts[t].data), 0);
  if (all === 0) return { removed: 0, kept: 0, restoredNodes: 0 };
  const width = contentWidth();
  if (typeof width === 'string') return { removed: 0, kept: all, restoredNodes: 0, skipped: width };

  // The page laid out at that width, for the time of the measurements.
  const saved = ['width', 'box-sizing'].map((p) => [p, html.style.getPropertyValue(p), html.style.getPropertyPriority(p)]);
  const hs = getComputedStyle(html);
  html.style.setProperty('box-sizing', 'border-box', 'important');
  html.style.setProperty('width', width - parseFloat(hs.marginLeft) - parseFloat(hs.marginRight) + 'px', 'important');
  // The text nodes changed, with their text as it was: put back if anything fails half-way.
  const originals = new Map();
  try {
    const range = call('createRange');
    // The lines of a node: top, bottom, left and right of each.
    const lines = (node) => {
      range.selectNodeContents(node);
      const byTop = new Map();
      for (const r of range.getClientRects()) {
        if (r.width === 0 && r.height === 0) continue;
        const key = Math.round(r.top * 8);
        const l = byTop.get(key);
        byTop.set(key, l === undefined ? [r.top, r.bottom, r.left, r.right] : [l[0], Math.max(l[1], r.bottom), Math.min(l[2], r.left), Math.max(l[3], r.right)]);
      }
      return [...byTop.values()];
    };
    // The same lines at the same heights; sideways within a pixel (kerning).
    const same = (a, b) => a.length === b.length && a.every((l, i) => l.every((x, j) => Math.abs(x - b[i][j]) < (j < 2 ? 0.05 : 1)));
    // Everything is read before anything changes: a change between two readings would lay the page out again.
    const before = texts.map(lines);
    const plans = nodes.map((t) => {
      const node = texts[t];
      const text = node.data;
      let out = '';
      let from = 0;
      for (let i = text.indexOf(SHY); i >= 0; i = text.indexOf(SHY, i + 1)) {
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const rects = [...range.getClientRects()];
        // Where a line breaks, the soft hyphen shows as a hyphen: a second box, with a width.
        const breaks = rects.length > 1 || rects.some((r) => r.width > 0);
        out += text.slice(from, breaks ? i + 1 : i);
        from = i + 1;
      }
      return out + text.slice(from);
    });
    nodes.forEach((t, k) => {
      if (plans[k] !== texts[t].data) {
        originals.set(t, texts[t].data);
        texts[t].data = plans[k];
      }
    });
    const moved = () => texts.flatMap((node, t) => (same(before[t], lines(node)) ? [] : [t]));
    let restoredNodes = 0;
    const restore = (ts) => {
      for (const t of ts) if (originals.has(t)) { texts[t].data = originals.get(t); originals.delete(t); restoredNodes++; }
    };
    const first = originals.size === 0 ? [] : moved();
    if (first.length > 0) {
      // The changed nodes whose lines moved, and the changed nodes in the paragraph of any other node that moved, get
      // their soft hyphens back; if a line still moves, every node does.
      const blockOf = (node) => {
        let e = node.parentElement;
        while (e !== null && e !== body && /^(inline|contents)$/.test(getComputedStyle(e).display)) e = e.parentElement;
        return e ?? body;
      };
      const blocks = first.filter((t) => !originals.has(t)).map((t) => blockOf(texts[t]));
      restore([...originals.keys()].filter((t) => first.includes(t) || blocks.some((b) => b.contains(texts[t]))));
      if (originals.size > 0 && moved().length > 0) restore([...originals.keys()]);
    }
    const kept = nodes.reduce((k, t) => k + count(texts[t].data), 0);
    return { removed: all - kept, kept, restoredNodes };
  } catch (error) {
    for (const [t, text] of originals) texts[t].data = text;
    throw error;
  } finally {
    for (const [p, v, prio] of saved) { if (v === '') html.style.removeProperty(p); else html.style.setProperty(p, v, prio); }
    if (html.getAttribute('style') === '') html.removeAttribute('style');
  }
}`;

/**
 * The expression that removes, in a page laid out for print, the soft hyphens where no line breaks, and returns
 * a {@link SoftHyphenCleanup}. `pageSize` is the paper used when the page's `@page` rules set no size.
 *
 * @example
 * await page.evaluate(dropUnusedSoftHyphens('A5')) //=> { removed: 188, kept: 3, restoredNodes: 0 }
 */
export function dropUnusedSoftHyphens(pageSize: PageSize): string {
  return `(${SCRIPT})(${JSON.stringify(pageSize)})`;
}
