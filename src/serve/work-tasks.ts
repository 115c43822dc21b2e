/**
 * The work of the document routes (validate, build, render, FHIR, FHIR
 * validation), as pure functions of a message: what the worker threads run
 * (work-worker.ts). A message carries the request body's raw bytes, so that
 * parsing a large body happens off the event loop too; an answer is plain
 * data (a problem for the caller is `{ problem }`, never a thrown error, which
 * would not cross the thread boundary whole).
 *
 * Every list of issues in an answer is capped (`maxIssues`, default 1,000):
 * beyond it the answer carries `truncated: true` and `issueCount`, the number
 * found, so that a body with 400,000 faults does not become a 90 MB answer.
 */
import type { Issue } from '../errors.js';
import type { ClinicalInput, LinkCareContextRequest } from '../generated/types.js';
import { safeBuildLinkRequest } from '../builders/link-request.js';
import { detectInputKind } from '../input-kind.js';
import { lintLinkRequest } from '../validation/lint.js';
import { validate } from '../validation/validate.js';
import { toFhirBundles } from '../fhir/to-fhir.js';
import type { Language } from '../render/labels.js';
import type { PageSize } from '../render/model.js';
import { safeRenderDocuments, type RenderedDocument } from '../render/render.js';
import { toOperationOutcome } from '../fhir/outcome.js';
import { checkFhirBundle } from './fhir-validator.js';
import { parseJsonBody, requireBody } from './json-body.js';
import { HttpProblem, issue, problem, type ServeIssue } from './problems.js';

/** What every worker is given once, at its start (`workerData`): the server's settings for the tasks. */
export interface WorkSettings {
  /** The hospital's ICD-10 title table (--icd10-titles), for the codings of /v1/fhir. */
  readonly icd10Titles?: Readonly<Record<string, string>> | undefined;
}

let settings: WorkSettings = {};

/** Sets the settings of this thread's tasks (the worker script calls it with its `workerData`). */
export function configureWork(given: WorkSettings | undefined): void {
  settings = given ?? {};
}

/** The most issues an answer carries unless the server is told otherwise. */
export const DEFAULT_MAX_ISSUES = 1000;

const LINK_SCHEMA = 'link-carecontext-request';

