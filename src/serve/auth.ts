/** The bearer token of the service's /v1 routes, compared in constant time. */
import { timingSafeEqual } from 'node:crypto';

/**
 * A check of `Authorization: Bearer T` against the configured token. The
 * bytes are compared with timingSafeEqual; a token of another length is
 * compared against the expected one itself (and then refused), so that the
 * time taken does not depend on where the first differing byte is.
 */
export function bearerCheck(token: string): (header: string | undefined) => boolean {
  const expected = Buffer.from(token, 'utf8');
  return (header) => {
    if (header === undefined) return false;
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    if (m === null) return false;
    const given = Buffer.from(m[1] ?? '', 'utf8');
    const sameLength = given.length === expected.length;
    return timingSafeEqual(sameLength ? given : expected, expected) && sameLength;
  };
}

/** True for a host that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}
