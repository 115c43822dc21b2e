/**
 * Errors of the core layer. Transport errors live in the client entry point;
 * this module only has the error for data that does not fit.
 */
import { plural } from './util.js';

/**
 * How serious an issue is: an error makes the payload unusable, a warning does not; `information` (the FHIR
 * validator's `unevaluated`: a rule it could not decide) does not either.
 */
export type Severity = 'error' | 'warning' | 'information';

/**
 * One problem with a document. Issues are data: they carry where (a JSON
 * Pointer into the caller's input), what (a stable code) and what to do (a
 * message). They never carry values from the document, which may be health
 * data.
 */
export interface Issue {
  /**
   * JSON Pointer (RFC 6901) into the input, e.g. `/careContexts/0/visitDate`; `""` is the whole document.
   * An unknown key (code `unknown-field`) is named by its position among its object's keys in
   * `Object.keys` order, `#N` (0-based): `/careContexts/0/#3` is the 4th key of that care context.
   */
  readonly path: string;
  /** Stable machine-readable code, e.g. `required`, `invalid-date`, `duplicate-reference-number`. */
  readonly code: string;
  /** A sentence a person can act on. Never contains input values. */
  readonly message: string;
  readonly severity: Severity;
}

/**
 * The code of the last issue of a document that had more issues than are
 * listed (100 by default): its message says how many more there are.
 */
export const TOO_MANY_ISSUES = 'too-many-issues';

/** The base class of every error abha-link throws on purpose. */
export class AbhaLinkError extends Error {
  override name = 'AbhaLinkError';
}

/**
 * Thrown by the asserting validators and by the builders when the input
 * cannot produce a valid payload. `issues` lists every problem found.
 *
 * @example
 * try { buildLinkRequest(input) } catch (e) {
 *   if (isValidationError(e)) for (const i of e.issues) console.log(i.path, i.message)
 * }
 */
export class ValidationError extends AbhaLinkError {
  override name = 'ValidationError';
  readonly issues: readonly Issue[];

  constructor(issues: readonly Issue[], what = 'input') {
    super(issues.length === 0 ? `invalid ${what}` : `invalid ${what}: ${summarizeIssues(issues)}`);
    this.issues = issues;
  }
}

/**
 * The one-line summary of issues for an error message, never the whole list:
 * the first error (else the first issue) and how many others there are (a
 * too-many-issues entry means more than were listed). `count` leads with the
 * number of issues instead. Internal: every layer summarises issues with it.
 *
 * @example
 * summarizeIssues(issues) //=> '/visitDate must be a date (and 2 more issues)'
 * summarizeIssues(issues, 'count') //=> '3 issues, first: /visitDate must be a date'
 */
export function summarizeIssues(issues: readonly Issue[], form: 'first' | 'count' = 'first'): string {
  const listed = issues.filter((i) => i.code !== TOO_MANY_ISSUES);
  const first = listed.find((i) => i.severity === 'error') ?? listed[0] ?? issues[0];
  if (first === undefined) return plural(0, 'issue');
  const at = `${first.path || '/'} ${first.message}`;
  if (form === 'count') return `${plural(issues.length, 'issue')}, first: ${at}`;
  const others = listed.length - 1;
  // A too-many-issues summary means there are more than the listed ones.
  const more = listed.length < issues.length ? ` (and more than ${plural(others, 'other issue')})` : others > 0 ? ` (and ${plural(others, 'more issue')})` : '';
  return `${at}${more}`;
}

/** True when `e` is a {@link ValidationError} (also across copies of the library). */
export function isValidationError(e: unknown): e is ValidationError {
  return e instanceof ValidationError || (e instanceof Error && e.name === 'ValidationError' && Array.isArray((e as { issues?: unknown }).issues));
}

/** Escapes one JSON Pointer reference token (RFC 6901 §3). */
export function escapePointerToken(token: string | number): string {
  return String(token).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Splits a JSON Pointer into its unescaped reference tokens (`""` gives none). */
export function parsePointer(ptr: string): string[] {
  return ptr === ''
    ? []
    : ptr
        .split('/')
        .slice(1)
        .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Joins reference tokens into a JSON Pointer. */
export function pointer(...tokens: ReadonlyArray<string | number>): string {
  return tokens.map((t) => `/${escapePointerToken(t)}`).join('');
}
