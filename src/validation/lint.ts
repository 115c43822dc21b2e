/**
 * Lint rules: what the schema accepts but ABDM, downstream of the service,
 * would reject or mishandle later. Sources: shared/reference/abdm-and-fhir.md
 * (section numbers in each rule's description).
 */
import { pointer, type Issue, type Severity } from '../errors.js';
import { readFrequency } from '../builders/frequency.js';
import type { CareContext, ClinicalInput, LinkCareContextRequest } from '../generated/types.js';
import {
  ABDM_DISPLAY_CHARS,
  ABDM_LABEL_MAX,
  ABDM_REFERENCE_CHARS,
  ABHA_ADDRESS_LOCAL,
  DEFAULT_ABHA_ADDRESS_SUFFIXES,
  DEFAULT_TIME_ZONE,
  HI_TYPES,
  ICD10_PERMISSIVE,
  ICD10_WHO,
} from '../spec/constants.js';
import { contentOutside, contentPresent, hasExpectedContent } from '../spec/hi-types.js';
import { calendarDateIn } from '../time.js';

/** Options of {@link lintLinkRequest}. */
export interface LintOptions {
  /**
   * The current time, for the "visit date in the future" rule. The library
   * never reads the clock: without `now` that rule does not run. The CLI
   * passes the current time.
   */
  readonly now?: Date;
  /** Facility time zone for "today" (IANA name). Default `Asia/Kolkata`. */
  readonly timeZone?: string;
  /** Accepted hiType codes. Default: ABDM's eight ({@link HI_TYPES}). */
  readonly hiTypes?: readonly string[];
  /** Accepted ABHA address suffixes after `@`. Default `abdm` and `sbx`. */
  readonly abhaAddressSuffixes?: readonly string[];
  /** Rule codes to skip, e.g. `['icd10-not-who']`. */
  readonly disable?: readonly string[];
}

/** A lint rule's metadata, for documentation and `--help`. */
export interface LintRule {
  readonly code: string;
  readonly severity: Severity;
  readonly description: string;
}

