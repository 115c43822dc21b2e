/**
 * The local mock of the ABHA identity and care-context linking service: all
 * 12 endpoints of the spec on node:http, for development and tests without
 * the real service. Requests are checked with the same schemas the client
 * uses; answers use the spec's envelopes. Everything is synthetic.
 *
 * The parts: state.ts (what the mock remembers), endpoints.ts (one handler
 * per endpoint id, the shared OTP-verification step), control.ts (the
 * `/__mock/` endpoints), pipeline.ts (the way of a request, and the status
 * codes the mock answers with), http.ts (bodies, media types, time-outs,
 * the Authorization header). This file: the options and the server object.
 *
 * Against slow or hostile clients: headers must arrive within 10 s and the
 * whole request within 30 s (408 and the connection closed), bodies are cut
 * off at the limit, at most 100 fault rules, and events name the endpoint id,
 * never the raw path.
 */
import { randomUUID } from 'node:crypto';
import type { MockSeed } from './accounts.js';
import type { FaultController } from './faults.js';
import { listen } from './http.js';
import { requestListener } from './pipeline.js';
import { MockState, type StateConfig } from './state.js';
import type { LinkRecord, MockEvent, MockStats } from './types.js';

export type { LinkRecord, MockEvent, MockStats } from './types.js';

/**
 * Options of {@link startMockServer}. All optional.
 *
 * @example
 * await startMockServer({ port: 0, apiKey: 'test-key', otp: '123456', onEvent: (e) => e.type === 'otp' && otps.push(e.otp) })
 */
export interface MockServerOptions {
  /** Port to listen on; 0 (default) picks a free one. */
  readonly port?: number;
  /** Loopback host to listen on (default 127.0.0.1). Other hosts are refused: the mock has no security. */
  readonly host?: '127.0.0.1' | '::1' | 'localhost';
  /** The API key the token endpoint accepts (default: a random development key, see `server.apiKey`). */
  readonly apiKey?: string;
  /** The OTP of every flow (6 digits); default: a random OTP per request, reported through `onEvent`. */
  readonly otp?: string;
  /** Accounts to serve instead of the synthetic ones (see parseSeed). */
  readonly seed?: MockSeed;
  /** Lifetime of bearer tokens in seconds (default 1200). */
  readonly tokenTtlSeconds?: number;
  /** Lifetime of an OTP in seconds (default 600). */
  readonly otpTtlSeconds?: number;
  /** The clock in ms since the epoch (default Date.now); tests move it to expire OTPs and tokens. */
  readonly now?: () => number;
  /** Receives what the mock does: one event per request, and the OTPs it sends. The mock itself never logs. */
  readonly onEvent?: (event: MockEvent) => void;
  /** Largest request body in bytes (default 5 MB). */
  readonly maxBodyBytes?: number;
  /** How many link-request bodies are kept for inspection (default 1000, the most recent). */
  readonly keepBodies?: number;
  /**
   * How a link request with the same ABHA address, hipId, visitId and
   * referenceNumbers as one already linked is answered: `link-again`
   * (default: linked and counted again, as by a service without duplicate
   * detection) or `already-linked` (`200 {success:false, message, data:{code:
   * "ALREADY_LINKED", careContexts:[{referenceNumber, status:"ALREADY_LINKED"}]}}`,
   * not linked again), to rehearse resending requests whose outcome was unknown.
   */
  readonly linkRepeats?: 'link-again' | 'already-linked';
  /** Time a client has to send the request headers, in ms (default 10000); then 408 and the connection is closed. */
  readonly headersTimeoutMs?: number;
  /** Time a client has to send the whole request, in ms (default 30000, at least `headersTimeoutMs`); then 408 and the connection is closed. */
  readonly requestTimeoutMs?: number;
}

