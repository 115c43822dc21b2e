/**
 * Care contexts → NRCeS FHIR R4 document Bundles, one per care context,
 * following the record profile of its hiType (reference §3–§7). The input
 * is read by the core resolver (`resolve.ts`, shared with printing); each
 * care context is assembled by `assemble.ts` with its profile's sections
 * (`profiles/`).
 */
import { compact, text } from '../util.js';
import { pointer, type Issue } from '../errors.js';
import type { CareContext, CareContextInput, ClinicalInput, LinkCareContextRequest } from '../generated/types.js';
import { detectInputKind } from '../input-kind.js';
import { resolveCareContexts, type CareContextDetails, type ResolvedVisit } from '../resolve.js';
import { DEFAULT_TIME_ZONE } from '../spec/constants.js';
import { instantOf, isKnownTimeZone } from '../time.js';
import type { LintOptions } from '../validation/lint.js';
import { assembleDocument } from './assemble.js';
import { issue, printOnly, PRINT_ONLY, type DocumentJob, type Locator } from './assembly.js';
import { DEFAULT_IDENTIFIER_SYSTEMS, type IdentifierSystems } from './constants.js';
import { givenMeasures } from './patient-vitals.js';
import type { FhirDocument, ToFhirOptions, ToFhirResult } from './to-fhir-types.js';
import { visitDateTime } from './time.js';

export type { FhirAttachmentInput, FhirDocument, ToFhirOptions, ToFhirResult } from './to-fhir-types.js';

/** Where the parts of care context `index` are in a link request. */
function linkRequestLocator(index: number): Locator {
  const base = ['careContexts', index] as const;
  return {
    content: (...t) => pointer(...base, 'bundleData', ...t),
    hospital: (...t) => pointer(...base, 'bundleData', 'hospital', ...t),
    doctor: (...t) => pointer(...base, 'bundleData', 'doctor', ...t),
    patient: () => '/abhaAddress',
    visit: () => '/visitDate',
    hiType: () => pointer(...base, 'hiType'),
  };
}

/** Where the parts of care context `index` are in a clinical input (top-level content, or one of `careContexts`). */
function clinicalInputLocator(input: ClinicalInput, index: number): Locator {
  const own = input.careContexts?.[index];
  const base: Array<string | number> = input.careContexts === undefined ? [] : ['careContexts', index];
  const hiTypeGiven = text(own?.hiType ?? (input.careContexts === undefined ? input.hiType : undefined)) !== undefined;
  return {
    content: (...t) => pointer(...base, ...t),
    hospital: (...t) => pointer('hospital', ...t),
    doctor: (...t) => (own?.doctor !== undefined ? pointer(...base, 'doctor', ...t) : pointer('doctor', ...t)),
    patient: (...t) => pointer('patient', ...t),
    visit: (...t) => pointer('visit', ...t),
    hiType: () => (hiTypeGiven ? pointer(...base, 'hiType') : pointer(...base)),
  };
}

/**
 * The documents to make: one job per care context, with the visit time as
 * FHIR writes it (a link request's date at midnight in `timeZone`, a
 * clinical input's time in its own zone). Issues when the time is not real.
 */
function jobsOf(
  input: ClinicalInput | LinkCareContextRequest,
  resolved: { visit: ResolvedVisit; careContexts: readonly CareContext[]; contents?: readonly CareContextInput[]; details: readonly CareContextDetails[] },
  linkRequest: boolean,
  timeZone: string,
): DocumentJob[] | Issue[] {
  const { visit } = resolved;
  const zone = linkRequest ? timeZone : (text(visit.timeZone) ?? DEFAULT_TIME_ZONE);
  const at = linkRequest ? (visit.visitDate as string) : (visit.visitAt as Date | string);
  const when = linkRequest ? visit.visitDate : visitDateTime(at, zone);
  const instant = instantOf(at, zone);
  if (when === undefined || instant === undefined)
    return [
      linkRequest
        ? issue('/visitDate', 'invalid-date', 'visitDate must be a calendar date YYYY-MM-DD')
        : issue('/visit/at', 'invalid-datetime', 'at must be a real date and time (ISO 8601, e.g. 2026-11-20T10:30:00+05:30)'),
    ];
  const p = visit.patient;
  const patient = {
    abhaAddress: p.abhaAddress as string,
    ...compact({ ABHANumber: text(p.ABHANumber), name: text(p.name), gender: text(p.gender), birthDate: text(p.birthDate), age: p.age }),
    ...compact({ mobile: text(p.mobile), address: text(p.address), weight: p.weight, height: p.height, vitals: p.vitals }),
  };
  const followUp = text(visit.followUp);
  return resolved.careContexts.map((cc, index) => ({
    cc,
    hiType: cc.hiType,
    hipId: visit.hipId as string,
    visitId: visit.visitId as string,
    when,
    instant,
    timeZone: zone,
    patient,
    followUp,
    at: linkRequest ? linkRequestLocator(index) : clinicalInputLocator(input as ClinicalInput, index),
    clinical: resolved.contents?.[index],
    hospitalAddress: visit.hospitalAddress,
    details: resolved.details[index],
  }));
}

