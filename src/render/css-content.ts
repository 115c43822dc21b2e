/**
 * Text for the CSS `content` property, for the page margin boxes that carry
 * the patient's name, the date and the page number on every printed page.
 * Data goes into a style sheet only through {@link cssContent}: every
 * character but ASCII letters, digits and spaces is written as a CSS hex
 * escape, so no value can end the string, the rule or the `<style>` element.
 */

/** A CSS string literal of any text: `"` + escaped characters + `"`. */
function cssString(text: string): string {
  let out = '"';
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    // Control characters (and bidi controls) have no business in a page margin.
    if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)) continue;
    // A hex escape ends at the space after it (which CSS consumes), so a space that follows in the text survives.
    out += /^[A-Za-z0-9 ]$/.test(ch) ? ch : `\\${cp.toString(16)} `;
  }
  return `${out}"`;
}

/**
 * A value for the CSS `content` property: the text as escaped CSS strings,
 * with `{page}` and `{pages}` turned into the page counters.
 *
 * @example
 * cssContent('Page {page} of {pages}') //=> '"Page " counter(page) " of " counter(pages)'
 * cssContent('A "B"')                  //=> '"A \\22 B\\22 "'
 */
export function cssContent(text: string): string {
  const parts = text.split(/(\{pages?\})/);
  const out: string[] = [];
  for (const p of parts) {
    if (p === '{page}') out.push('counter(page)');
    else if (p === '{pages}') out.push('counter(pages)');
    else if (p !== '') out.push(cssString(p));
  }
  return out.length === 0 ? '""' : out.join(' ');
}
