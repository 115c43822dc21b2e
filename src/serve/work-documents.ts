/**
 * The small document work the event loop may do itself (validate and build
 * of a small body, see routes-core.ts) and the queue's routes use, apart
 * from rendering and FHIR (work-tasks.ts), so that the server loads this
 * much on its first such request and no more.
 */
import type { Issue } from '../errors.js';
import type { ClinicalInput, LinkCareContextRequest } from '../generated/types.js';
import { safeBuildLinkRequest } from '../builders/link-request.js';
import { detectInputKind } from '../input-kind.js';
import { lintLinkRequest } from '../validation/lint.js';
import { validate } from '../validation/validate.js';
import { parseJsonBody, requireBody } from './json-body.js';
import { capIssues, replyOf, truncation, type TaskBase, type WorkAnswer, type WorkMessage, type WorkReply } from './work-messages.js';

export { safeBuildLinkRequest };

const LINK_SCHEMA = 'link-carecontext-request';

/** How many findings are warnings: the `x-abha-link-warnings` header counts no `information` (an inferred hiType, say). */
export function warningCount(findings: readonly Issue[]): number {
  return findings.filter((f) => f.severity === 'warning').length;
}

/** A 422 answer `{ issues }`, capped. */
export function unprocessable(issues: readonly Issue[], max: number): WorkAnswer {
  return { status: 422, json: { issues: issues.slice(0, max), ...truncation(issues.length, max) } };
}

/** The request body: JSON, or the 400 of a body that is not. */
export function bodyOf(m: TaskBase): unknown {
  return requireBody(parseJsonBody(m.body));
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

function validateAnswer(m: Extract<WorkMessage, { kind: 'validate' }>): WorkAnswer {
  const r = validateDocument(bodyOf(m), m.schema, m.lint, new Date(m.now));
  return { status: 200, json: { valid: r.valid, ...capIssues(r.errors, r.warnings, m.maxIssues), ...(r.hint === undefined ? {} : { hint: r.hint }) } };
}

function buildAnswer(m: Extract<WorkMessage, { kind: 'build' }>): WorkAnswer {
  const r = safeBuildLinkRequest(bodyOf(m) as ClinicalInput, { lint: m.lint ? { now: new Date(m.now) } : false });
  if (!r.success) return unprocessable(r.issues, m.maxIssues);
  return { status: 200, json: r.value, warnings: warningCount(r.warnings) };
}

/** Runs a validate or build task; never throws. */
export function runDocumentWork(m: Extract<WorkMessage, { kind: 'validate' | 'build' }>): WorkReply {
  return m.kind === 'validate' ? replyOf(validateAnswer, m) : replyOf(buildAnswer, m);
}
