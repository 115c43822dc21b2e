/**
 * Where a callback may go. A callback URL is an address the caller chooses
 * and the server then POSTs to from inside the hospital's network, so without
 * rules it reaches what the caller cannot: the cloud's metadata service
 * (169.254.169.254), private hosts, this machine's other ports.
 *
 * The rules: https to a public address; a host the operator allow-lists
 * (`--callback-allow HOST[:PORT]`) may be any address; plain http only to a
 * loopback host and port the operator allow-listed. Refused: loopback,
 * private (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7), link-local
 * (169.254/16, fe80::/10), unspecified (0.0.0.0/8, ::), multicast and
 * reserved ranges, and the same addresses inside IPv6 (IPv4-mapped
 * `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`).
 * Decimal, octal and hex spellings of IPv4 (`2130706433`, `0177.0.0.1`,
 * `0x7f.1`) are read as the URL standard reads them, so they are the same
 * addresses.
 *
 * The rules are applied when a submission is accepted (to the URL) and again
 * at each delivery, after DNS: every address a name resolves to is checked and
 * the connection goes to the address checked ({@link guardedLookup}), so a
 * name that answers differently the second time cannot slip in.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/** A host (and port) the operator allow-listed with `--callback-allow`. */
export interface CallbackAllow {
  /** Lowercased; an IPv6 address without brackets. */
  readonly host: string;
  /** Undefined: any port (https only; http needs the port named). */
  readonly port?: number;
}

/** Why an address is refused. */
const RANGES: readonly (readonly [kind: string, cidr: string, bits: number])[] = [
  ['an unspecified', '0.0.0.0', 8],
  ['a private', '10.0.0.0', 8],
  ['a shared (carrier-grade NAT)', '100.64.0.0', 10],
  ['a loopback', '127.0.0.0', 8],
  ['a link-local', '169.254.0.0', 16],
  ['a private', '172.16.0.0', 12],
  ['a reserved', '192.0.0.0', 24],
  ['a private', '192.168.0.0', 16],
  ['a reserved', '198.18.0.0', 15],
  ['a multicast', '224.0.0.0', 4],
  ['a reserved', '240.0.0.0', 4],
  ['a private', 'fc00::', 7],
  ['a link-local', 'fe80::', 10],
  ['a site-local', 'fec0::', 10],
  ['a multicast', 'ff00::', 8],
];

const BLOCKS = RANGES.map(([kind, net, bits]) => {
  const list = new BlockList();
  list.addSubnet(net, bits, isIP(net) === 6 ? 'ipv6' : 'ipv4');
  return { kind, list, type: isIP(net) === 6 ? ('ipv6' as const) : ('ipv4' as const) };
});

/** The IPv4 address inside an IPv6 one that embeds it (mapped, compatible, NAT64), else undefined. */
function embeddedIpv4(ipv6: string): string | undefined {
  const words = expandIpv6(ipv6);
  if (words === undefined) return undefined;
  const zeros = (from: number, to: number): boolean => words.slice(from, to).every((w) => w === 0);
  const mapped = zeros(0, 5) && words[5] === 0xffff;
  const compatible = zeros(0, 6);
  const nat64 = words[0] === 0x64 && words[1] === 0xff9b && zeros(2, 6);
  if (!mapped && !compatible && !nat64) return undefined;
  const [hi = 0, lo = 0] = words.slice(6);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

/** The eight 16-bit words of an IPv6 address (a dotted IPv4 tail included). */
function expandIpv6(address: string): number[] | undefined {
  let text = address.toLowerCase().split('%')[0] ?? '';
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const part = (s: string): number[] => (s === '' ? [] : s.split(':').map((w) => parseInt(w, 16)));
  const first = part(head);
  const last = tail === undefined ? [] : part(tail);
  const words = tail === undefined ? first : [...first, ...Array<number>(8 - first.length - last.length).fill(0), ...last];
  return words.length === 8 && words.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffff) ? words : undefined;
}

/**
 * Why a callback may not go to this IP address ("a private address"), or
 * undefined for a public one.
 *
 * @example
 * forbiddenAddress('169.254.169.254') //=> 'a link-local address'
 * forbiddenAddress('::ffff:10.0.0.1') //=> 'a private address'
 * forbiddenAddress('93.184.216.34') //=> undefined
 */
