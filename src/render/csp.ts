/**
 * The Content-Security-Policy of every rendered page, put there by the
 * renderer rather than by a template, so a custom template cannot leave it
 * out. A template's own policy cannot loosen it: when a page has several
 * policies, a browser enforces every one of them.
 */

/**
 * The policy of every rendered page: nothing is fetched and nothing runs;
 * inline styles and `data:` images (the QR code is inline SVG) are allowed.
 *
 * @example
 * CONTENT_SECURITY_POLICY //=> "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
 */
export const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

const META = `<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">`;

// HTML's own whitespace (not \s, which also matches characters the tokenizer treats as text).
const WS = '[\\t\\n\\f\\r ]';
// A start tag as the HTML tokenizer reads it, attributes quoted or not; anything unusual does not match.
const attrs = `(?:${WS}+[^\\t\\n\\f\\r "'<>/=]+(?:${WS}*=${WS}*(?:"[^"]*"|'[^']*'|[^\\t\\n\\f\\r "'=<>\`]+))?)*${WS}*>`;
/** What may come before the policy, read from the very start only: a doctype, then `<html …>`, then `<head …>`. */
const PREFIX = new RegExp(`^\\uFEFF?${WS}*(?:<!doctype[^>]*>${WS}*(?:<html${attrs}${WS}*(?:<head${attrs})?)?)?`, 'i');

/**
 * The page with the policy as a `<meta http-equiv>` element placed before
 * anything the template wrote that a browser could act on: right after
 * `<head>` when the page opens with doctype, `<html>` and `<head>`; after
 * the doctype otherwise (the browser then opens the head itself); at the
 * very start when there is no doctype. Only the opening of the page is read,
 * so markup further on (a `<head>` inside a comment) cannot move it.
 *
 * @example
 * withContentSecurityPolicy('<!DOCTYPE html><html lang="en"><head><title>x</title>')
 * //=> '<!DOCTYPE html><html lang="en"><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; …"><title>x</title>'
 */
export function withContentSecurityPolicy(html: string): string {
  const at = PREFIX.exec(html)?.[0].length ?? 0;
  return `${html.slice(0, at)}${META}${html.slice(at)}`;
}
