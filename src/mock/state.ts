/**
 * What one mock server remembers: search transactions and their OTPs, the
 * accounts behind session tokens, bearer-token generations, link-request
 * counts and bodies, request counts. No HTTP here: the endpoint handlers
 * (endpoints.ts) and the control endpoints (control.ts) read and change it.
 */
import { createHash, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import type * as T from '../generated/types.js';
import { linkRequestKey } from '../link-key.js';
import { syntheticAccounts, type MockAccount, type MockSeed } from './accounts.js';
import { FaultController } from './faults.js';
import { MockJwt } from './jwt.js';
import type { LinkRecord, MockEvent, MockStats } from './types.js';

/** The settings the state needs, resolved from the server's options. */
export interface StateConfig {
  readonly apiKey: string;
  readonly now: () => number;
  readonly tokenTtlSeconds: number;
  readonly otpTtlMs: number;
  /** The OTP of every flow; undefined for a random one per request. */
  readonly otp: string | undefined;
  readonly seed: MockSeed | undefined;
  readonly keepBodies: number;
  readonly linkRepeats: 'link-again' | 'already-linked';
  readonly emit: (event: MockEvent) => void;
}

/** A search transaction: the accounts of a mobile, the one chosen, its pending OTP. */
export interface Txn {
  readonly mobile: string;
  readonly accounts: readonly MockAccount[];
  selected: number | undefined;
  otp: string | undefined;
  otpExpiresAt: number;
  readonly createdAt: number;
}

/** How many transactions and sessions are kept; the oldest are forgotten past it. */
const MAX_TXNS = 10_000;

const sha = (s: string): Buffer => createHash('sha256').update(s).digest();

/** Constant-time comparison of two secrets (an API key, an OTP). */
export const sameSecret = (given: string, expected: string): boolean => timingSafeEqual(sha(given), sha(expected));

function groupByMobile(accounts: readonly MockAccount[]): Map<string, MockAccount[]> {
  const m = new Map<string, MockAccount[]>();
  for (const a of accounts) {
    const list = m.get(a.mobile) ?? [];
    list.push(a);
    m.set(a.mobile, list);
  }
  return m;
}

/** Adds to an insertion-ordered map, forgetting the oldest entry past MAX_TXNS. */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  if (map.size >= MAX_TXNS) {
    const oldest = map.keys().next();
    if (oldest.done !== true) map.delete(oldest.value);
  }
  map.set(key, value);
}

/** The state of one mock server. */
export class MockState {
  readonly config: StateConfig;
  readonly jwt = new MockJwt();
  readonly faults = new FaultController();
  readonly #apiKeyHash: Buffer;
  readonly #seeded: Map<string, MockAccount[]> | undefined;
  readonly #txns = new Map<string, Txn>();
  /**
   * Each session token has its own id (jti), and the account is looked up by
   * it: two people never share a session, whatever their accounts have in
   * common. The oldest sessions are forgotten past MAX_TXNS.
   */
  readonly #sessions = new Map<string, MockAccount>();
  readonly #requests: Record<string, number> = {};
  readonly #counts = new Map<string, { received: number; linked: number }>();
  readonly #bodies: LinkRecord[] = [];
  #tokensIssued = 0;
  #linkReceived = 0;
  #linked = 0;
  #alreadyLinked = 0;
  /** Bearer tokens issued before the current generation are expired. */
  #generation = 0;

  constructor(config: StateConfig) {
    this.config = config;
    this.#apiKeyHash = sha(config.apiKey);
    this.#seeded = config.seed === undefined ? undefined : groupByMobile(config.seed.accounts);
  }

  /** The clock in whole seconds (JWT time). */
  seconds(): number {
    return Math.floor(this.config.now() / 1000);
  }

  // --- bearer tokens -------------------------------------------------------