/** A running mock. Close it when done. */
export interface MockServer {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  readonly port: number;
  /** The API key the token endpoint accepts. */
  readonly apiKey: string;
  /** Fault injection rules. */
  readonly faults: FaultController;
  /** Makes every bearer token issued so far invalid (the next request with one gets 401). */
  expireTokens(): void;
  /** Counts. */
  stats(): MockStats;
  /** How often a link request with this key was received (authenticated, valid body) and processed. */
  linkCount(key: string): { received: number; linked: number };
  /** Counts of every key seen (authenticated requests with a valid body only). */
  linkCounts(): ReadonlyMap<string, { received: number; linked: number }>;
  /** The most recent link requests processed (see `keepBodies`). */
  linkRequests(): readonly LinkRecord[];
  /** Stops listening and closes every connection, hung ones included. */
  close(): Promise<void>;
}

/** The options a server runs with: defaults applied, ranges checked. */
interface ServerConfig extends StateConfig {
  readonly host: '127.0.0.1' | '::1' | 'localhost';
  readonly port: number;
  readonly maxBodyBytes: number;
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
}

/** @throws TypeError for options out of range */
function resolveOptions(options: MockServerOptions): ServerConfig {
  const host = options.host ?? '127.0.0.1';
  if (!['127.0.0.1', '::1', 'localhost'].includes(host)) throw new TypeError('the mock listens on loopback only (127.0.0.1, ::1, localhost)');
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new TypeError('port must be a whole number from 0 to 65535');
  if (options.otp !== undefined && !/^[0-9]{6}$/.test(options.otp)) throw new TypeError('otp must be exactly 6 digits');
  const apiKey = options.apiKey ?? `dev-${randomUUID()}`;
  if (apiKey === '') throw new TypeError('apiKey must not be empty');
  if (options.seed !== undefined && new Set(options.seed.accounts.map((a) => a.ABHANumber)).size !== options.seed.accounts.length) {
    throw new TypeError('seed: two accounts have the same ABHA number (parseSeed reports which)');
  }
  const linkRepeats = options.linkRepeats ?? 'link-again';
  if (linkRepeats !== 'link-again' && linkRepeats !== 'already-linked') throw new TypeError('linkRepeats must be link-again or already-linked');
  const headersTimeoutMs = options.headersTimeoutMs ?? 10_000;
  const requestTimeoutMs = options.requestTimeoutMs ?? Math.max(30_000, headersTimeoutMs);
  if (!Number.isInteger(headersTimeoutMs) || headersTimeoutMs < 1) throw new TypeError('headersTimeoutMs must be a whole number of milliseconds >= 1');
  if (!Number.isInteger(requestTimeoutMs) || requestTimeoutMs < headersTimeoutMs) throw new TypeError('requestTimeoutMs must be a whole number of milliseconds >= headersTimeoutMs');
  return {
    host,
    port,
    apiKey,
    now: options.now ?? Date.now,
    tokenTtlSeconds: options.tokenTtlSeconds ?? 1200,
    otpTtlMs: (options.otpTtlSeconds ?? 600) * 1000,
    otp: options.otp,
    seed: options.seed,
    maxBodyBytes: options.maxBodyBytes ?? 5 * 1024 * 1024,
    keepBodies: options.keepBodies ?? 1000,
    linkRepeats,
    headersTimeoutMs,
    requestTimeoutMs,
    emit: options.onEvent ?? ((): void => undefined),
  };
}

/**
 * Starts the mock service on a loopback port.
 *
 * @throws TypeError for options out of range; the listen error when the port is taken
 * @example
 * const mock = await startMockServer({ port: 0, apiKey: 'dev-key' })
 * const client = createClient({ baseUrl: mock.url, apiKey: mock.apiKey })
 * await client.linkCareContexts(request)
 * mock.stats().linked //=> 1
 * await mock.close()
 */
export async function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const config = resolveOptions(options);
  const state = new MockState(config);
  let url = '';
  const listener = requestListener(state, { maxBodyBytes: config.maxBodyBytes, emit: config.emit, url: () => url });
  const http = await listen(listener, config.host, config.port, config.headersTimeoutMs, config.requestTimeoutMs);
  url = http.url;
  return {
    url: http.url,
    port: http.port,
    apiKey: config.apiKey,
    faults: state.faults,
    expireTokens: () => state.expireTokens(),
    stats: () => state.stats(),
    linkCount: (key) => state.linkCount(key),
    linkCounts: () => state.linkCounts(),
    linkRequests: () => state.linkRequests(),
    close: () => http.close(),
  };
}
