import { ValidationError, pointer, type Issue } from '../errors.js';
import type { CareContextInput, ClinicalInput, LinkCareContextRequest } from '../generated/types.js';
import { DEFAULT_TIME_ZONE } from '../spec/constants.js';
import { lintClinicalInput, lintLinkRequest, type LintOptions } from '../validation/lint.js';
import { validate } from '../validation/validate.js';
import { careContextOf, defaultHiType } from './care-context.js';
import { text } from '../util.js';
import { stayIssues } from './stay.js';
import { visitDateOf, type VisitDateProblem } from './visit-date.js';

/** Options of {@link buildLinkRequest}. */
export interface BuildOptions {
  /**
   * Lint the built request (see lintLinkRequest) and treat lint errors as
   * build errors. Default: on, with default lint options. `false` skips lint.
   * The "visit date in the future" rule runs only when `lint.now` is given.
   */
  readonly lint?: LintOptions | false;
}

/** What {@link safeBuildLinkRequest} returns. */
export type BuildResult = { readonly success: true; readonly value: LinkCareContextRequest; readonly warnings: readonly Issue[] } | { readonly success: false; readonly issues: readonly Issue[] };

const CONTENT_KEYS = [
  'hiType',
  'referenceNumber',
  'display',
  'documentUrl',
  'diagnosis',
  'medications',
  'labInvestigations',
  'advice',
  'inpatientStay',
  'immunizations',
  'observations',
  'invoice',
] as const;

/** The clinical input with a Date visit time written as ISO text, so the input schema can check it. */
function jsonView(input: unknown): unknown {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return input;
  const visit = (input as { visit?: unknown }).visit;
  if (visit === null || typeof visit !== 'object' || !((visit as { at?: unknown }).at instanceof Date)) return input;
  const at = (visit as { at: Date }).at;
  const iso = Number.isNaN(at.getTime()) ? 'invalid date' : at.toISOString();
  return { ...input, visit: { ...visit, at: iso } };
}

/**
 * The care contexts of the input and the JSON Pointer of each one's content.
 *
 * @internal Also used by the resolver to hand each care context's whole content to FHIR and printing.
 */
export function contentsOf(input: ClinicalInput): Array<{ content: CareContextInput; at: string }> {
  if (input.careContexts !== undefined) return input.careContexts.map((content, i) => ({ content, at: pointer('careContexts', i) }));
  const content: CareContextInput = {};
  for (const k of CONTENT_KEYS) if (input[k] !== undefined) (content as Record<string, unknown>)[k] = input[k];
  return [{ content, at: '' }];
}

/** Issues about the shape of the input that the schema cannot express. */
function structuralIssues(input: ClinicalInput): Issue[] {
  const issues: Issue[] = [];
  if (input.careContexts !== undefined) {
    for (const k of CONTENT_KEYS) {
      if (input[k] !== undefined)
        issues.push({
          path: pointer(k),
          code: 'content-outside-care-contexts',
          message: `${k} is at the top level while careContexts is given; move it into the care context it belongs to`,
          severity: 'error',
        });
    }
    if (input.careContexts.length === 0)
      issues.push({ path: '/careContexts', code: 'empty-care-contexts', message: 'careContexts is empty: add at least one care context, or give the content at the top level', severity: 'error' });
  }
  return issues;
}

/**
 * Maps a path in the built request back to the field of the clinical input
 * it came from, so that issues point at what the caller wrote.
 */