  /** A new bearer token when `apiKey` is the server's, else undefined. */
  issueBearer(apiKey: string): string | undefined {
    if (!timingSafeEqual(sha(apiKey), this.#apiKeyHash)) return undefined;
    this.#tokensIssued++;
    const iat = this.seconds();
    return this.jwt.sign({ typ: 'bearer', iat, exp: iat + this.config.tokenTtlSeconds, jti: randomUUID(), gen: this.#generation });
  }

  /** Why a bearer token is refused (undefined when it is good). */
  bearerProblem(token: string): string | undefined {
    const v = this.jwt.verify(token);
    if (!v.ok) return v.why === 'signature' ? 'the bearer token was not issued by this service' : 'the bearer token is malformed';
    if (v.claims.typ !== 'bearer') return 'this is not a bearer token (a session token goes in the body field token)';
    if (v.claims.exp <= this.seconds() || (v.claims.gen ?? -1) < this.#generation) return 'the bearer token has expired; get a new one from /api/m1/abha/token';
    return undefined;
  }

  /** Makes every bearer token issued so far invalid. */
  expireTokens(): void {
    this.#generation++;
  }

  // --- search transactions and OTPs ----------------------------------------

  /** The accounts of a mobile: the seed's, or the synthetic ones. */
  accountsOf(mobile: string): readonly MockAccount[] {
    return this.#seeded === undefined ? syntheticAccounts(mobile) : (this.#seeded.get(mobile) ?? []);
  }

  /** Starts a transaction for the accounts of a search; returns its txnId. */
  newTxn(mobile: string, accounts: readonly MockAccount[]): string {
    const id = randomUUID();
    remember(this.#txns, id, { mobile, accounts, selected: undefined, otp: undefined, otpExpiresAt: 0, createdAt: this.config.now() });
    return id;
  }

  txn(txnId: string): Txn | undefined {
    return this.#txns.get(txnId);
  }

  /** Chooses an account of the transaction and "sends" it a new OTP, reported through onEvent. */
  sendOtp(txnId: string, txn: Txn, index: number): void {
    txn.selected = index;
    txn.otp = this.config.otp ?? String(randomInt(0, 1_000_000)).padStart(6, '0');
    txn.otpExpiresAt = this.config.now() + this.config.otpTtlMs;
    this.config.emit({ type: 'otp', txnId, otp: txn.otp, mobileLast4: txn.mobile.slice(-4) });
  }

  // --- session tokens ------------------------------------------------------

  /** A session token for the account, valid `ttl` seconds; the account is kept under the token's id. */
  sessionToken(account: MockAccount, ttl: number): string {
    const jti = randomUUID();
    remember(this.#sessions, jti, account);
    return this.jwt.sign({ typ: 'session', iat: this.seconds(), exp: this.seconds() + ttl, jti, sub: account.ABHANumber });
  }

  /** A refresh token valid `ttl` seconds (never accepted anywhere: the spec has no refresh endpoint). */
  refreshToken(ttl: number): string {
    return this.jwt.sign({ typ: 'session', iat: this.seconds(), exp: this.seconds() + ttl, jti: randomUUID() });
  }

  /** The account of a valid, unexpired session token. */
  sessionAccount(token: string): MockAccount | undefined {
    const v = this.jwt.verify(token);
    if (!v.ok || v.claims.typ !== 'session' || v.claims.exp <= this.seconds()) return undefined;
    return this.#sessions.get(v.claims.jti);
  }

  // --- link requests -------------------------------------------------------

  /** Counts an authenticated, valid link request as received (before faults). */
  received(request: T.LinkCareContextRequest): void {
    const c = this.#count(linkRequestKey(request));
    this.#linkReceived++;
    c.received++;
  }

  /** Links the request, or refuses it as already linked (with `linkRepeats: 'already-linked'`). */
  link(request: T.LinkCareContextRequest): 'linked' | 'already-linked' {
    const key = linkRequestKey(request);
    const c = this.#count(key);
    if (this.config.linkRepeats === 'already-linked' && c.linked > 0) {
      this.#alreadyLinked++;
      return 'already-linked';
    }
    c.linked++;
    this.#linked++;
    const keep = this.config.keepBodies;
    if (keep > 0) {
      this.#bodies.push({ key, body: request, receivedAt: this.config.now() });
      if (this.#bodies.length > keep) this.#bodies.splice(0, this.#bodies.length - keep);
    }
    return 'linked';
  }

  #count(key: string): { received: number; linked: number } {
    let c = this.#counts.get(key);
    if (c === undefined) this.#counts.set(key, (c = { received: 0, linked: 0 }));
    return c;
  }

  // --- what the mock saw ---------------------------------------------------

  countRequest(endpoint: string): void {
    this.#requests[endpoint] = (this.#requests[endpoint] ?? 0) + 1;
  }

  stats(): MockStats {
    return { requests: { ...this.#requests }, tokensIssued: this.#tokensIssued, linkReceived: this.#linkReceived, linked: this.#linked, alreadyLinked: this.#alreadyLinked };
  }

  linkCount(key: string): { received: number; linked: number } {
    return { ...(this.#counts.get(key) ?? { received: 0, linked: 0 }) };
  }

  linkCounts(): ReadonlyMap<string, { received: number; linked: number }> {
    return new Map([...this.#counts].map(([k, v]) => [k, { ...v }]));
  }

  linkRequests(): readonly LinkRecord[] {
    return [...this.#bodies];
  }
}
