/**
 * HS256 JWTs for the mock: bearer tokens and ABHA session tokens, signed with
 * a secret made when the server starts. Not for production use.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The claims the mock puts in its tokens. */
export interface MockClaims {
  /** `bearer` or `session`: a token of one kind is refused where the other is expected. */
  readonly typ: 'bearer' | 'session';
  /** Seconds since the epoch. */
  readonly iat: number;
  readonly exp: number;
  /** The token's own id; the mock keeps a session's account under it. */
  readonly jti: string;
  /** Bearer tokens: the revocation generation they were issued in. */
  readonly gen?: number;
  /** Session tokens: the account's ABHA number. */
  readonly sub?: string;
}

const b64 = (s: string | Buffer): string => Buffer.from(s).toString('base64url');
const HEADER = b64(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));

/**
 * Signs and verifies the mock's tokens.
 *
 * @example
 * const jwt = new MockJwt()
 * jwt.verify(jwt.sign({ typ: 'bearer', iat: 0, exp: 60, jti: 'a' })) //=> { ok: true, claims: { ... } }
 */
export class MockJwt {
  readonly #secret: Buffer;

  constructor(secret: Buffer = randomBytes(32)) {
    this.#secret = secret;
  }

  #mac(data: string): Buffer {
    return createHmac('sha256', this.#secret).update(data).digest();
  }

  /** A signed JWT carrying `claims`. */
  sign(claims: MockClaims): string {
    const body = `${HEADER}.${b64(JSON.stringify(claims))}`;
    return `${body}.${this.#mac(body).toString('base64url')}`;
  }

  /** The claims of a token this instance signed, or why it is refused. */
  verify(token: string): { ok: true; claims: MockClaims } | { ok: false; why: 'malformed' | 'signature' } {
    const parts = token.split('.');
    if (parts.length !== 3 || parts[0] !== HEADER || parts[1] === undefined || parts[2] === undefined) return { ok: false, why: 'malformed' };
    const expected = this.#mac(`${parts[0]}.${parts[1]}`);
    const given = Buffer.from(parts[2], 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, why: 'signature' };
    try {
      const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as MockClaims;
      if (typeof claims !== 'object' || claims === null || typeof claims.exp !== 'number') return { ok: false, why: 'malformed' };
      return { ok: true, claims };
    } catch {
      return { ok: false, why: 'malformed' };
    }
  }
}