function inputPathOf(path: string, input: ClinicalInput, contents: ReadonlyArray<{ content: CareContextInput; at: string }>): string {
  const tokens = path.split('/').slice(1);
  const [head, index, field, ...rest] = tokens;
  const restPath = rest.map((t) => `/${t}`).join('');
  switch (head) {
    case undefined:
      return '';
    case 'abhaAddress':
      return '/patient/abhaAddress';
    case 'hipId':
      return input.hipId !== undefined ? '/hipId' : '/hospital/id';
    case 'hospitalName':
      return '/hospital/name';
    case 'visitDate':
      return '/visit/at';
    case 'visitId':
      return '/visit/id';
    case 'careContexts': {
      const c = index === undefined ? undefined : contents[Number(index)];
      if (c === undefined) return input.careContexts !== undefined ? '/careContexts' : '';
      const own = (k: string): boolean => (c.content as Record<string, unknown>)[k] !== undefined;
      if (field === 'referenceNumber') return own(field) ? `${c.at}/referenceNumber` : '/visit/id';
      if (field === 'display') return own(field) ? `${c.at}/display` : '/hospital/name';
      if (field === 'hiType') return own(field) ? `${c.at}/hiType` : c.at;
      if (field !== 'bundleData') return c.at;
      const [part, ...inner] = rest;
      const innerPath = inner.map((t) => `/${t}`).join('');
      if (part === undefined) return c.at;
      if (part === 'hospital') return `/hospital${innerPath}`;
      if (part === 'doctor') return own('doctor') ? `${c.at}/doctor${innerPath}` : `/doctor${innerPath}`;
      return `${c.at}/${part}${innerPath}`;
    }
    default:
      return `/${head}${index === undefined ? '' : `/${index}`}${field === undefined ? '' : `/${field}`}${restPath}`;
  }
}

/** The issue of a visit time that is not a real date and time, or of an unknown time zone. */
function visitDateIssue(problem: VisitDateProblem): Issue {
  return problem === 'unknown-time-zone'
    ? { path: '/visit/timeZone', code: 'unknown-time-zone', message: 'timeZone must be an IANA time-zone name such as Asia/Kolkata', severity: 'error' }
    : { path: '/visit/at', code: 'invalid-datetime', message: 'at must be a real date and time from 1900 on (ISO 8601, e.g. 2026-11-20T10:30:00+05:30)', severity: 'error' };
}

/**
 * The visit time's own check, for an input the schema refused elsewhere: a
 * date that does not exist (2026-02-30) is reported with a misspelt field in
 * one pass. Only when visit.at and visit.timeZone are well-formed strings
 * (no schema issue at or under /visit/at, /visit/timeZone), since the check reads nothing else.
 */
function visitDateBesideSchema(input: unknown, schemaIssues: readonly Issue[]): Issue[] {
  const touches = (p: string): boolean => schemaIssues.some((i) => i.path === '' || i.path === '/visit' || i.path === p || i.path.startsWith(`${p}/`));
  if (touches('/visit/at') || touches('/visit/timeZone')) return [];
  const visit = (input as { visit?: unknown } | null)?.visit;
  if (visit === null || typeof visit !== 'object') return [];
  const { at, timeZone } = visit as { at?: unknown; timeZone?: unknown };
  if (typeof at !== 'string' || (timeZone !== undefined && typeof timeZone !== 'string')) return [];
  const when = visitDateOf(at, text(timeZone) ?? DEFAULT_TIME_ZONE);
  return 'problem' in when ? [visitDateIssue(when.problem)] : [];
}

/**
 * Builds the link request (the body of POST /api/m2/multiple/link-carecontext,
 * spec §4.12) from a visit's clinical input, and reports instead of throwing.
 *
 * Every problem is returned at once, with paths into the clinical input.
 * Lint warnings of a successful build are returned beside the value.
 *
 * @example
 * const r = safeBuildLinkRequest(input)
 * if (r.success) send(r.value); else for (const i of r.issues) console.error(i.path, i.message)
 */
