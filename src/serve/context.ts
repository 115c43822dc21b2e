/**
 * The options of the serve application and what its routes share: types of
 * their own, so that the route modules need not import app.ts, which
 * imports them.
 */
import type { FastifyRequest } from 'fastify';
import type { AbhaClient } from '../client/client.js';
import type { PdfPrinter } from '../render/pdf.js';
import type { Queue } from './queue-contract.js';
import type { CallbackAllow } from './queue/callback-policy.js';
import type { ServeTimeouts } from './request-guard.js';

/** Limits of the work of the document routes, done in worker threads (see work-pool.ts). */
export interface ServeWorkLimits {
  /** Worker threads at most (default: the cores Node may use). */
  readonly workers?: number;
  /** Requests that may wait for a worker; more are answered 503 with Retry-After (default 4 per worker). */
  readonly maxWaiting?: number;
  /** Milliseconds of work one request may take; past it the worker is stopped and the request answered 503 (default 20,000). */
  readonly timeLimitMs?: number;
  /** Issues in one answer at most; beyond it `truncated: true` and `issueCount` (default 1,000). */
  readonly maxIssues?: number;
}

/** Options of `createServeApp` (app.ts). */
export interface ServeAppOptions {
  /** The bearer token every /v1 request must carry; undefined: /v1 needs none (loopback only: the CLI checks). */
  readonly token?: string;
  /** The client of the upstream service (identity pass-through, readiness); undefined when none is configured. */
  readonly client?: AbhaClient;
  /** The submissions queue; undefined: the submissions routes answer 503. */
  readonly queue?: Queue;
  /** The clock (lint rules, FHIR timestamps). */
  readonly now: () => Date;
  /** Where JSON log lines go; none: no logs. */
  readonly logStream?: { write(line: string): unknown };
  /** The largest request body, in bytes (default 8 MiB). */
  readonly bodyLimit?: number;
  /** Requests handled at once; more are answered 503 with Retry-After (default 64). */
  readonly maxConcurrent?: number;
  /** Whether the upstream service answers (for /readyz); default: true when a client is configured. */
  readonly probeUpstream?: () => Promise<boolean>;
  /** Opens the PDF printer (a Chromium) on the first PDF request; rejects with a PdfUnavailableError when there is none. */
  readonly openPrinter?: () => Promise<PdfPrinter>;
  /** The hospital's ICD-10 title table (code → title): with it, /v1/fhir writes an icdCode as an ICD-10 coding. */
  readonly icd10Titles?: Readonly<Record<string, string>>;
  /** The address the server listens on: a Host header naming it is accepted (default 127.0.0.1). */
  readonly listenHost?: string;
  /** More Host names the server answers to (a reverse proxy's name); loopback names always are. */
  readonly allowedHosts?: readonly string[];
  /** Time limits of connections (see {@link ServeTimeouts}); default `DEFAULT_TIMEOUTS` (request-guard.ts). */
  readonly timeouts?: Partial<ServeTimeouts>;
  /** How long an unauthenticated /readyz may answer from the last check, in ms (default 5000; a request with the token checks again). */
  readonly readinessMaxAgeMs?: number;
  /** Limits of the document routes' work in worker threads (validate, build, render, FHIR). */
  readonly work?: ServeWorkLimits;
  /** Hosts a callbackUrl may name whatever their address (`--callback-allow`); see queue/callback-policy.ts. */
  readonly callbackAllow?: readonly CallbackAllow[];
}

/** What the routes share. */
export interface ServeContext {
  readonly options: ServeAppOptions;
  /** Whether a request carries the token (always true when the server has none). */
  readonly authorized: (request: FastifyRequest) => boolean;
}
