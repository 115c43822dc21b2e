/**
 * The bearer-token cache: one token per client, refreshed shortly before its
 * JWT `exp` (or after a configured lifetime when it has none), one refresh
 * shared by every concurrent caller, and dropped when the service rejects it.
 */
import { untilAborted } from './abort.js';

/**
 * Reads the `exp` claim (seconds since the epoch) of a JWT without verifying
 * it, or undefined when the token is not a JWT or has no numeric `exp`.
 *
 * @example
 * jwtExpiry('eyJhbGciOiJIUzI1NiJ9.eyJleHAiOjE3MDAwMDAwMDB9.sig') //=> 1700000000000
 */
export function jwtExpiry(token: string): number | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[1] === undefined || parts[1].length > 8192) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as unknown;
    if (claims === null || typeof claims !== 'object') return undefined;
    const exp = (claims as { exp?: unknown }).exp;
    return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** The longest bearer token accepted, in characters (the schemas' bound for JWTs). */
export const MAX_BEARER_TOKEN_LENGTH = 16384;

/**
 * RFC 6750 §2.1 `b64token`: what may follow `Bearer ` in an Authorization
 * header. A JWT (three base64url parts joined by dots) is one; CR, LF, NUL,
 * spaces and any other character are not.
 */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Why `value` cannot be used as a bearer token, or undefined when it can: a
 * non-empty string of at most {@link MAX_BEARER_TOKEN_LENGTH} characters of
 * RFC 6750's token syntax (letters, digits, `-._~+/`, trailing `=`). Checked
 * when the token endpoint answers, so that a token with CR, LF or NUL never
 * reaches a header (where fetch's error would quote it). Never quotes the value.
 *
 * @example
 * bearerTokenProblem('eyJhbGciOiJIUzI1NiJ9.e30.sig') //=> undefined
 * bearerTokenProblem('abc\r\nx-injected: 1') //=> 'it holds characters a bearer token cannot have (RFC 6750: letters, digits and -._~+/ only)'
 */
export function bearerTokenProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return 'there is no token in data';
  if (value.length > MAX_BEARER_TOKEN_LENGTH) return `it is longer than ${MAX_BEARER_TOKEN_LENGTH} characters`;
  if (!B64TOKEN.test(value)) return 'it holds characters a bearer token cannot have (RFC 6750: letters, digits and -._~+/ only)';
  return undefined;
}

export interface TokenCacheOptions {
  /** Fetches a new token (the token endpoint). */
  readonly fetchToken: () => Promise<string>;
  readonly now: () => number;
  /** Lifetime assumed for a token without `exp` (or with an `exp` already past by our clock). */
  readonly lifetimeMs: number;
  /** Refresh this long before expiry (at most half the lifetime). */
  readonly marginMs: number;
}

interface Cached {
  readonly value: string;
  readonly refreshAt: number;
}

/**
 * One client's bearer token.
 *
 * @example
 * const cache = new TokenCache({ fetchToken, now: Date.now, lifetimeMs: 300_000, marginMs: 60_000 })
 * const token = await cache.get()
 */
export class TokenCache {
  readonly #options: TokenCacheOptions;
  #cached: Cached | undefined;
  #pending: Promise<string> | undefined;
  #refreshes = 0;

  constructor(options: TokenCacheOptions) {
    this.#options = options;
  }

  /** Token endpoint calls made so far (for tests and diagnostics). */
  get refreshes(): number {
    return this.#refreshes;
  }

  /** The cached token when it is still fresh, else undefined (no network). */
  peek(): string | undefined {
    const c = this.#cached;
    return c !== undefined && this.#options.now() < c.refreshAt ? c.value : undefined;
  }

  /**
   * A fresh token: the cached one, or the result of the one refresh in
   * flight, or a new refresh. The caller's signal stops the caller's wait,
   * never the shared refresh.
   */
  get(signal?: AbortSignal): Promise<string> {
    const fresh = this.peek();
    if (fresh !== undefined) return Promise.resolve(fresh);
    if (this.#pending === undefined) {
      this.#refreshes++;
      const p = this.#options.fetchToken().then((value) => {
        const now = this.#options.now();
        const exp = jwtExpiry(value);
        const expiresAt = exp !== undefined && exp > now ? exp : now + this.#options.lifetimeMs;
        const margin = Math.min(this.#options.marginMs, (expiresAt - now) / 2);
        this.#cached = { value, refreshAt: expiresAt - margin };
        return value;
      });
      this.#pending = p;
      const clear = (): void => {
        if (this.#pending === p) this.#pending = undefined;
      };
      p.then(clear, clear);
    }
    const pending = this.#pending;
    return untilAborted(pending, signal, () => Promise.reject(signal?.reason));
  }

  /**
   * Drops `value` after the service rejected it. A token already replaced
   * (another caller refreshed first) is left alone, so concurrent 401s lead
   * to one refresh.
   */
  invalidate(value: string): void {
    if (this.#cached?.value === value) this.#cached = undefined;
  }

  /** Forgets the token (e.g. on close). */
  clear(): void {
    this.#cached = undefined;
  }
}