function optionIssues(options: ToFhirOptions): Issue[] {
  const out: Issue[] = [];
  const t = options.timestamp;
  if (t !== undefined) {
    const ok = t instanceof Date ? !Number.isNaN(t.getTime()) : typeof t === 'string' && /(Z|[+-]\d{2}:\d{2})$/i.test(t) && /T\d{2}:\d{2}:\d{2}/.test(t) && instantOf(t, 'UTC') !== undefined;
    if (!ok) out.push(issue('', 'invalid-option', 'options.timestamp must be a valid Date or an ISO date-time with seconds and an offset, e.g. 2026-11-20T10:30:00+05:30'));
  }
  if (options.lint !== undefined && options.lint !== false && (options.lint === null || typeof options.lint !== 'object' || Array.isArray(options.lint)))
    out.push(issue('', 'invalid-option', 'options.lint must be lint options (an object) or false'));
  if (options.timeZone !== undefined && !isKnownTimeZone(options.timeZone)) out.push(issue('', 'invalid-option', 'options.timeZone must be an IANA time-zone name such as Asia/Kolkata'));
  if (options.bundleIdentifierSystem !== undefined && !/^[a-z][a-z0-9+.-]*:\S+$/i.test(options.bundleIdentifierSystem))
    out.push(issue('', 'invalid-option', 'options.bundleIdentifierSystem must be an absolute URI'));
  if (options.opConsultDiagnosisSection !== undefined && options.opConsultDiagnosisSection !== 'ChiefComplaints' && options.opConsultDiagnosisSection !== 'MedicalHistory')
    out.push(issue('', 'invalid-option', 'options.opConsultDiagnosisSection must be ChiefComplaints or MedicalHistory'));
  const titles: unknown = options.icd10Titles;
  if (titles !== undefined && (titles === null || typeof titles !== 'object' || Array.isArray(titles) || Object.values(titles).some((v) => typeof v !== 'string')))
    out.push(issue('', 'invalid-option', 'options.icd10Titles must be an object of ICD-10 codes to their titles (text)'));
  const printed = options.printedDocuments;
  if (printed !== undefined && (printed === null || typeof printed !== 'object' || Array.isArray(printed)))
    out.push(issue('', 'invalid-option', 'options.printedDocuments must be an object keyed by care-context referenceNumber'));
  for (const [k, v] of Object.entries(options.identifierSystems ?? {}))
    if (v !== undefined && (typeof v !== 'string' || !/^[a-z][a-z0-9+.-]*:\S+$/i.test(v))) out.push(issue('', 'invalid-option', `options.identifierSystems.${k} must be an absolute URI`));
  return out;
}

/**
 * Builds one NRCeS FHIR R4 document Bundle per care context, from a
 * clinical input or a link request (the 4.12 body), following the record
 * profile of each care context's hiType: PrescriptionRecord,
 * OPConsultRecord, DiagnosticReportRecord or HealthDocumentRecord.
 *
 * - Composition first, with the profile's fixed type and section codes;
 *   `urn:uuid` fullUrls; every reference resolves inside the bundle;
 *   `meta.profile` on every resource.
 * - Ids are name-based UUIDs of hip id, visit id, reference number and
 *   hiType: the same input gives the same bundles (`timestamp` defaults to
 *   the visit time; pass the current time to stamp assembly time).
 * - Conditions carry an ICD-10 coding only when `icdCode` was given; no code
 *   is ever guessed. Content the profile has no place for (lab orders in a
 *   Prescription, a URL without the document's bytes) is reported as a
 *   warning naming the alternative, never dropped silently. The fields a
 *   clinical input gives for printing (addresses, qualification, council,
 *   generic name, strength, form, route, mobile, vitals) go where the
 *   record has a place; elsewhere a `print-only-not-in-fhir` warning.
 * - The Patient comes from the clinical input's patient, or only from the
 *   ABHA address for a link request.
 *
 * Never throws for bad data: returns `{ success: false, issues }` with JSON
 * Pointers into the input. Does not change its input.
 *
 * @example
 * const r = toFhirBundles(clinicalInput, { timestamp: new Date() })
 * if (r.success) for (const d of r.bundles) save(d.referenceNumber, JSON.stringify(d.bundle))
 * //=> r.bundles[0].bundle.entry[0].resource.type.coding[0].code === '440545006' for a Prescription
 */
