/** The bearer token of the service's /v1 routes, compared in constant time. */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/**
 * A check of `Authorization: Bearer T` against the configured token. Both
 * sides are hashed first, so that the comparison takes the same time
 * whatever the length of what was sent.
 */
export function bearerCheck(token: string): (header: string | undefined) => boolean {
  const expected = digest(token);
  return (header) => {
    if (header === undefined) return false;
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    return m !== null && timingSafeEqual(digest(m[1] ?? ''), expected);
  };
}

/** True for a host that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}
