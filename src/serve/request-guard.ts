/**
 * The checks a request passes before any route sees it, as pure decisions:
 * the spelling of its path, its Host, its Origin and the type of its body.
 * They keep the service from being reached under another name (DNS
 * rebinding), from another web page (a cross-origin POST), or past the
 * token by an odd spelling of a path. app.ts runs them in its hooks.
 */
import { isIP } from 'node:net';
import { isLoopbackHost } from './auth.js';

/** Percent-encoded unreserved characters (RFC 3986, section 2.3): the same path as the character itself. */
const ENCODED_UNRESERVED = /%(?:[46][1-9A-F]|[57][0-9A]|3[0-9]|2D|2E|5F|7E)/gi;

/**
 * The path of a request target with its percent-encoded unreserved
 * characters decoded (`/%76%31/x` is `/v1/x`), so that the router and every
 * check see one spelling; the query is left as it is.
 *
 * @example
 * normalizeTarget('/%76%31/submissions?limit=1') //=> '/v1/submissions?limit=1'
 */
export function normalizeTarget(target: string): string {
  const q = target.indexOf('?');
  const path = q === -1 ? target : target.slice(0, q);
  if (!path.includes('%')) return target;
  return path.replace(ENCODED_UNRESERVED, (m) => String.fromCharCode(parseInt(m.slice(1), 16))) + (q === -1 ? '' : target.slice(q));
}

/**
 * Why a (normalised) path is refused, or undefined when it is plain: an
 * empty, `.` or `..` segment, or an encoded `/` or `\`, would make the
 * path mean something else to a proxy than to this server.
 *
 * @example
 * pathProblem('/v1/../v1/submissions') //=> 'a "." or ".." segment'
 * pathProblem('/v1/submissions') //=> undefined
 */
export function pathProblem(target: string): string | undefined {
  const q = target.indexOf('?');
  const path = q === -1 ? target : target.slice(0, q);
  if (/%(?:2F|5C)/i.test(path) || path.includes('\\')) return 'an encoded "/" or a "\\"';
  const segments = path.split('/').slice(1);
  if (segments.some((s) => s === '.' || s === '..')) return 'a "." or ".." segment';
  if (segments.slice(0, -1).some((s) => s === '')) return 'an empty segment ("//")';
  return undefined;
}

/** The host name and port of a Host header (`[::1]:8080` gives `::1` and `8080`), lower case, without a final dot. */
export function splitHost(header: string): { name: string; port: string | undefined } | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]\s/@]+)(?::(\d{1,5}))?$/.exec(header.trim());
  if (m === null) return undefined;
  const name = (m[1] ?? '')
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
  return { name, port: m[2] };
}

/** Which Host names the service answers to. */
export interface HostPolicy {
  /** The address the server listens on (`127.0.0.1`, `0.0.0.0`, `::`, a LAN address). */
  readonly listenHost: string;
  /** More names the operator allows (`--allowed-host`), e.g. the name a reverse proxy forwards. */
  readonly allowedHosts: readonly string[];
  /** The addresses of this machine's interfaces (asked only when listening on all of them). */
  readonly localAddresses: () => ReadonlySet<string>;
}

const isWildcard = (host: string): boolean => ['0.0.0.0', '::', '[::]', ''].includes(host);

/**
 * Whether a Host header names this server: a loopback name, the listening
 * address, an address of this machine when listening on all of them, or a
 * name the operator allowed. Any other name is how a DNS-rebinding page
 * reaches a server: it is refused whatever the route.
 *
 * @example
 * hostAllowed('127.0.0.1:8080', { listenHost: '127.0.0.1', allowedHosts: [], localAddresses: () => new Set() }) //=> true
 * hostAllowed('attacker.example:8080', { listenHost: '127.0.0.1', allowedHosts: [], localAddresses: () => new Set() }) //=> false
 */
export function hostAllowed(header: string | undefined, policy: HostPolicy): boolean {
  const host = header === undefined ? undefined : splitHost(header);
  if (host === undefined || host.name === '') return false;
  if (isLoopbackHost(host.name)) return true;
  const listen = policy.listenHost.replace(/^\[|\]$/g, '').toLowerCase();
  if (host.name === listen) return true;
  if (policy.allowedHosts.some((h) => h.toLowerCase().replace(/\.$/, '') === host.name)) return true;
  return isWildcard(listen) && isIP(host.name) !== 0 && policy.localAddresses().has(host.name);
}

const DEFAULT_PORT: Readonly<Record<string, string>> = { 'http:': '80', 'https:': '443' };

/**
 * Whether an Origin header is this server's own: the same host and port as
 * the Host header (a page served by this server, the playground). Absent:
 * not a browser's cross-origin request, allowed. `null` or another origin:
 * refused.
 *
 * @example
 * sameOrigin('http://127.0.0.1:8080', '127.0.0.1:8080') //=> true
 * sameOrigin('https://attacker.example', '127.0.0.1:8080') //=> false
 */
export function sameOrigin(origin: string | undefined, hostHeader: string | undefined): boolean {
  if (origin === undefined) return true;
  const host = hostHeader === undefined ? undefined : splitHost(hostHeader);
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  const defaultPort = DEFAULT_PORT[url.protocol];
  if (host === undefined || defaultPort === undefined) return false;
  if (url.hostname.replace(/^\[|\]$/g, '').toLowerCase() !== host.name) return false;
  const originPort = url.port === '' ? defaultPort : url.port;
  // A Host without a port (behind a proxy): the page's port must be a default one.
  return host.port === undefined ? originPort === '80' || originPort === '443' : originPort === host.port;
}

/** JSON media types: `application/json` and `application/<anything>+json`, parameters allowed. */
export const JSON_MEDIA_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

/**
 * Whether a request carries a body (a Content-Length above 0, or a chunked
 * transfer).
 *
 * @example
 * hasBody({ 'content-length': '0' }) //=> false
 */
export function hasBody(headers: { readonly 'content-length'?: string | undefined; readonly 'transfer-encoding'?: string | undefined }): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length.trim() !== '0');
}

/** Time limits of the HTTP server, in ms: a client that holds a connection without finishing a request is cut off. */
export interface ServeTimeouts {
  /** The request's headers must be in within this time of the connection (or of the previous request). */
  readonly headersMs: number;
  /** The whole request, headers and body, must be in within this time. */
  readonly requestMs: number;
  /** An idle keep-alive connection is closed after this time. */
  readonly keepAliveMs: number;
}

/** The default time limits: 10 s for headers, 30 s for a whole request (an 8 MiB body at 2.2 Mbit/s), 5 s idle. */
export const DEFAULT_TIMEOUTS: ServeTimeouts = { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 };
