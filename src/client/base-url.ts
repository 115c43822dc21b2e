/** Checking the base URL of the service: https only, except loopback. */

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Checks a base URL and returns it normalised (no trailing slash). Only
 * `https:` is accepted, except `http:` to a loopback host (127.0.0.1, ::1,
 * localhost) for the local mock and tests. Credentials, query strings and
 * fragments are refused. Messages never repeat the URL (it may hold secrets).
 *
 * @throws TypeError naming what is wrong
 * @example
 * parseBaseUrl('https://abha.example.org/') //=> 'https://abha.example.org'
 * parseBaseUrl('http://127.0.0.1:8080') //=> 'http://127.0.0.1:8080'
 * parseBaseUrl('http://abha.example.org') // throws TypeError: baseUrl must use https ...
 */
export function parseBaseUrl(baseUrl: unknown): string {
  if (typeof baseUrl !== 'string' || baseUrl.trim() === '') throw new TypeError('baseUrl is required: the https URL of the service, e.g. https://abha.example.org');
  let u: URL;
  try {
    u = new URL(baseUrl.trim());
  } catch {
    throw new TypeError('baseUrl is not a valid absolute URL (expected e.g. https://abha.example.org)');
  }
  if (u.username !== '' || u.password !== '') throw new TypeError('baseUrl must not contain credentials; the API key is passed separately');
  if (u.search !== '' || u.hash !== '') throw new TypeError('baseUrl must not have a query string or a fragment');
  if (u.protocol === 'http:') {
    if (!LOOPBACK.has(u.hostname)) throw new TypeError('baseUrl must use https: plain http is allowed only to a loopback host (127.0.0.1, ::1, localhost)');
  } else if (u.protocol !== 'https:') {
    throw new TypeError(`baseUrl must use https (got ${u.protocol})`);
  }
  return u.href.replace(/\/+$/, '');
}
