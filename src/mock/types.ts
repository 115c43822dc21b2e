/**
 * What the mock reports and keeps: its events, the link requests it received,
 * its counts (types of their own, so that state.ts and pipeline.ts need not
 * import the server that imports them).
 */
import type * as T from '../generated/types.js';
import type { Fault } from './faults.js';

/** What the mock reports. Request events hold no body, header, token or path. */
export type MockEvent =
  | {
      readonly type: 'request';
      readonly method: string;
      /**
       * The endpoint id of the spec definition (`token`, `link-carecontext`, ...),
       * `openapi`, `mock-control` (`/__mock/...`) or `unknown`: never the raw
       * path, which may carry anything.
       */
      readonly endpoint: string;
      /** The HTTP status sent, or `dropped` / `hung` for faults without an answer. */
      readonly status: number | 'dropped' | 'hung';
      readonly ms: number;
      readonly fault?: Fault['type'];
      /** The client's request id, when it sent an `x-request-id` header. */
      readonly requestId?: string;
    }
  /** An OTP "sent" to the account's mobile: the mock reports it so a developer can type it. */
  | { readonly type: 'otp'; readonly txnId: string; readonly otp: string; readonly mobileLast4: string };

/** A link request the mock received and processed. */
export interface LinkRecord {
  readonly key: string;
  readonly body: T.LinkCareContextRequest;
  readonly receivedAt: number;
}

/** Counts of what the mock saw. */
export interface MockStats {
  /** Requests per endpoint id (all of them, faults included). */
  readonly requests: Readonly<Record<string, number>>;
  /** Bearer tokens issued. */
  readonly tokensIssued: number;
  /** Link requests received with a valid body (including those a fault dropped or hung). */
  readonly linkReceived: number;
  /** Link requests processed (recorded as linked). */
  readonly linked: number;
  /** Link requests answered "already linked" (with `linkRepeats: 'already-linked'`). */
  readonly alreadyLinked: number;
}
