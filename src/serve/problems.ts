/**
 * Error answers of the service: `{ "issues": [...] }` in the library's issue
 * format (JSON Pointer `path`, stable `code`, a `message` without input
 * values). Issues about a query parameter carry `"in": "query"` and the
 * parameter's name as their path (`/schema`).
 */
import type { Issue } from '../errors.js';
import { didYouMean } from '../suggest.js';
import { isTransportError, isOutcomeUnknownError, InvalidResponseError, RateLimitedError, type TransportError } from '../client/errors.js';

/** An issue as the service answers it: the library's, and where it was found when not in the body. */
export interface ServeIssue extends Issue {
  readonly in?: 'query' | 'header' | 'path';
}

/** An error that the error handler turns into an answer with this status and these issues. */
export class HttpProblem extends Error {
  override name = 'HttpProblem';
  readonly statusCode: number;
  readonly issues: readonly ServeIssue[];
  readonly headers: Readonly<Record<string, string>>;
  /** More fields of the answer beside `issues`. */
  readonly extra: Readonly<Record<string, unknown>>;

  constructor(statusCode: number, issues: readonly ServeIssue[], headers: Readonly<Record<string, string>> = {}, extra: Readonly<Record<string, unknown>> = {}) {
    super(issues[0]?.message ?? `HTTP ${statusCode}`);
    this.statusCode = statusCode;
    this.issues = issues;
    this.headers = headers;
    this.extra = extra;
  }
}

/** One error issue. */
export function issue(path: string, code: string, message: string, where?: ServeIssue['in']): ServeIssue {
  return { path, code, message, severity: 'error', ...(where === undefined ? {} : { in: where }) };
}

/** A problem with one issue. */
export function problem(statusCode: number, code: string, message: string, options: { path?: string; in?: ServeIssue['in']; headers?: Record<string, string> } = {}): HttpProblem {
  return new HttpProblem(statusCode, [issue(options.path ?? '', code, message, options.in)], options.headers ?? {});
}

/** The shape of one ajv error that fastify attaches to a schema validation failure. */
interface AjvError {
  readonly instancePath: string;
  readonly keyword: string;
  readonly params: Record<string, unknown>;
  readonly message?: string;
}

/** The string the caller gave at a parameter's instancePath (`/schema`), for a suggestion; undefined otherwise. */
function givenAt(given: unknown, instancePath: string): string | undefined {
  if (given === null || typeof given !== 'object' || !/^\/[A-Za-z]+$/.test(instancePath)) return undefined;
  const value = (given as Record<string, unknown>)[instancePath.slice(1)];
  return typeof value === 'string' ? value : undefined;
}

/**
 * fastify's schema validation errors (of the querystring or path parameters)
 * as issues. `given` (the parsed querystring or path parameters) lets a value
 * outside an enum get the CLI's "did you mean …?" (`?schema=clinical_input`:
 * `did you mean clinical-input?`): the suggestion is a known name, never the
 * caller's text.
 */
export function validationIssues(errors: readonly AjvError[], context: string | undefined, given?: unknown): ServeIssue[] {
  const where: ServeIssue['in'] = context === 'params' ? 'path' : context === 'headers' ? 'header' : 'query';
  return errors.map((e) => {
    if (e.keyword === 'additionalProperties') {
      // An unknown parameter's name is not echoed: the service names the ones it knows instead.
      return issue('', 'unknown-parameter', `an unknown ${where} parameter was given; see GET /openapi.json for the parameters of this route`, where);
    }
    const name = e.keyword === 'required' ? `/${String(e.params.missingProperty ?? '')}` : e.instancePath;
    const values = Array.isArray(e.params.allowedValues) ? e.params.allowedValues.map(String) : undefined;
    const allowed = values === undefined ? undefined : values.length > 12 ? 'a schema name (GET /openapi.json lists them; so does abha-link schemas)' : `one of ${values.join(', ')}`;
    const value = values === undefined ? undefined : givenAt(given, e.instancePath);
    const suggestion = value === undefined || values === undefined ? '' : didYouMean(value, values);
    const message = `${name.slice(1)} ${allowed !== undefined ? `must be ${allowed}` : (e.message ?? 'is not valid')}${suggestion}`;
    return issue(name, e.keyword === 'required' ? 'required' : 'invalid-parameter', message, where);
  });
}

/** The status of the service's answer for a failed call upstream, and its issue (no health data: never the service's message). */
export function upstreamProblem(e: TransportError): HttpProblem {
  const upstream = e.status === undefined ? 'no answer' : `HTTP ${e.status}`;
  const base = `the ABHA service call failed (${e.name}, ${upstream}, request ${e.requestId})`;
  if (e instanceof RateLimitedError) return problem(429, e.reason, `${base}: rate limited; try again later`, { headers: { 'retry-after': '1' } });
  if (e instanceof InvalidResponseError)
    return new HttpProblem(502, [issue('', e.reason, `${base}: its answer is not the spec's shape`), ...e.issues.map((i) => ({ ...i, path: `/upstream${i.path}` }))]);
  if (isOutcomeUnknownError(e)) return problem(502, 'outcome-unknown', `${base}: no usable answer came (${e.reason}); the request may have been processed`);
  switch (e.reason) {
    case 'rejected':
    case 'envelope-failure': {
      // The service's own (redacted) message goes back to the caller who sent the request, never to a log.
      const message = e.serviceMessage;
      return new HttpProblem(422, [issue('', e.reason, `${base}: the service refused the request`)], {}, message === undefined ? {} : { serviceMessage: message });
    }
    case 'authentication':
      return problem(502, e.reason, `${base}: the service refused this server's API key`);
    case 'timeout':
      return problem(504, e.reason, `${base}: it did not answer in time`);
    default:
      return problem(502, e.reason, `${base}`);
  }
}

export { isTransportError };