/** Every lint rule, with its code, severity and what it checks. */
export const LINT_RULES: readonly LintRule[] = [
  { code: 'empty-care-contexts', severity: 'error', description: 'careContexts is empty: there is nothing to link.' },
  { code: 'duplicate-reference-number', severity: 'error', description: 'Two care contexts share a referenceNumber; ABDM needs it unique per care context (§9.2).' },
  { code: 'visit-date-in-future', severity: 'error', description: 'visitDate is after today in the facility time zone (runs only when `now` is given).' },
  { code: 'reference-number-too-long', severity: 'error', description: "referenceNumber is longer than ABDM's 255 characters (§9.2)." },
  {
    code: 'reference-number-characters',
    severity: 'error',
    description: "referenceNumber has characters ABDM's linking API rejects; allowed: letters, digits, space and _ - @ , . ( ) / : \\ (§9.2).",
  },
  { code: 'display-too-long', severity: 'error', description: "display is longer than ABDM's 255 characters (§9.2)." },
  { code: 'display-characters', severity: 'error', description: "display has characters ABDM's linking API rejects; allowed: letters, digits, space and _ - @ , . \" ' : | ( ) / (§9.2)." },
  { code: 'unknown-hi-type', severity: 'error', description: "hiType is not one of ABDM's hiType codes (§1)." },
  { code: 'abha-address-shape', severity: 'error', description: 'abhaAddress is not an ABHA address such as name@abdm or name@sbx (§8).' },
  { code: 'document-url-not-https', severity: 'error', description: 'documentUrl is not an https URL.' },
  { code: 'icd10-shape', severity: 'error', description: 'icdCode does not have the shape of an ICD-10 code, e.g. E11.9 (§8).' },
  { code: 'icd10-not-who', severity: 'warning', description: 'icdCode looks like ICD-10-CM rather than WHO ICD-10 (letter, two digits, optional .digit or .digits) (§8).' },
  { code: 'prescription-without-medication', severity: 'error', description: 'A Prescription care context has neither medications nor a documentUrl; a PrescriptionRecord needs at least one (§4.1).' },
  { code: 'diagnostic-report-without-content', severity: 'warning', description: 'A DiagnosticReport care context has neither labInvestigations nor a documentUrl (§4.3).' },
  { code: 'health-document-without-url', severity: 'warning', description: 'A HealthDocumentRecord care context has no documentUrl (§4.4).' },
  {
    code: 'prescription-extra-content',
    severity: 'warning',
    description:
      'A Prescription care context carries labInvestigations or advice: they stay in the link request and on the printed page, but the FHIR PrescriptionRecord has no place for them; OPConsultation carries them into FHIR too (§4.1, §4.2).',
  },
  { code: 'medication-without-dosage', severity: 'warning', description: 'A medication has no dosage.' },
  { code: 'medication-without-frequency', severity: 'warning', description: 'A medication has no frequency.' },
  {
    code: 'frequency-not-understood',
    severity: 'warning',
    description:
      'A medication frequency is none of the notations abha-link reads (1-0-1, ½-0-½, OD, BD, TDS, QID, HS, SOS, STAT, Q6H, "twice daily"…): it is kept as written, but FHIR gets no timing from it.',
  },
  {
    code: 'bidi-control-in-medication',
    severity: 'warning',
    description:
      'A medication text (drug, dose, frequency, duration, instructions) holds a bidirectional control character (U+202A-U+202E, U+2066-U+2069), which can make the printed text read differently from what is stored (CVE-2021-42574, "Trojan Source").',
  },
  {
    code: 'document-url-credentials',
    severity: 'warning',
    description: 'documentUrl carries a user name or password (user:pass@host): every reader of the record sees it (RFC 3986 §3.2.1, deprecated).',
  },
  {
    code: 'abha-number-shape',
    severity: 'warning',
    description:
      'patient.ABHANumber of a clinical input is not an ABHA number of 14 digits: NN-NNNN-NNNN-NNNN (ABHA v3) or NNNNNNNNNNNNNN (HIE-CM); no prefix is required (§8). Checked by lintClinicalInput, which build runs.',
  },
  { code: 'doctor-without-identifier', severity: 'warning', description: 'The doctor has neither licNumber nor hpId; prescriptions need the registration number.' },
  { code: 'hospital-id-differs-from-hip-id', severity: 'warning', description: 'bundleData.hospital.id differs from the request hipId.' },
];

const RULES = new Map(LINT_RULES.map((r) => [r.code, r]));

/** Bidirectional embedding, override and isolate controls: text that displays in another order than it is stored. */
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/;
/** An ABHA number: 14 digits, as 91-1234-5678-9012 or without the hyphens. */
const ABHA_NUMBER = /^\d{2}(-?)\d{4}\1\d{4}\1\d{4}$/;
const MEDICATION_TEXT = ['drugName', 'dosage', 'frequency', 'duration', 'instructions'] as const;

/** True when an absolute URL has a user name or password before the host. */
function hasCredentials(url: string): boolean {
  try {
    const u = new URL(url);
    return u.username !== '' || u.password !== '';
  } catch {
    // Not a URL the platform parses: look for user@host in the authority.
    return /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(url);
  }
}

/**
 * Checks what a clinical input carries that the link request does not:
 * today the patient's ABHA number (rule `abha-number-shape`). `build`,
 * {@link buildLinkRequest} (with lint on), rendering and FHIR conversion of
 * a clinical input run it. Findings never contain values from the input.
 *
 * @example
 * lintClinicalInput({ ...input, patient: { abhaAddress: 'asha.verma@sbx', ABHANumber: '1234' } })
 * //=> [{ path: '/patient/ABHANumber', code: 'abha-number-shape', severity: 'warning', message: 'ABHANumber must be ...' }]
 */
export function lintClinicalInput(input: ClinicalInput, options: Pick<LintOptions, 'disable'> = {}): Issue[] {
  const out: Issue[] = [];
  const n = input.patient.ABHANumber;
  if (n !== undefined && !ABHA_NUMBER.test(n.trim()) && !(options.disable ?? []).includes('abha-number-shape'))
    out.push({
      path: '/patient/ABHANumber',
      code: 'abha-number-shape',
      severity: 'warning',
      message: 'ABHANumber must be the 14-digit ABHA number, as 91-1234-5678-9012 or 91123456789012',
    });
  return out;
}

