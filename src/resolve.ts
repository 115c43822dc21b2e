/**
 * One resolver for everything that documents care contexts (printing, FHIR):
 * a clinical input (built into a link request first, exactly as
 * `buildLinkRequest` does), a link request (the spec's 4.12 body) or one
 * care context, validated with the core validators and lint rules, becomes
 * the list of care contexts to document, each with what is known of the
 * patient, the visit and the follow-up.
 */
import type { Issue } from './errors.js';
import type { CareContext, CareContextInput, ClinicalInput, PatientInput, VitalsInput } from './generated/types.js';
import { detectInputKind, type InputKind } from './input-kind.js';
import { contentsOf, safeBuildLinkRequest } from './builders/link-request.js';
import { lintLinkRequest, type LintOptions } from './validation/lint.js';
import { validate } from './validation/validate.js';

/**
 * Patient details as known; every field optional.
 *
 * @example
 * const patient: PatientDetails = { name: 'Asha Verma', gender: 'F', birthDate: '1978-03-14' }
 */
export type PatientDetails = Partial<Readonly<PatientInput>>;

/**
 * Details a link request or a care context cannot carry but a document
 * shows. Used only for those two kinds of input; a clinical input carries
 * its own. (`visitId` and `visitDate` apply to a care context only: a link
 * request has its own.)
 *
 * @example
 * resolveCareContexts(request, { context: { patient: { name: 'Asha Verma' }, followUp: 'Review after 2 weeks' } })
 */
export interface VisitContext {
  /** Patient details (name, gender, birthDate or age, ABHANumber, abhaAddress). */
  readonly patient?: PatientDetails;
  /** The visit id (a link request has its own). */
  readonly visitId?: string;
  /** The visit date, YYYY-MM-DD (a link request has its own). */
  readonly visitDate?: string;
  /** Follow-up advice, e.g. "Review after 2 weeks". */
  readonly followUp?: string;
}

/**
 * What is known around the care contexts of one visit. Text is as the
 * caller gave it (not trimmed); unknown values are undefined.
 */
export interface ResolvedVisit {
  readonly patient: PatientDetails;
  /** The facility's HFR id (the request's hipId); undefined for a care context alone. */
  readonly hipId: string | undefined;
  readonly visitId: string | undefined;
  /** YYYY-MM-DD. */
  readonly visitDate: string | undefined;
  /** The visit time and facility time zone, as a clinical input gives them (undefined for other inputs). */
  readonly visitAt: string | Date | undefined;
  readonly timeZone: string | undefined;
  readonly followUp: string | undefined;
  /** The facility's postal address (a clinical input's hospital.address), for printing. */
  readonly hospitalAddress: string | undefined;
  /** The facility's GSTIN (a clinical input's hospital.gstin), for the printed bill. */
  readonly hospitalGstin: string | undefined;
}

/**
 * What a clinical input says of one care context beyond the link request
 * (whose bundleData the spec fixes): the doctor's registration particulars
 * and, per medication (same order as bundleData.medications), the generic
 * name, strength, form and route. Empty for other inputs.
 */
export interface CareContextDetails {
  readonly doctor: { readonly qualification?: string; readonly specialty?: string; readonly council?: string };
  readonly medications: ReadonlyArray<{ readonly genericName?: string; readonly strength?: string; readonly form?: string; readonly route?: string }>;
}

/** What {@link resolveCareContexts} returns: the care contexts to document (in input order) and their visit, or every issue. */
export type Resolution =
  | {
      readonly success: true;
      readonly kind: InputKind;
      readonly visit: ResolvedVisit;
      readonly careContexts: readonly CareContext[];
      /** One entry per care context, in the same order. */
      readonly details: readonly CareContextDetails[];
      readonly warnings: readonly Issue[];
      /**
       * A clinical input's content of each care context as given, in the same
       * order: what the link request cannot carry (an inpatient stay,
       * immunisations) is read from here. Absent for the other inputs.
       */
      readonly contents?: readonly CareContextInput[];
    }
  | { readonly success: false; readonly issues: readonly Issue[] };

/** Options of {@link resolveCareContexts}. */
export interface ResolveOptions {
  /** Read the input as this kind; by default the kind {@link detectInputKind} sees. */
  readonly kind?: InputKind;
  /** Lint options as `buildLinkRequest` takes them; `false` skips lint (the schema checks always run). */
  readonly lint?: LintOptions | false;
  /** Details a link request or a care context cannot carry. */
  readonly context?: VisitContext;
}

const UNKNOWN_INPUT: Issue = {
  path: '',
  code: 'unknown-input',
  message:
    'the document must be a clinical input (hospital, doctor, patient, visit), a link request (abhaAddress, hipId, visitDate, visitId, careContexts) or a care context (referenceNumber, display, hiType, bundleData)',
  severity: 'error',
};

/**
 * Validates an input with the core validators and lint rules and returns
 * the care contexts to document, or every issue (paths into the input).
 * Lint errors stop it; lint warnings are returned beside the care contexts.
 *
 * @example
 * resolveCareContexts(JSON.parse(text), { lint: { now: new Date() } })
 * //=> { success: true, kind: 'clinical-input', visit: { patient, hipId, visitId, visitDate, ... }, careContexts: [...], warnings: [] }
 */
