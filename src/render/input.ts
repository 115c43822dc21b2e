/**
 * What can be rendered: a clinical input (built into a link request first,
 * exactly as `buildLinkRequest` does), a link request (the spec's 4.12
 * body), or one care context. Each is validated with the core validators;
 * the result is one {@link DocumentSource} per care context.
 */
import type { Issue } from '../errors.js';
import { detectInputKind, type InputKind } from '../input-kind.js';
import type { CareContext, ClinicalInput, LinkCareContextRequest } from '../generated/types.js';
import { safeBuildLinkRequest } from '../builders/link-request.js';
import { lintLinkRequest, type LintOptions } from '../validation/lint.js';
import { validate } from '../validation/validate.js';
import type { DocumentSource, PrintPatient } from './model.js';

/**
 * The kinds of input the render functions accept.
 *
 * @example
 * const kind: RenderInputKind = detectInputKind(value) ?? 'clinical-input'
 */
export type RenderInputKind = InputKind;

/**
 * Anything the render functions accept: a clinical input, a link request or a care context.
 *
 * @example
 * const input: RenderInput = buildLinkRequest(clinicalInput)
 */
export type RenderInput = ClinicalInput | LinkCareContextRequest | CareContext;

/**
 * Details a link request or a care context cannot carry but a printed page
 * shows. Used only for those two kinds of input; a clinical input carries
 * its own. (`visitId` and `visitDate` apply to a care context only: a link
 * request has its own.)
 *
 * @example
 * renderDocuments(request, { context: { patient: { name: 'Asha Verma', gender: 'F', age: 48 }, followUp: 'Review after 2 weeks' } })
 */
export interface RenderContext {
  /** Patient details (name, gender, birthDate or age, ABHANumber, abhaAddress). */
  readonly patient?: PrintPatient;
  /** The visit id (a link request has its own). */
  readonly visitId?: string;
  /** The visit date, YYYY-MM-DD (a link request has its own). */
  readonly visitDate?: string;
  /** Follow-up advice, e.g. "Review after 2 weeks". */
  readonly followUp?: string;
}

/**
 * The result of reading an input: one source per care context, or every issue.
 *
 * @example
 * const r: ResolvedInput = resolveInput(value)
 * if (r.success) console.log(r.kind, r.sources.length)
 */
export type ResolvedInput =
  | { readonly success: true; readonly kind: RenderInputKind; readonly sources: readonly DocumentSource[]; readonly warnings: readonly Issue[] }
  | { readonly success: false; readonly issues: readonly Issue[] };

const UNKNOWN_INPUT: Issue = {
  path: '',
  code: 'unknown-input',
  message:
    'the document must be a clinical input (hospital, doctor, patient, visit), a link request (abhaAddress, hipId, visitDate, visitId, careContexts) or a care context (referenceNumber, display, hiType, bundleData)',
  severity: 'error',
};

function contextIssues(context: RenderContext): Issue[] {
  const issues: Issue[] = [];
  if (context.visitDate !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(context.visitDate))
    issues.push({ path: '/context/visitDate', code: 'invalid-date', message: 'context.visitDate must be a calendar date YYYY-MM-DD', severity: 'error' });
  return issues;
}

function lintSplit(findings: readonly Issue[]): { errors: Issue[]; warnings: Issue[] } {
  return { errors: findings.filter((f) => f.severity === 'error'), warnings: findings.filter((f) => f.severity === 'warning') };
}

/**
 * Validates an input with the core validators and lint rules and returns one
 * {@link DocumentSource} per care context, or every issue (paths into the
 * input). Never throws for any input.
 *
 * @example
 * resolveInput(JSON.parse(text), { lint: { now: new Date() } })
 * //=> { success: true, kind: 'clinical-input', sources: [{ careContext, patient, visitId, visitDate, followUp }], warnings: [] }
 */
export function resolveInput(input: unknown, options: { readonly lint?: LintOptions | false; readonly context?: RenderContext } = {}): ResolvedInput {
  const kind = detectInputKind(input);
  const context = options.context ?? {};
  switch (kind) {
    case undefined:
      return { success: false, issues: [UNKNOWN_INPUT] };
    case 'clinical-input': {
      const built = safeBuildLinkRequest(input as ClinicalInput, { lint: options.lint ?? {} });
      if (!built.success) return { success: false, issues: built.issues };
      const ci = input as ClinicalInput;
      const patient: PrintPatient = { ...pickPatient(ci.patient), abhaAddress: built.value.abhaAddress };
      return {
        success: true,
        kind,
        warnings: built.warnings,
        sources: built.value.careContexts.map((careContext) => ({
          careContext,
          patient,
          visitId: built.value.visitId,
          visitDate: built.value.visitDate,
          followUp: typeof ci.visit.followUp === 'string' ? ci.visit.followUp : undefined,
        })),
      };
    }
    case 'link-request': {
      const r = validate('link-carecontext-request', input);
      if (!r.success) return { success: false, issues: r.issues };
      const { errors, warnings } = options.lint === false ? { errors: [], warnings: [] } : lintSplit(lintLinkRequest(r.value, options.lint ?? {}));
      if (errors.length > 0) return { success: false, issues: [...errors, ...warnings] };
      const patient: PrintPatient = { ...pickPatient(context.patient), abhaAddress: r.value.abhaAddress };
      return {
        success: true,
        kind,
        warnings,
        sources: r.value.careContexts.map((careContext) => ({
          careContext,
          patient,
          visitId: r.value.visitId,
          visitDate: r.value.visitDate,
          followUp: context.followUp,
        })),
      };
    }
    case 'care-context': {
      const r = validate('care-context', input);
      if (!r.success) return { success: false, issues: r.issues };
      const bad = contextIssues(context);
      if (bad.length > 0) return { success: false, issues: bad };
      return {
        success: true,
        kind,
        warnings: [],
        sources: [{ careContext: r.value, patient: pickPatient(context.patient), visitId: context.visitId, visitDate: context.visitDate, followUp: context.followUp }],
      };
    }
  }
}

/** Copies the printable patient fields that are of the right type, and nothing else. */
function pickPatient(p: PrintPatient | undefined): PrintPatient {
  if (p === undefined || p === null || typeof p !== 'object') return {};
  const out: { -readonly [K in keyof PrintPatient]: PrintPatient[K] } = {};
  for (const k of ['name', 'gender', 'birthDate', 'ABHANumber', 'abhaAddress'] as const) {
    const v: unknown = p[k];
    if (typeof v === 'string') out[k] = v;
  }
  if (typeof p.age === 'number') out.age = p.age;
  return out;
}
