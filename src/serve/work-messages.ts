/**
 * What goes to the document work (validate, build, render, FHIR, FHIR
 * validation) and what comes back, with the caps every answer applies: the
 * vocabulary of work-documents.ts, work-tasks.ts and the routes, in a module
 * that loads none of the document code (the server listens before it loads).
 *
 * A message carries the request body's raw bytes, so that parsing a large
 * body happens off the event loop too; an answer is plain data (a problem
 * for the caller is `{ problem }`, never a thrown error, which would not
 * cross the thread boundary whole).
 *
 * Every list of issues in an answer is capped (`maxIssues`, default 1,000):
 * beyond it the answer carries `truncated: true` and `issueCount`, the number
 * found, so that a body with 400,000 faults does not become a 90 MB answer.
 */
import type { Issue } from '../errors.js';
import type { Language } from '../render/messages/index.js';
import type { PageSize } from '../render/page-sizes.js';
import type { RenderedDocument } from '../render/render.js';
import { HttpProblem, type ServeIssue } from './problems.js';

/** The most issues an answer carries unless the server is told otherwise. */
export const DEFAULT_MAX_ISSUES = 1000;

/** What every task gets: the body's bytes, the clock, the cap on issues. */
export interface TaskBase {
  readonly body: Uint8Array;
  /** The server's clock at the request, in ms since the epoch. */
  readonly now: number;
  readonly maxIssues: number;
}

/** One task for a worker. */
export type WorkMessage =
  | (TaskBase & { readonly kind: 'validate'; readonly schema: string; readonly lint: boolean })
  | (TaskBase & { readonly kind: 'build'; readonly lint: boolean })
  | (TaskBase & { readonly kind: 'render'; readonly template: string; readonly lang: Language; readonly size: PageSize; readonly index?: number | undefined })
  | (TaskBase & { readonly kind: 'fhir'; readonly hiType?: string | undefined; readonly index?: number | undefined })
  | (TaskBase & { readonly kind: 'fhir-validate'; readonly outcome?: boolean | undefined });

/** The answer of a route: its status, JSON body (or text), and headers. */
export interface WorkAnswer {
  readonly status: number;
  readonly json?: unknown;
  /** A body sent as it is (the FHIR bundle, already serialised in the worker). */
  readonly text?: string;
  readonly document?: RenderedDocument;
  readonly warnings?: number;
}

/** A worker's reply: an answer, a problem for the caller, or the name of an unexpected error (a bug). */
export type WorkReply = { readonly answer: WorkAnswer } | { readonly problem: { status: number; issues: readonly ServeIssue[]; extra: Record<string, unknown> } } | { readonly internal: string };

/** The fields an answer carries when its issues were cut at `max`. */
export function truncation(found: number, max: number): { truncated?: true; issueCount?: number } {
  return found > max ? { truncated: true, issueCount: found } : {};
}

/** Errors and warnings, together at most `max`, errors first; `found`: how many there were before any cap. */
export function capIssues(
  errors: readonly Issue[],
  warnings: readonly Issue[],
  max: number,
  found = errors.length + warnings.length,
): { errors: Issue[]; warnings: Issue[]; truncated?: true; issueCount?: number } {
  const keptErrors = errors.slice(0, max);
  return { errors: keptErrors, warnings: warnings.slice(0, max - keptErrors.length), ...truncation(found, max) };
}

/** The reply of one task's answer function; never throws (a problem for the caller is `{ problem }`, anything else `{ internal }`). */
export function replyOf<M>(answer: (m: M) => WorkAnswer, m: M): WorkReply {
  try {
    return { answer: answer(m) };
  } catch (e) {
    if (e instanceof HttpProblem) return { problem: { status: e.statusCode, issues: e.issues, extra: { ...e.extra } } };
    return { internal: e instanceof Error ? e.name : 'Error' };
  }
}