export function forbiddenAddress(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return 'not an IP address';
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4 !== undefined) return v4 === '0.0.0.1' ? 'a loopback address' : forbiddenAddress(v4);
  }
  const type = family === 6 ? 'ipv6' : 'ipv4';
  const hit = BLOCKS.find((b) => b.type === type && b.list.check(address, type));
  return hit === undefined ? undefined : `${hit.kind} address`;
}

/**
 * Reads one `--callback-allow` value: `HOST` or `HOST:PORT` (`[::1]:8443` for IPv6).
 *
 * @throws Error with a message for the operator
 */
export function parseCallbackAllow(text: string): CallbackAllow {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]/\s]+))(?::(\d{1,5}))?$/.exec(text.trim());
  const port = m?.[3] === undefined ? undefined : Number(m[3]);
  if (m === null || (port !== undefined && (port < 1 || port > 65535))) throw new Error('--callback-allow must be HOST or HOST:PORT (IPv6 in brackets: [::1]:8443)');
  const host = (m[1] ?? m[2] ?? '').toLowerCase();
  return port === undefined ? { host } : { host, port };
}

const LOOPBACK_NAMES = (host: string): boolean => host === 'localhost' || host.endsWith('.localhost');

/** The callback URL's host as allow-lists and IP checks read it: lowercased, IPv6 without brackets. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

/** The verdict on a callback URL: where to send, and whether its addresses need checking after DNS. */
export type CallbackVerdict = { readonly ok: true; readonly url: URL; readonly allowListed: boolean } | { readonly ok: false; readonly reason: string };

/**
 * Checks a callback URL against the rules (see the file's comment). Where a
 * name must be resolved first, the verdict says so (`allowListed: false`):
 * the delivery then connects only through {@link guardedLookup}.
 *
 * @example
 * checkCallbackUrl('https://169.254.169.254/latest', []) //=> { ok: false, reason: 'callbackUrl points at a link-local address' }
 */
export function checkCallbackUrl(raw: string, allow: readonly CallbackAllow[]): CallbackVerdict {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'callbackUrl must be an absolute URL' };
  }
  if (raw.length > 2048) return { ok: false, reason: 'callbackUrl must be at most 2048 characters' };
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'callbackUrl must not hold credentials' };
  const host = hostOf(url);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const entry = allow.find((a) => a.host === host && (a.port === undefined || a.port === port));
  if (url.protocol === 'http:') {
    const loopback = LOOPBACK_NAMES(host) || (isIP(host) !== 0 && forbiddenAddress(host) === 'a loopback address');
    if (entry?.port !== undefined && loopback) return { ok: true, url, allowListed: true };
    return { ok: false, reason: 'callbackUrl must be https (http only to a loopback host and port allowed with --callback-allow HOST:PORT)' };
  }
  if (url.protocol !== 'https:') return { ok: false, reason: 'callbackUrl must be an https URL' };
  if (entry !== undefined) return { ok: true, url, allowListed: true };
  if (LOOPBACK_NAMES(host)) return { ok: false, reason: 'callbackUrl points at a loopback address (allow it with --callback-allow HOST:PORT)' };
  const bad = isIP(host) === 0 ? undefined : forbiddenAddress(host);
  if (bad !== undefined) return { ok: false, reason: `callbackUrl points at ${bad} (allow it with --callback-allow HOST:PORT)` };
  return { ok: true, url, allowListed: false };
}

/** The error of a name that resolves to a refused address. */
export class ForbiddenCallbackAddressError extends Error {
  override name = 'ForbiddenCallbackAddressError';
  readonly code = 'ECALLBACKADDRESS';
}

/** dns.lookup's shape, as node:http calls it. */
export type LookupFn = (hostname: string, options: LookupOptions, callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) => void;

/**
 * A `lookup` for node:http(s) that resolves every address of the name, refuses
 * the connection when any of them is refused, and otherwise hands exactly the
 * checked addresses to the socket: nothing resolves between check and connect.
 */
export function guardedLookup(resolve: LookupFn = dnsLookup as unknown as LookupFn): LookupFn {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, found) => {
      if (err !== null) return callback(err, []);
      const addresses = Array.isArray(found) ? found : [{ address: found, family: isIP(found) }];
      const bad = addresses.map((a) => forbiddenAddress(a.address)).find((r) => r !== undefined);
      if (bad !== undefined || addresses.length === 0) return callback(new ForbiddenCallbackAddressError(`the callback host resolves to ${bad ?? 'no address'}`), []);
      if (options.all === true) return callback(null, addresses);
      const first = addresses[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}