export function resolveCareContexts(input: unknown, options: ResolveOptions = {}): Resolution {
  const kind = options.kind ?? detectInputKind(input);
  const lint = options.lint ?? {};
  const context = options.context ?? {};
  switch (kind) {
    case undefined:
      return { success: false, issues: [UNKNOWN_INPUT] };
    case 'clinical-input':
      return fromClinicalInput(input as ClinicalInput, lint);
    case 'link-request': {
      const r = validate('link-carecontext-request', input);
      if (!r.success) return { success: false, issues: r.issues };
      const findings = lint === false ? [] : lintLinkRequest(r.value, lint);
      if (findings.some((f) => f.severity === 'error')) return { success: false, issues: findings };
      const req = r.value;
      const patient: PatientDetails = { ...pickPatient(context.patient), abhaAddress: req.abhaAddress };
      const visit = {
        patient,
        hipId: req.hipId,
        visitId: req.visitId,
        visitDate: req.visitDate,
        visitAt: undefined,
        timeZone: undefined,
        followUp: context.followUp,
        hospitalAddress: undefined,
        hospitalGstin: undefined,
      };
      return { success: true, kind, warnings: findings, visit, careContexts: req.careContexts, details: req.careContexts.map(() => NO_DETAILS) };
    }
    case 'care-context': {
      const r = validate('care-context', input);
      if (!r.success) return { success: false, issues: r.issues };
      if (context.visitDate !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(context.visitDate))
        return { success: false, issues: [{ path: '/context/visitDate', code: 'invalid-date', message: 'context.visitDate must be a calendar date YYYY-MM-DD', severity: 'error' }] };
      const { visitId, visitDate, followUp } = context;
      const visit = {
        patient: pickPatient(context.patient),
        hipId: undefined,
        visitId,
        visitDate,
        visitAt: undefined,
        timeZone: undefined,
        followUp,
        hospitalAddress: undefined,
        hospitalGstin: undefined,
      };
      return { success: true, kind, warnings: [], visit, careContexts: [r.value], details: [NO_DETAILS] };
    }
  }
}

function fromClinicalInput(ci: ClinicalInput, lint: LintOptions | false): Resolution {
  const built = safeBuildLinkRequest(ci, { lint });
  if (!built.success) return { success: false, issues: built.issues };
  const req = built.value;
  const patient: PatientDetails = { ...pickPatient(ci.patient), abhaAddress: req.abhaAddress };
  const visit = {
    patient,
    hipId: req.hipId,
    visitId: req.visitId,
    visitDate: req.visitDate,
    visitAt: ci.visit.at,
    timeZone: typeof ci.visit.timeZone === 'string' ? ci.visit.timeZone : undefined,
    followUp: typeof ci.visit.followUp === 'string' ? ci.visit.followUp : undefined,
    hospitalAddress: textOf(ci.hospital.address),
    hospitalGstin: textOf(ci.hospital.gstin),
  };
  // The builder makes one care context per content, in order: the top-level content, or each of careContexts.
  const contents = contentsOf(ci).map((c) => c.content);
  const details = contents.map((c): CareContextDetails => {
    const d = c.doctor ?? ci.doctor;
    return {
      doctor: defined({ qualification: textOf(d.qualification), specialty: textOf(d.specialty), council: textOf(d.council) }),
      medications: (c.medications ?? []).map((m) => defined({ genericName: textOf(m.genericName), strength: textOf(m.strength), form: textOf(m.form), route: textOf(m.route) })),
    };
  });
  return { success: true, kind: 'clinical-input', warnings: built.warnings, visit, careContexts: req.careContexts, contents, details };
}

const NO_DETAILS: CareContextDetails = { doctor: {}, medications: [] };

/** A trimmed string, or undefined when blank or not a string. */
function textOf(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/** The object without its undefined entries (exactOptionalPropertyTypes). */
function defined<T extends Record<string, string | undefined>>(o: T): { [K in keyof T]?: string } {
  const out: { [K in keyof T]?: string } = {};
  for (const k of Object.keys(o) as Array<keyof T>) {
    const v = o[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** Copies the patient fields that are of the right type, and nothing else. */
function pickPatient(p: PatientDetails | undefined): PatientDetails {
  if (p === undefined || p === null || typeof p !== 'object') return {};
  const out: { -readonly [K in keyof PatientDetails]: PatientDetails[K] } = {};
  for (const k of ['name', 'gender', 'birthDate', 'ABHANumber', 'abhaAddress', 'mobile', 'address'] as const) {
    const v: unknown = p[k];
    if (typeof v === 'string') out[k] = v;
  }
  for (const k of ['age', 'weight', 'height'] as const) {
    const v: unknown = p[k];
    if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
  }
  const guardian: unknown = p.guardian;
  if (guardian !== null && typeof guardian === 'object' && typeof (guardian as { name?: unknown }).name === 'string') {
    const { name, relation } = guardian as { name: string; relation?: unknown };
    out.guardian = typeof relation === 'string' ? { name, relation } : { name };
  }
  const vitals: unknown = p.vitals;
  if (vitals !== null && typeof vitals === 'object') {
    const src = vitals as Readonly<Record<string, unknown>>;
    const v: { -readonly [K in keyof VitalsInput]: VitalsInput[K] } = {};
    if (typeof src.bloodPressure === 'string') v.bloodPressure = src.bloodPressure;
    for (const k of ['pulse', 'temperature', 'spo2', 'respiratoryRate'] as const) {
      const n = src[k];
      if (typeof n === 'number' && Number.isFinite(n)) v[k] = n;
    }
    out.vitals = v;
  }
  return out;
}
