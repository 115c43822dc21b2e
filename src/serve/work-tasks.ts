/**
 * The work of the document routes (validate, build, render, FHIR, FHIR
 * validation), as pure functions of a message (work-messages.ts): what the
 * worker threads run (work-worker.ts). Validate and build are in
 * work-documents.ts, which the event loop also loads for small bodies.
 */
import type { Issue } from '../errors.js';
import type { ClinicalInput } from '../generated/types.js';
import { toFhirBundles } from '../fhir/to-fhir.js';
import { safeRenderDocuments } from '../render/render.js';
import { toOperationOutcome } from '../fhir/outcome.js';
import { checkFhirBundle } from './fhir-validator.js';
import { HttpProblem, issue, problem } from './problems.js';
import { bodyOf, runDocumentWork, unprocessable, warningCount } from './work-documents.js';
import { capIssues, replyOf, type WorkAnswer, type WorkMessage, type WorkReply } from './work-messages.js';

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
  switch (m.kind) {
    case 'validate':
    case 'build':
      return runDocumentWork(m);
    case 'render':
      return replyOf(renderAnswer, m);
    case 'fhir':
      return replyOf(fhirAnswer, m);
    case 'fhir-validate':
      return replyOf(fhirValidateAnswer, m);
  }
}
