/**
 * Fault injection for the mock: rules that make the next matching requests
 * slow, refused, dropped or hung, so that clients can be tested against the
 * failures a real network and a real service produce.
 */
import { ENDPOINT_IDS, isEndpointId } from '../spec/endpoints.js';

/** What a fault does to one request. */
export type Fault =
  /** Wait `ms` before handling the request normally. */
  | { readonly type: 'latency'; readonly ms: number }
  /** Answer `status` with the failure envelope (not processed); `retryAfter` sets Retry-After (seconds or an HTTP date). */
  | { readonly type: 'status'; readonly status: number; readonly retryAfter?: string | number; readonly message?: string }
  /** HTTP 200 with `success: false` (or `status: false` on the token endpoint); not processed. */
  | { readonly type: 'envelope-failure'; readonly message?: string }
  /** Close the connection without an answer: `before` processing (nothing happened) or `after` (the request took effect). */
  | { readonly type: 'drop'; readonly when?: 'before' | 'after' }
  /** Never answer (until the server closes); not processed. */
  | { readonly type: 'hang' }
  /** Process the request, then answer 200 with a body that is not JSON. */
  | { readonly type: 'garbage' }
  /** Treat the bearer token as expired: 401. */
  | { readonly type: 'expire-token' };

/** The endpoints a rule can target: an endpoint id of the spec definition (`link-carecontext`, `token`, ...) or `any`. */
export type FaultTarget = string;

/**
 * A fault and which requests it applies to.
 *
 * @example
 * const rule: FaultRule = { endpoint: 'link-carecontext', skip: 4, times: Infinity, fault: { type: 'hang' } }
 */
export interface FaultRule {
  /** Endpoint id (`link-carecontext`, `token`, `search-abha`, ...) or `any` (default). */
  readonly endpoint?: FaultTarget;
  /** Let this many matching requests through first (default 0). */
  readonly skip?: number;
  /** Apply to this many matching requests (default 1; `Infinity` for all). */
  readonly times?: number;
  readonly fault: Fault;
}

interface LiveRule {
  readonly endpoint: string;
  skip: number;
  times: number;
  readonly fault: Fault;
}

/** The most rules a controller holds: each request walks them all, and an HTTP client could add them without end. */
export const MAX_FAULT_RULES = 100;

const FAULT_TYPES = new Set(['latency', 'status', 'envelope-failure', 'drop', 'hang', 'garbage', 'expire-token']);
/** The longest injected message: the spec's bound of `message`. */
const MAX_MESSAGE = 4096;
/** Retry-After: delay-seconds, or an HTTP date (printable ASCII, no line breaks). */
const RETRY_AFTER_TEXT = /^[\x20-\x7e]{1,64}$/;

const count = (v: unknown): boolean => typeof v === 'number' && v >= 0 && (Number.isInteger(v) || v === Infinity);

/**
 * Checks a fault rule that came as JSON (the control endpoint). Returns a
 * message naming the field on failure; `times: null` means always.
 *
 * @example
 * checkFaultRule({ fault: { type: 'hang' }, times: null }) //=> { ok: true, rule: { fault: { type: 'hang' }, times: Infinity } }
 * checkFaultRule({ fault: { type: 'explode' } }).ok //=> false
 */