/**
 * Checks a schema-valid link request against ABDM's downstream rules.
 *
 * Run it after {@link validateLinkRequest} succeeded: it assumes the types of
 * the schema. Returns every finding; an empty array means nothing to report.
 * Findings never contain values from the request.
 *
 * @example
 * lintLinkRequest(req, { now: new Date() })
 * //=> [{ path: '/careContexts/1/referenceNumber', code: 'duplicate-reference-number',
 * //      severity: 'error', message: 'referenceNumber repeats the one of careContexts[0]; ...' }]
 */
export function lintLinkRequest(request: LinkCareContextRequest, options: LintOptions = {}): Issue[] {
  const out: Issue[] = [];
  const disabled = new Set(options.disable ?? []);
  const report = (path: string, code: string, message: string): void => {
    if (disabled.has(code)) return;
    const rule = RULES.get(code);
    out.push({ path, code, message, severity: rule?.severity ?? 'error' });
  };

  const abha = request.abhaAddress;
  const at = abha.lastIndexOf('@');
  const suffixes = options.abhaAddressSuffixes ?? DEFAULT_ABHA_ADDRESS_SUFFIXES;
  if (at < 0 || !ABHA_ADDRESS_LOCAL.test(abha.slice(0, at)) || !suffixes.includes(abha.slice(at + 1))) {
    report('/abhaAddress', 'abha-address-shape', `abhaAddress must look like name@${suffixes.join(' or name@')}: letters and digits, with . or _ inside`);
  }

  if (options.now !== undefined) {
    const today = calendarDateIn(options.now, options.timeZone ?? DEFAULT_TIME_ZONE);
    if (request.visitDate > today) report('/visitDate', 'visit-date-in-future', 'visitDate is in the future in the facility time zone');
  }

  if (request.careContexts.length === 0) {
    report('/careContexts', 'empty-care-contexts', 'careContexts is empty: add at least one care context to link');
  }

  const hiTypes = options.hiTypes ?? HI_TYPES;
  const firstIndexOf = new Map<string, number>();
  request.careContexts.forEach((cc, i) => {
    const seen = firstIndexOf.get(cc.referenceNumber);
    if (seen === undefined) firstIndexOf.set(cc.referenceNumber, i);
    else report(pointer('careContexts', i, 'referenceNumber'), 'duplicate-reference-number', `referenceNumber repeats the one of careContexts[${seen}]; each care context needs its own`);
    lintCareContext(cc, i, request, hiTypes, report);
  });
  return out;
}