export function safeBuildLinkRequest(input: ClinicalInput, options: BuildOptions = {}): BuildResult {
  const checked = validate('clinical-input', jsonView(input));
  if (!checked.success) return { success: false, issues: [...checked.issues, ...visitDateBesideSchema(input, checked.issues)] };
  // The schema checked the JSON view; the builders read the caller's own object.
  const ci = input;
  const issues = structuralIssues(ci);
  const timeZone = text(ci.visit.timeZone) ?? DEFAULT_TIME_ZONE;
  const when = visitDateOf(ci.visit.at, timeZone);
  if ('problem' in when) issues.push(visitDateIssue(when.problem));
  if (issues.length > 0 || 'problem' in when) return { success: false, issues };

  const contents = contentsOf(ci);
  for (const { content, at } of contents) issues.push(...stayIssues(content, at, timeZone));
  if (issues.length > 0) return { success: false, issues };
  const seen = new Map<string, number>();
  const careContexts = contents.map(({ content }) => {
    const hiType = text(content.hiType) ?? defaultHiType(content);
    const occurrence = (seen.get(hiType) ?? 0) + 1;
    seen.set(hiType, occurrence);
    return careContextOf(content, { hiType, hospital: ci.hospital, doctor: content.doctor ?? ci.doctor, visitId: ci.visit.id, visitDate: when.date, occurrence });
  });
  const request: LinkCareContextRequest = {
    abhaAddress: ci.patient.abhaAddress.trim(),
    hipId: (text(ci.hipId) ?? ci.hospital.id).trim(),
    hospitalName: ci.hospital.name.trim(),
    visitDate: when.date,
    visitId: ci.visit.id.trim(),
    careContexts,
  };

  const out = validate('link-carecontext-request', request);
  const mapped = (list: readonly Issue[]): Issue[] => list.map((i) => ({ ...i, path: inputPathOf(i.path, ci, contents) }));
  if (!out.success) return { success: false, issues: mapped(out.issues) };
  const findings = options.lint === false ? [] : [...lintClinicalInput(ci, options.lint ?? {}), ...mapped(lintLinkRequest(out.value, options.lint ?? {}))];
  const errors = findings.filter((f) => f.severity === 'error');
  // Information (an hiType chosen from the content) tells of a request that was built; a refused build lists what to fix.
  if (errors.length > 0) return { success: false, issues: findings.filter((f) => f.severity !== 'information') };
  return { success: true, value: out.value, warnings: findings };
}

/**
 * Builds the link request (the body of POST /api/m2/multiple/link-carecontext,
 * spec §4.12) from a visit's clinical input.
 *
 * Pure: no clock, no environment, the input is not changed, and the same
 * input gives the same request. The visit date is taken in the facility's
 * time zone (`visit.timeZone`, default Asia/Kolkata). Give the clinical
 * content at the top level for one care context, or `careContexts` for
 * several; each gets a derived referenceNumber and display unless given.
 *
 * @throws ValidationError with every issue (schema and lint errors), paths into `input`
 * @example
 * buildLinkRequest({
 *   hospital: { name: 'City Care Clinic', id: 'IN2910000123' },
 *   doctor: { name: 'Dr. Meera Iyer', licNumber: 'KMC-45678' },
 *   patient: { abhaAddress: 'asha.verma@sbx' },
 *   visit: { id: 'OPD-2026-0042', at: '2026-11-20T23:30:00+05:30' },
 *   medications: [{ drugName: 'Cetirizine 10 mg', dosage: '1 tablet', frequency: 'HS', duration: '5 days' }],
 * })
 * //=> { abhaAddress: 'asha.verma@sbx', hipId: 'IN2910000123', hospitalName: 'City Care Clinic',
 * //     visitDate: '2026-11-20', visitId: 'OPD-2026-0042', careContexts: [{
 * //       referenceNumber: 'OPD-2026-0042-Prescription',
 * //       display: 'Prescription at City Care Clinic on 20 Nov 2026', hiType: 'Prescription',
 * //       bundleData: { ... } }] }
 */
export function buildLinkRequest(input: ClinicalInput, options: BuildOptions = {}): LinkCareContextRequest {
  const r = safeBuildLinkRequest(input, options);
  if (!r.success) throw new ValidationError(r.issues, 'clinical input');
  return r.value;
}