export function checkFaultRule(value: unknown): { ok: true; rule: FaultRule } | { ok: false; message: string } {
  if (value === null || typeof value !== 'object') return { ok: false, message: 'a fault rule must be an object { endpoint?, skip?, times?, fault }' };
  const r = value as Record<string, unknown>;
  if (r.endpoint !== undefined && (typeof r.endpoint !== 'string' || (r.endpoint !== 'any' && !isEndpointId(r.endpoint)))) {
    return { ok: false, message: `/endpoint must be any or an endpoint id (${ENDPOINT_IDS.join(', ')})` };
  }
  if (r.skip !== undefined && !(count(r.skip) && r.skip !== Infinity)) return { ok: false, message: '/skip must be a whole number >= 0' };
  if (r.times !== undefined && r.times !== null && !count(r.times)) return { ok: false, message: '/times must be a whole number >= 0, or null for always' };
  const f = r.fault as Record<string, unknown> | undefined;
  if (f === null || typeof f !== 'object' || typeof f.type !== 'string' || !FAULT_TYPES.has(f.type)) {
    return { ok: false, message: `/fault/type must be one of ${[...FAULT_TYPES].join(', ')}` };
  }
  if (f.type === 'latency' && (typeof f.ms !== 'number' || !(f.ms >= 0 && f.ms <= 600_000))) return { ok: false, message: '/fault/ms must be a number of milliseconds from 0 to 600000' };
  if (f.type === 'status' && (typeof f.status !== 'number' || !Number.isInteger(f.status) || f.status < 400 || f.status > 599)) {
    return { ok: false, message: '/fault/status must be an HTTP status from 400 to 599' };
  }
  if (f.type === 'status' && f.retryAfter !== undefined) {
    const ra = f.retryAfter;
    const fine = (typeof ra === 'number' && Number.isInteger(ra) && ra >= 0 && ra <= 1e9) || (typeof ra === 'string' && RETRY_AFTER_TEXT.test(ra));
    if (!fine) return { ok: false, message: '/fault/retryAfter must be whole seconds >= 0 or an HTTP date (one line of printable text)' };
  }
  if ((f.type === 'status' || f.type === 'envelope-failure') && f.message !== undefined && (typeof f.message !== 'string' || f.message.length > MAX_MESSAGE)) {
    return { ok: false, message: `/fault/message must be a string of at most ${MAX_MESSAGE} characters` };
  }
  if (f.type === 'drop' && f.when !== undefined && f.when !== 'before' && f.when !== 'after') return { ok: false, message: '/fault/when must be before or after' };
  const times = r.times === null ? Infinity : r.times;
  return { ok: true, rule: { ...(r as unknown as FaultRule), ...(times === undefined ? {} : { times: times as number }) } };
}

/**
 * The fault rules of one mock server.
 *
 * @example
 * mock.faults.add({ endpoint: 'link-carecontext', fault: { type: 'status', status: 429, retryAfter: 1 } })
 * mock.faults.add({ endpoint: 'link-carecontext', skip: 4, times: Infinity, fault: { type: 'hang' } })
 * mock.faults.clear()
 */
export class FaultController {
  #rules: LiveRule[] = [];

  /**
   * Adds a rule; rules are tried in the order they were added, the first that applies wins.
   * At most {@link MAX_FAULT_RULES} (100) rules can be active.
   *
   * @throws TypeError when the rule is not valid (see checkFaultRule)
   * @throws RangeError when 100 rules are already active
   */
  add(rule: FaultRule): void {
    const checked = checkFaultRule(rule);
    if (!checked.ok) throw new TypeError(`fault rule: ${checked.message}`);
    const problem = this.roomFor(1);
    if (problem !== undefined) throw new RangeError(`${problem}; clear() removes them`);
    this.#rules.push({ endpoint: rule.endpoint ?? 'any', skip: rule.skip ?? 0, times: rule.times ?? 1, fault: rule.fault });
  }

  /**
   * Why `count` more rules cannot be added (undefined when they can).
   *
   * @example
   * mock.faults.roomFor(101) //=> 'at most 100 fault rules can be active (this would make 101)'
   */
  roomFor(count: number): string | undefined {
    this.#rules = this.#rules.filter((r) => r.times > 0);
    const total = this.#rules.length + count;
    return total > MAX_FAULT_RULES ? `at most ${MAX_FAULT_RULES} fault rules can be active (this would make ${total})` : undefined;
  }

  /** Removes every rule. */
  clear(): void {
    this.#rules = [];
  }

  /** Rules still active. */
  get size(): number {
    return this.#rules.filter((r) => r.times > 0).length;
  }

  /** The fault for one request to `endpoint`, consuming it; undefined for none. */
  take(endpoint: string): Fault | undefined {
    let found: Fault | undefined;
    for (const r of this.#rules) {
      if (r.times <= 0 || (r.endpoint !== 'any' && r.endpoint !== endpoint)) continue;
      if (r.skip > 0) {
        r.skip--;
        continue;
      }
      if (found === undefined) {
        r.times--;
        found = r.fault;
      }
    }
    this.#rules = this.#rules.filter((r) => r.times > 0);
    return found;
  }
}