export function toFhirBundles(input: ClinicalInput | LinkCareContextRequest, options: ToFhirOptions = {}): ToFhirResult {
  try {
    const bad = optionIssues(options);
    if (bad.length > 0) return { success: false, issues: bad };
    const lint: LintOptions | false = options.lint === false ? false : (options.lint ?? {});
    // Anything that is not a link request is read as a clinical input (and its schema says what is wrong).
    const linkRequest = detectInputKind(input) === 'link-request';
    const resolved = resolveCareContexts(input, { kind: linkRequest ? 'link-request' : 'clinical-input', lint });
    if (!resolved.success) return { success: false, issues: resolved.issues };
    const jobs = jobsOf(input, resolved, linkRequest, options.timeZone ?? DEFAULT_TIME_ZONE);
    if (jobs.length > 0 && 'path' in (jobs[0] as object)) return { success: false, issues: jobs as Issue[] };
    if (jobs.length === 0) return { success: false, issues: [issue('/careContexts', 'empty-care-contexts', 'careContexts is empty: there is no care context to make a document of')] };
    const systems: IdentifierSystems = { ...DEFAULT_IDENTIFIER_SYSTEMS, ...definedOnly(options.identifierSystems ?? {}) };
    const out: Issue[] = [...resolved.warnings];
    const bundles: FhirDocument[] = [];
    for (const job of jobs as DocumentJob[]) {
      const d = assembleDocument(job, options, systems, out);
      if (d !== undefined) bundles.push(d);
    }
    for (const ref of Object.keys(options.printedDocuments ?? {}))
      if (!(jobs as DocumentJob[]).some((j) => j.cc.referenceNumber === ref))
        out.push(issue('', 'printed-document-not-embedded', 'a printed document in options.printedDocuments is keyed by no care-context referenceNumber of the input; it is not embedded', 'warning'));
    // Follow-up advice has a place only in an OPConsultRecord and a DischargeSummaryRecord.
    const first = (jobs as DocumentJob[])[0];
    if (first?.followUp !== undefined && !bundles.some((d) => d.hiType === 'OPConsultation' || d.hiType === 'DischargeSummary'))
      out.push(
        issue(
          '/visit/followUp',
          'content-not-in-profile',
          'followUp has a place only in an OPConsultRecord or a DischargeSummaryRecord and no care context of this visit is an OPConsultation or a DischargeSummary; it is left out',
          'warning',
        ),
      );
    if (first !== undefined) reportUncarriedMeasures(first, bundles, out);
    const issues = withoutRepeatedPrintOnly(out);
    const errors = issues.filter((i) => i.severity === 'error');
    if (errors.length > 0) return { success: false, issues };
    return { success: true, bundles, warnings: issues };
  } catch {
    // A getter that throws, a revoked proxy: not data that came from JSON.
    return { success: false, issues: [issue('', 'unreadable', 'the input could not be read as JSON data')] };
  }
}

/** The hiTypes whose record profile holds the patient's vitals, weight and height (as Observations): OPConsultRecord and DischargeSummaryRecord in their PhysicalExamination section, WellnessRecord in its own. */
const MEASURED_HI_TYPES: readonly string[] = ['OPConsultation', 'DischargeSummary', 'WellnessRecord'];

/** The patient's vitals, weight and height are of the visit: when no document of the visit can hold them, each one given is reported. */
function reportUncarriedMeasures(job: DocumentJob, bundles: readonly FhirDocument[], out: Issue[]): void {
  if (bundles.some((d) => MEASURED_HI_TYPES.includes(d.hiType))) return;
  for (const at of givenMeasures(job.patient))
    out.push(
      printOnly(
        job.at.patient(...at),
        `${at[at.length - 1] ?? 'the measure'} has a place (an Observation) only in an OPConsultRecord, a DischargeSummaryRecord or a WellnessRecord, and no care context of this visit is an OPConsultation, a DischargeSummary or a WellnessRecord`,
      ),
    );
}

/** A field of the visit (the doctor's specialty, say) is reported once, not once per care context. */
function withoutRepeatedPrintOnly(issues: readonly Issue[]): Issue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    if (i.code !== PRINT_ONLY) return true;
    const key = `${i.path}\u0000${i.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function definedOnly<T extends object>(o: T): Partial<T> {
  const r: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) r[k] = v;
  return r as Partial<T>;
}