function lintCareContext(cc: CareContext, i: number, request: LinkCareContextRequest, hiTypes: readonly string[], report: (path: string, code: string, message: string) => void): void {
  const base = ['careContexts', i] as const;
  if (cc.referenceNumber.length > ABDM_LABEL_MAX) report(pointer(...base, 'referenceNumber'), 'reference-number-too-long', `referenceNumber must be at most ${ABDM_LABEL_MAX} characters for ABDM`);
  if (!ABDM_REFERENCE_CHARS.test(cc.referenceNumber))
    report(pointer(...base, 'referenceNumber'), 'reference-number-characters', 'referenceNumber may only use letters, digits, space and _ - @ , . ( ) / : \\ (ABDM rejects others)');
  if (cc.display.length > ABDM_LABEL_MAX) report(pointer(...base, 'display'), 'display-too-long', `display must be at most ${ABDM_LABEL_MAX} characters for ABDM`);
  if (!ABDM_DISPLAY_CHARS.test(cc.display))
    report(pointer(...base, 'display'), 'display-characters', 'display may only use letters, digits, space and _ - @ , . " \' : | ( ) / (ABDM rejects others, including non-Latin text)');
  if (!hiTypes.includes(cc.hiType)) report(pointer(...base, 'hiType'), 'unknown-hi-type', `hiType must be one of ${hiTypes.join(', ')}`);

  const b = cc.bundleData;
  const bd = [...base, 'bundleData'] as const;
  if (b.documentUrl !== undefined && !/^https:\/\//i.test(b.documentUrl)) report(pointer(...bd, 'documentUrl'), 'document-url-not-https', 'documentUrl must be an https:// URL');
  if (b.documentUrl !== undefined && hasCredentials(b.documentUrl))
    report(
      pointer(...bd, 'documentUrl'),
      'document-url-credentials',
      'documentUrl carries a user name or password before the host (user:pass@); everyone who reads the record sees them: give a link that needs no credentials in it',
    );
  if (b.hospital.id !== request.hipId) report(pointer(...bd, 'hospital', 'id'), 'hospital-id-differs-from-hip-id', 'hospital.id differs from hipId; they normally name the same facility');
  if (b.doctor.licNumber === undefined && b.doctor.hpId === undefined)
    report(pointer(...bd, 'doctor'), 'doctor-without-identifier', 'doctor has neither licNumber nor hpId; give the registration number');

  b.diagnosis?.forEach((d, j) => {
    if (d.icdCode === undefined) return;
    const path = pointer(...bd, 'diagnosis', j, 'icdCode');
    if (!ICD10_PERMISSIVE.test(d.icdCode)) report(path, 'icd10-shape', 'icdCode must be an ICD-10 code such as E11.9 (upper-case letter, two digits, optional . and sub-code)');
    else if (!ICD10_WHO.test(d.icdCode)) report(path, 'icd10-not-who', 'icdCode looks like ICD-10-CM, not WHO ICD-10 as used by ABDM (e.g. E11.9)');
  });
  b.medications?.forEach((m, j) => {
    if (m.dosage === undefined || m.dosage.trim() === '') report(pointer(...bd, 'medications', j, 'dosage'), 'medication-without-dosage', 'dosage is missing; say how much per dose, e.g. 1 tablet');
    if (m.frequency === undefined || m.frequency.trim() === '')
      report(pointer(...bd, 'medications', j, 'frequency'), 'medication-without-frequency', 'frequency is missing; say how often, e.g. 1-0-1 or BD');
    else if (readFrequency(m.frequency).kind === 'text')
      report(
        pointer(...bd, 'medications', j, 'frequency'),
        'frequency-not-understood',
        'frequency is kept as written but is none of the notations abha-link reads (e.g. 1-0-1, ½-0-½, OD, BD, TDS, QID, HS, SOS, Q6H, twice daily); FHIR gets no timing from it',
      );
    for (const k of MEDICATION_TEXT) {
      const v = m[k];
      if (v !== undefined && BIDI_CONTROL.test(v))
        report(
          pointer(...bd, 'medications', j, k),
          'bidi-control-in-medication',
          `${k} holds a bidirectional control character (U+202A-U+202E or U+2066-U+2069) that can make the printed text read differently from what is stored; remove it`,
        );
    }
  });

  // hiType vs content: what each type holds and expects is a fact of spec/hi-types.ts.
  const present = contentPresent(b, { blankText: true });
  switch (cc.hiType) {
    case 'Prescription':
      if (!hasExpectedContent('Prescription', present))
        report(pointer(...bd, 'medications'), 'prescription-without-medication', 'a Prescription care context needs at least one medication or a documentUrl');
      // One finding per present field the Prescription profile has no place for, at its own path:
      // the message names only what is there.
      for (const field of contentOutside('Prescription', present)) {
        const them = field === 'labInvestigations' || field === 'diagnosis' || field === 'medications' ? 'them' : 'it';
        report(
          pointer(...bd, field),
          'prescription-extra-content',
          `${field} ${them === 'them' ? 'are' : 'is'} kept in the link request and on the printed prescription, but the FHIR Prescription profile has no place for ${them}; use hiType OPConsultation to carry ${them} into FHIR too`,
        );
      }
      break;
    case 'DiagnosticReport':
      if (!hasExpectedContent('DiagnosticReport', present))
        report(pointer(...bd), 'diagnostic-report-without-content', 'a DiagnosticReport care context has neither labInvestigations nor a documentUrl');
      break;
    case 'HealthDocumentRecord':
      if (!hasExpectedContent('HealthDocumentRecord', present))
        report(pointer(...bd, 'documentUrl'), 'health-document-without-url', 'a HealthDocumentRecord care context should carry the documentUrl');
      break;
    default:
      break;
  }
}