/** What every task gets: the body's bytes, the clock, the cap on issues. */
interface TaskBase {
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

/** How many findings are warnings: the `x-abha-link-warnings` header counts no `information` (an inferred hiType, say). */
function warningCount(findings: readonly Issue[]): number {
  return findings.filter((f) => f.severity === 'warning').length;
}

/** A 422 answer `{ issues }`, capped. */
function unprocessable(issues: readonly Issue[], max: number): WorkAnswer {
  return { status: 422, json: { issues: issues.slice(0, max), ...truncation(issues.length, max) } };
}

/** POST /v1/validate: the CLI's validate for one document (its issues not capped: callers cap). */
export function validateDocument(value: unknown, schema: string, lint: boolean, now: Date): { valid: boolean; errors: Issue[]; warnings: Issue[]; hint?: string } {
  const r = validate(schema as typeof LINK_SCHEMA, value);
  if (!r.success) {
    const clinical = schema !== 'clinical-input' && detectInputKind(value) === 'clinical-input';
    return { valid: false, errors: [...r.issues], warnings: [], ...(clinical ? { hint: 'this is a clinical input: POST it to /v1/build, or validate it with ?schema=clinical-input' } : {}) };
  }
  if (!lint || schema !== LINK_SCHEMA) return { valid: true, errors: [], warnings: [] };
  const findings = lintLinkRequest(r.value as LinkCareContextRequest, { now });
  const errors = findings.filter((i) => i.severity === 'error');
  return { valid: errors.length === 0, errors, warnings: findings.filter((i) => i.severity === 'warning') };
}

/** The one document of several the caller chose with ?index=, or a 422 naming how many there are. */
function pick<T>(items: readonly T[], index: number | undefined, what: string): T {
  if (index === undefined && items.length > 1) {
    throw problem(422, 'several-documents', `the input has ${items.length} care contexts, so ${items.length} ${what}: choose one with ?index=0 to ${items.length - 1}`, { path: '/careContexts' });
  }
  const i = index ?? 0;
  const item = items[i];
  if (item === undefined) throw problem(422, 'no-such-document', `index must be below ${items.length}, the number of care contexts`, { path: '/index', in: 'query' });
  return item;
}

/** The request body: JSON, or the 400 of a body that is not. */
function bodyOf(m: TaskBase): unknown {
  return requireBody(parseJsonBody(m.body));
}

function validateAnswer(m: Extract<WorkMessage, { kind: 'validate' }>): WorkAnswer {
  const r = validateDocument(bodyOf(m), m.schema, m.lint, new Date(m.now));
  return { status: 200, json: { valid: r.valid, ...capIssues(r.errors, r.warnings, m.maxIssues), ...(r.hint === undefined ? {} : { hint: r.hint }) } };
}

function buildAnswer(m: Extract<WorkMessage, { kind: 'build' }>): WorkAnswer {
  const r = safeBuildLinkRequest(bodyOf(m) as ClinicalInput, { lint: m.lint ? { now: new Date(m.now) } : false });
  if (!r.success) return unprocessable(r.issues, m.maxIssues);
  return { status: 200, json: r.value, warnings: warningCount(r.warnings) };
}

function renderAnswer(m: Extract<WorkMessage, { kind: 'render' }>): WorkAnswer {
  const r = safeRenderDocuments(bodyOf(m), { template: m.template, lang: m.lang, pageSize: m.size, lint: { now: new Date(m.now) } });
  if (!r.success) return unprocessable(r.issues, m.maxIssues);
  return { status: 200, document: pick(r.documents, m.index, 'documents'), warnings: warningCount(r.warnings) };
}

function fhirAnswer(m: Extract<WorkMessage, { kind: 'fhir' }>): WorkAnswer {
  const at = new Date(m.now);
  const { icd10Titles } = settings;
  const r = toFhirBundles(bodyOf(m) as ClinicalInput, {
    timestamp: at,
    lint: { now: at },
    ...(m.hiType === undefined ? {} : { hiType: m.hiType }),
    ...(icd10Titles === undefined ? {} : { icd10Titles }),
  });
  if (!r.success) return unprocessable(r.issues, m.maxIssues);
  const doc = pick(r.bundles, m.index, 'bundles');
  if (!checkFhirBundle(doc.bundle, 1).success) {
    // Built from valid input: a bundle that fails the profile is abha-link's bug, not the caller's data.
    throw new HttpProblem(500, [issue('', 'internal', 'the FHIR bundle made from this input failed FHIR validation; this is a bug in abha-link: please report it')]);
  }
  return { status: 200, text: JSON.stringify(doc.bundle), warnings: warningCount(r.warnings) };
}

function fhirValidateAnswer(m: Extract<WorkMessage, { kind: 'fhir-validate' }>): WorkAnswer {
  const r = checkFhirBundle(bodyOf(m), m.maxIssues);
  if (m.outcome === true) {
    const stopped: Issue[] = r.truncated
      ? [{ path: '', code: 'truncated', message: `validation stopped at ${m.maxIssues} issues, this server's cap; there may be more`, severity: 'information' }]
      : [];
    return { status: 200, text: JSON.stringify(toOperationOutcome([...r.issues, ...stopped])) };
  }
  const of = (severity: Issue['severity']): Issue[] => r.issues.filter((i) => i.severity === severity);
  // The validator stops at the cap, so how many more there were is not known: truncated, without a count.
  const capped = capIssues(of('error'), of('warning'), m.maxIssues);
  return { status: 200, json: { valid: r.success, errors: capped.errors, warnings: capped.warnings, ...(r.truncated ? { truncated: true } : {}) } };
}

/** Runs one task; never throws. */
export function runWork(m: WorkMessage): WorkReply {
  try {
    switch (m.kind) {
      case 'validate':
        return { answer: validateAnswer(m) };
      case 'build':
        return { answer: buildAnswer(m) };
      case 'render':
        return { answer: renderAnswer(m) };
      case 'fhir':
        return { answer: fhirAnswer(m) };
      case 'fhir-validate':
        return { answer: fhirValidateAnswer(m) };
    }
  } catch (e) {
    if (e instanceof HttpProblem) return { problem: { status: e.statusCode, issues: e.issues, extra: { ...e.extra } } };
    return { internal: e instanceof Error ? e.name : 'Error' };
  }
}
