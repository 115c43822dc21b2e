/**
 * Lint rules: what the schema accepts but ABDM, downstream of the service,
 * would reject or mishandle later. Sources: shared/reference/abdm-and-fhir.md
 * (section numbers in each rule's description).
 */
import { pointer, type Issue, type Severity } from '../errors.js';
import { readFrequency } from '../spec/frequency.js';
import type { CareContext, CareContextInput, ClinicalInput, Diagnosis, LinkCareContextRequest, Medication } from '../generated/types.js';
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
  ICD11_MMS,
} from '../spec/constants.js';
import { CLINICAL_ONLY_CONTENT, HI_TYPE_FACTS, contentOutside, contentPresent, explainHiTypeForContent, hasExpectedContent, isHiType, type ContentField, type HiType } from '../spec/hi-types.js';
import { careContentsOf, lineFindings, totalFindings, type CareContent } from './care-content.js';
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
  readonly code: LintCode;
  readonly severity: Severity;
  readonly description: string;
}

/** JSON Pointer tokens. */
type Tokens = ReadonlyArray<string | number>;

/** What each scope's rules look at; the driver visits them in this order per care context. */
interface Subjects {
  /** A clinical input (lintClinicalInput). */
  readonly clinicalInput: ClinicalInput;
  /** The link request as a whole. */
  readonly request: LinkCareContextRequest;
  /** One care context: its labels and bundle metadata. */
  readonly careContext: CareContext;
  /** One diagnosis of a care context. */
  readonly diagnosis: Diagnosis;
  /** One medication of a care context. */
  readonly medication: Medication;
  /** A care context's content against its hiType, after its items. */
  readonly content: CareContext;
}
type RuleScope = keyof Subjects;

/** What a check of a clinical input gets besides its subject. */
interface InputRun {
  /** Pointer tokens of the subject. */
  readonly at: Tokens;
  /** Reports a finding of the rule being run, at `at` followed by `below`. */
  report(message: string, ...below: Tokens): void;
}

/** What a check of a link request (or a part of it) gets besides its subject. */
interface RequestRun extends InputRun {
  readonly request: LinkCareContextRequest;
  /** Index of the subject in its list (care context, diagnosis, medication); 0 for the request. */
  readonly index: number;
  readonly now: Date | undefined;
  readonly timeZone: string;
  readonly hiTypes: readonly string[];
  readonly abhaAddressSuffixes: readonly string[];
  /** The index of each referenceNumber's first use. */
  readonly firstUse: ReadonlyMap<string, number>;
}

/** A clinical input's run: its care contexts listed once for every rule. */
interface ClinicalInputRun extends InputRun {
  /** Each care context's content as given (the input itself for top-level content), with its pointer tokens. */
  readonly contents: ReadonlyArray<{ readonly content: CareContextInput; readonly at: Tokens }>;
  /** Each care context's content with its hiType, given or chosen from the content ({@link careContentsOf}). */
  readonly careContents: readonly CareContent[];
}

type RunOf<S extends RuleScope> = S extends 'clinicalInput' ? ClinicalInputRun : RequestRun;

/** A lint rule: its metadata and its check, together. */
type RuleOf<S extends RuleScope> = {
  readonly code: string;
  readonly severity: Severity;
  readonly description: string;
  readonly scope: S;
  /** Reports every finding of the rule on one subject through `run.report`. */
  readonly check: (subject: Subjects[S], run: RunOf<S>) => void;
};
type RuleDefinition = { [S in RuleScope]: RuleOf<S> }[RuleScope];

/** Bidirectional embedding, override and isolate controls: text that displays in another order than it is stored. */
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/;
/** An ABHA number: 14 digits, as 91-1234-5678-9012 or without the hyphens. */
const ABHA_NUMBER = /^\d{2}(-?)\d{4}\1\d{4}\1\d{4}$/;
const MEDICATION_TEXT = ['drugName', 'dosage', 'frequency', 'duration', 'instructions'] as const;

/** True when an absolute URL has a user name or password before the host. */
function hasCredentials(url: string): boolean {
  // A URL's user name and password end at an '@' (WHATWG URL, authority state): without one there are none, and no URL to parse.
  if (!url.includes('@')) return false;
  try {
    const u = new URL(url);
    return u.username !== '' || u.password !== '';
  } catch {
    // Not a URL the platform parses: look for user@host in the authority.
    return /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(url);
  }
}

const blank = (v: string | undefined): boolean => v === undefined || v.trim() === '';

/** The care contexts of a clinical input, each with its pointer tokens. */
function contentsOf(input: ClinicalInput): Array<{ content: CareContextInput; at: Tokens }> {
  return input.careContexts !== undefined ? input.careContexts.map((content, i) => ({ content, at: ['careContexts', i] })) : [{ content: input, at: [] }];
}

/** The care contexts of a clinical input given as `hiType` (explicitly), each with its pointer tokens. */
function contentsTyped(run: ClinicalInputRun, hiType: HiType): ClinicalInputRun['contents'] {
  return run.contents.filter(({ content }) => content.hiType?.trim() === hiType);
}

/**
 * Every rule, in the order its findings are reported: request rules, then
 * for each care context its own rules, its diagnoses', its medications' and
 * its content rules. Adding a rule: one object here and one row in the
 * README's lint table (test/lint-rules.test.ts checks both).
 */
const RULE_DEFINITIONS = [
  {
    code: 'abha-address-shape',
    severity: 'error',
    description: 'abhaAddress is not an ABHA address such as name@abdm or name@sbx (§8).',
    scope: 'request',
    check(request, run) {
      const abha = request.abhaAddress;
      const at = abha.lastIndexOf('@');
      const suffixes = run.abhaAddressSuffixes;
      if (at < 0 || !ABHA_ADDRESS_LOCAL.test(abha.slice(0, at)) || !suffixes.includes(abha.slice(at + 1)))
        run.report(`abhaAddress must look like name@${suffixes.join(' or name@')}: letters and digits, with . or _ inside`, 'abhaAddress');
    },
  },
  {
    code: 'visit-date-in-future',
    severity: 'error',
    description: 'visitDate is after today in the facility time zone (runs only when `now` is given).',
    scope: 'request',
    check(request, run) {
      if (run.now !== undefined && request.visitDate > calendarDateIn(run.now, run.timeZone)) run.report('visitDate is in the future in the facility time zone', 'visitDate');
    },
  },
  {
    code: 'empty-care-contexts',
    severity: 'error',
    description: 'careContexts is empty: there is nothing to link.',
    scope: 'request',
    check(request, run) {
      if (request.careContexts.length === 0) run.report('careContexts is empty: add at least one care context to link', 'careContexts');
    },
  },
  {
    code: 'duplicate-reference-number',
    severity: 'error',
    description: 'Two care contexts share a referenceNumber; ABDM needs it unique per care context (§9.2).',
    scope: 'careContext',
    check(cc, run) {
      const seen = run.firstUse.get(cc.referenceNumber);
      if (seen !== undefined && seen < run.index) run.report(`referenceNumber repeats the one of careContexts[${seen}]; each care context needs its own`, 'referenceNumber');
    },
  },
  {
    code: 'reference-number-too-long',
    severity: 'error',
    description: "referenceNumber is longer than ABDM's 255 characters (§9.2).",
    scope: 'careContext',
    check(cc, run) {
      if (cc.referenceNumber.length > ABDM_LABEL_MAX) run.report(`referenceNumber must be at most ${ABDM_LABEL_MAX} characters for ABDM`, 'referenceNumber');
    },
  },
  {
    code: 'reference-number-characters',
    severity: 'error',
    description: "referenceNumber has characters ABDM's linking API rejects; allowed: letters, digits, space and _ - @ , . ( ) / : \\ (§9.2).",
    scope: 'careContext',
    check(cc, run) {
      if (!ABDM_REFERENCE_CHARS.test(cc.referenceNumber)) run.report('referenceNumber may only use letters, digits, space and _ - @ , . ( ) / : \\ (ABDM rejects others)', 'referenceNumber');
    },
  },
  {
    code: 'display-too-long',
    severity: 'error',
    description: "display is longer than ABDM's 255 characters (§9.2).",
    scope: 'careContext',
    check(cc, run) {
      if (cc.display.length > ABDM_LABEL_MAX) run.report(`display must be at most ${ABDM_LABEL_MAX} characters for ABDM`, 'display');
    },
  },
  {
    code: 'display-characters',
    severity: 'error',
    description: "display has characters ABDM's linking API rejects; allowed: letters, digits, space and _ - @ , . \" ' : | ( ) / (§9.2).",
    scope: 'careContext',
    check(cc, run) {
      if (!ABDM_DISPLAY_CHARS.test(cc.display)) run.report('display may only use letters, digits, space and _ - @ , . " \' : | ( ) / (ABDM rejects others, including non-Latin text)', 'display');
    },
  },
  {
    code: 'unknown-hi-type',
    severity: 'error',
    description: "hiType is not one of ABDM's hiType codes (§1).",
    scope: 'careContext',
    check(cc, run) {
      if (!run.hiTypes.includes(cc.hiType)) run.report(`hiType must be one of ${run.hiTypes.join(', ')}`, 'hiType');
    },
  },
  {
    code: 'document-url-not-https',
    severity: 'error',
    description: 'documentUrl is not an https URL.',
    scope: 'careContext',
    check(cc, run) {
      const url = cc.bundleData.documentUrl;
      if (url !== undefined && !/^https:\/\//i.test(url)) run.report('documentUrl must be an https:// URL', 'bundleData', 'documentUrl');
    },
  },
  {
    code: 'document-url-credentials',
    severity: 'warning',
    description: 'documentUrl carries a user name or password (user:pass@host): every reader of the record sees it (RFC 3986 §3.2.1, deprecated).',
    scope: 'careContext',
    check(cc, run) {
      const url = cc.bundleData.documentUrl;
      if (url !== undefined && hasCredentials(url))
        run.report(
          'documentUrl carries a user name or password before the host (user:pass@); everyone who reads the record sees them: give a link that needs no credentials in it',
          'bundleData',
          'documentUrl',
        );
    },
  },
  {
    code: 'hospital-id-differs-from-hip-id',
    severity: 'warning',
    description: 'bundleData.hospital.id differs from the request hipId.',
    scope: 'careContext',
    check(cc, run) {
      if (cc.bundleData.hospital.id !== run.request.hipId) run.report('hospital.id differs from hipId; they normally name the same facility', 'bundleData', 'hospital', 'id');
    },
  },
  {
    code: 'doctor-without-identifier',
    severity: 'warning',
    description: 'The doctor has neither licNumber nor hpId; prescriptions need the registration number.',
    scope: 'careContext',
    check(cc, run) {
      const d = cc.bundleData.doctor;
      if (d.licNumber === undefined && d.hpId === undefined) run.report('doctor has neither licNumber nor hpId; give the registration number', 'bundleData', 'doctor');
    },
  },
  {
    code: 'icd10-shape',
    severity: 'error',
    description:
      'icdCode has the shape of neither an ICD-10 code (E11.9: letter, two digits, optional . and sub-code) nor an ICD-11 MMS code (1A00, CA40.0, with & or / postcoordination such as CA40.0&XN8C1) (§8).',
    scope: 'diagnosis',
    check(d, run) {
      if (d.icdCode !== undefined && !ICD10_PERMISSIVE.test(d.icdCode) && !ICD11_MMS.test(d.icdCode))
        run.report(
          'icdCode must be an ICD-10 code such as E11.9 (upper-case letter, two digits, optional . and sub-code) or an ICD-11 MMS code such as 1A00 or CA40.0 (digit or letter, letter, digit, digit or letter, optional . and sub-code)',
          'icdCode',
        );
    },
  },
  {
    code: 'icd10-not-who',
    severity: 'warning',
    description: 'icdCode looks like ICD-10-CM rather than WHO ICD-10 (letter, two digits, optional .digit or .digits) (§8).',
    scope: 'diagnosis',
    check(d, run) {
      if (d.icdCode !== undefined && ICD10_PERMISSIVE.test(d.icdCode) && !ICD10_WHO.test(d.icdCode)) run.report('icdCode looks like ICD-10-CM, not WHO ICD-10 as used by ABDM (e.g. E11.9)', 'icdCode');
    },
  },
  {
    code: 'medication-without-dosage',
    severity: 'warning',
    description: 'A medication has no dosage.',
    scope: 'medication',
    check(m, run) {
      if (blank(m.dosage)) run.report('dosage is missing; say how much per dose, e.g. 1 tablet', 'dosage');
    },
  },
  {
    code: 'medication-without-frequency',
    severity: 'warning',
    description: 'A medication has no frequency.',
    scope: 'medication',
    check(m, run) {
      if (blank(m.frequency)) run.report('frequency is missing; say how often, e.g. 1-0-1 or BD', 'frequency');
    },
  },
  {
    code: 'frequency-without-dose',
    severity: 'error',
    description: 'A medication frequency is a dose pattern with no dose at any time (0-0-0, 0-0-0-0): it says to take nothing, so it cannot be printed or coded.',
    scope: 'medication',
    check(m, run) {
      const f = m.frequency === undefined ? undefined : readFrequency(m.frequency);
      if (f?.kind === 'pattern' && f.timesPerDay === 0)
        run.report('frequency is a dose pattern with no dose at any time (such as 0-0-0); give at least one dose above zero, e.g. 1-0-1, or leave the frequency out', 'frequency');
    },
  },
  {
    code: 'frequency-not-understood',
    severity: 'warning',
    description:
      'A medication frequency is none of the notations abha-link reads (1-0-1, ½-0-½, 1-0-1-0-1, OD, BD, TDS, QID, HS, SOS, STAT, Q6H, weekly, alternate days, named weekdays, "twice daily"…): it is kept as written, but FHIR gets no timing from it.',
    scope: 'medication',
    check(m, run) {
      if (m.frequency !== undefined && !blank(m.frequency) && readFrequency(m.frequency).kind === 'text')
        run.report(
          'frequency is kept as written but is none of the notations abha-link reads (e.g. 1-0-1, ½-0-½, OD, BD, TDS, QID, HS, SOS, Q6H, once a week, alternate days, every Monday, twice daily); FHIR gets no timing from it',
          'frequency',
        );
    },
  },
  {
    code: 'bidi-control-in-medication',
    severity: 'warning',
    description:
      'A medication text (drug, dose, frequency, duration, instructions) holds a bidirectional control character (U+202A-U+202E, U+2066-U+2069), which can make the printed text read differently from what is stored (CVE-2021-42574, "Trojan Source").',
    scope: 'medication',
    check(m, run) {
      for (const k of MEDICATION_TEXT) {
        const v = m[k];
        if (v !== undefined && BIDI_CONTROL.test(v))
          run.report(`${k} holds a bidirectional control character (U+202A-U+202E or U+2066-U+2069) that can make the printed text read differently from what is stored; remove it`, k);
      }
    },
  },
  {
    code: 'prescription-without-medication',
    severity: 'error',
    description: 'A Prescription care context has neither medications nor a documentUrl; a PrescriptionRecord needs at least one (§4.1).',
    scope: 'content',
    check(cc, run) {
      if (cc.hiType === 'Prescription' && !hasExpectedContent('Prescription', contentPresent(cc.bundleData, { blankText: true })))
        run.report('a Prescription care context needs at least one medication or a documentUrl', 'bundleData', 'medications');
    },
  },
  {
    code: 'prescription-extra-content',
    severity: 'warning',
    description:
      'A Prescription care context carries labInvestigations or advice: they stay in the link request and on the printed page, but the FHIR PrescriptionRecord has no place for them; OPConsultation carries them into FHIR too (§4.1, §4.2).',
    scope: 'content',
    check(cc, run) {
      if (cc.hiType !== 'Prescription') return;
      // One finding per present field the profile has no place for, at its own path: the message names only what is there.
      for (const field of contentOutside('Prescription', contentPresent(cc.bundleData, { blankText: true }))) {
        const them = field === 'advice' || field === 'documentUrl' ? 'it' : 'them';
        run.report(
          `${field} ${them === 'it' ? 'is' : 'are'} kept in the link request and on the printed prescription, but the FHIR Prescription profile has no place for ${them}; use hiType OPConsultation to carry ${them} into FHIR too`,
          'bundleData',
          field,
        );
      }
    },
  },
  {
    code: 'diagnostic-report-without-content',
    severity: 'warning',
    description: 'A DiagnosticReport care context has neither labInvestigations nor a documentUrl (§4.3).',
    scope: 'content',
    check(cc, run) {
      if (cc.hiType === 'DiagnosticReport' && !hasExpectedContent('DiagnosticReport', contentPresent(cc.bundleData, { blankText: true })))
        run.report('a DiagnosticReport care context has neither labInvestigations nor a documentUrl', 'bundleData');
    },
  },
  {
    code: 'health-document-without-url',
    severity: 'warning',
    description: 'A HealthDocumentRecord care context has no documentUrl (§4.4).',
    scope: 'content',
    check(cc, run) {
      if (cc.hiType === 'HealthDocumentRecord' && !hasExpectedContent('HealthDocumentRecord', contentPresent(cc.bundleData, { blankText: true })))
        run.report('a HealthDocumentRecord care context should carry the documentUrl', 'bundleData', 'documentUrl');
    },
  },
  {
    code: 'discharge-summary-without-stay',
    severity: 'warning',
    description:
      'A DischargeSummary care context of a clinical input has neither an inpatientStay nor a documentUrl: its FHIR DischargeSummaryRecord has no admission, course or discharge to tell of (§4.5). Checked by lintClinicalInput.',
    scope: 'clinicalInput',
    check(input, run) {
      for (const { content, at } of contentsTyped(run, 'DischargeSummary'))
        if (!hasExpectedContent('DischargeSummary', contentPresent(content)))
          run.report('a DischargeSummary care context needs the inpatientStay (admission, course, discharge) or the documentUrl of the summary', ...at, 'inpatientStay');
    },
  },
  {
    code: 'immunization-record-without-immunizations',
    severity: 'warning',
    description: 'An ImmunizationRecord care context of a clinical input has neither immunizations nor a documentUrl (§4.5). Checked by lintClinicalInput.',
    scope: 'clinicalInput',
    check(input, run) {
      for (const { content, at } of contentsTyped(run, 'ImmunizationRecord'))
        if (!hasExpectedContent('ImmunizationRecord', contentPresent(content)))
          run.report('an ImmunizationRecord care context needs immunizations (the vaccines given) or the documentUrl of the certificate', ...at, 'immunizations');
    },
  },
  {
    code: 'clinical-content-outside-hi-type',
    severity: 'warning',
    description:
      'A care context of a clinical input gives an inpatientStay or immunizations, but its hiType is one whose FHIR record has no place for them: they are left out of its FHIR document (use DischargeSummary or ImmunizationRecord). Checked by lintClinicalInput.',
    scope: 'clinicalInput',
    check(input, run) {
      for (const { content, at } of run.contents) {
        const hiType = content.hiType?.trim();
        if (hiType === undefined || !isHiType(hiType)) continue;
        const present = contentPresent(content);
        for (const [field, home] of Object.entries(CLINICAL_ONLY_CONTENT) as Array<[ContentField, HiType]>)
          if (present.has(field) && !(HI_TYPE_FACTS[hiType].holds as readonly string[]).includes(field))
            run.report(`${field} has no place in the FHIR record of this care context's hiType and is left out of it; use hiType ${home} to carry it`, ...at, field);
      }
    },
  },
  {
    code: 'hi-type-inferred',
    severity: 'information',
    description:
      'A care context of a clinical input gives no hiType, so abha-link chose one from its content (medications alone make a Prescription; advice or lab orders beside them an OPConsultation): the finding says which and why. Set hiType to choose it yourself. Checked by lintClinicalInput, which build runs.',
    scope: 'clinicalInput',
    check(input, run) {
      for (const { content, at } of run.contents) {
        if (!blank(content.hiType)) continue;
        const { hiType, reason, passedOver } = explainHiTypeForContent(contentPresent(content));
        run.report(
          `hiType is not given, so ${hiType} was chosen from the content: ${reason}; set "hiType" on this care context to choose it yourself, e.g. "hiType": "${passedOver ?? hiType}"`,
          ...at,
          'hiType',
        );
      }
    },
  },
  {
    code: 'abha-number-shape',
    severity: 'warning',
    description:
      'patient.ABHANumber of a clinical input is not an ABHA number of 14 digits: NN-NNNN-NNNN-NNNN (ABHA v3) or NNNNNNNNNNNNNN (HIE-CM); no prefix is required (§8). Checked by lintClinicalInput, which build runs.',
    scope: 'clinicalInput',
    check(input, run) {
      const n = input.patient.ABHANumber;
      if (n !== undefined && !ABHA_NUMBER.test(n.trim())) run.report('ABHANumber must be the 14-digit ABHA number, as 91-1234-5678-9012 or 91123456789012', 'patient', 'ABHANumber');
    },
  },
  {
    code: 'observations-outside-wellness-record',
    severity: 'warning',
    description:
      'A care context carries observations (vitals, body measurements, lifestyle) but its hiType is not WellnessRecord: they are printed, but only a WellnessRecord carries them into FHIR. Checked by lintClinicalInput.',
    scope: 'clinicalInput',
    check(input, run) {
      for (const c of run.careContents)
        if (c.content.observations !== undefined && c.hiType !== 'WellnessRecord')
          run.report('observations are printed, but only a WellnessRecord carries them into FHIR; give them their own care context with hiType WellnessRecord', ...c.at, 'observations');
    },
  },
  {
    code: 'invoice-outside-invoice-record',
    severity: 'warning',
    description: 'A care context carries an invoice but its hiType is not Invoice: it is printed, but only an Invoice (InvoiceRecord) carries it into FHIR. Checked by lintClinicalInput.',
    scope: 'clinicalInput',
    check(input, run) {
      for (const c of run.careContents)
        if (c.content.invoice !== undefined && c.hiType !== 'Invoice')
          run.report('the invoice is printed, but only an Invoice care context carries it into FHIR; give it its own care context with hiType Invoice', ...c.at, 'invoice');
    },
  },
  {
    code: 'wellness-record-without-observations',
    severity: 'warning',
    description: 'A WellnessRecord care context of a clinical input has neither observations nor a documentUrl (§4.6). Checked by lintClinicalInput.',
    scope: 'clinicalInput',
    check(input, run) {
      for (const c of run.careContents)
        if (c.hiType === 'WellnessRecord' && !hasExpectedContent('WellnessRecord', contentPresent(c.content)))
          run.report('a WellnessRecord care context has neither observations nor a documentUrl: give the vital signs, body measurements or lifestyle', ...c.at);
    },
  },
  {
    code: 'invoice-record-without-invoice',
    severity: 'warning',
    description: 'An Invoice care context of a clinical input has no invoice (number, lines, total) (§4.7). Checked by lintClinicalInput.',
    scope: 'clinicalInput',
    check(input, run) {
      for (const c of run.careContents)
        if (c.hiType === 'Invoice' && !hasExpectedContent('Invoice', contentPresent(c.content))) run.report('an Invoice care context has no invoice: give its number, lines and total', ...c.at);
    },
  },
  {
    code: 'invoice-line-arithmetic',
    severity: 'warning',
    description: 'An invoice line does not add up: total is not quantity x unitPrice - discount + tax, or tax.amount is not tax.rate percent (to the paisa). Checked by lintClinicalInput.',
    scope: 'clinicalInput',
    check(input, run) {
      for (const c of run.careContents) if (c.content.invoice !== undefined) for (const f of lineFindings(c.content.invoice)) run.report(f.message, ...c.at, 'invoice', ...f.below);
    },
  },
  {
    code: 'invoice-total-arithmetic',
    severity: 'warning',
    description: 'An invoice total is not the sum of its line totals, or more was paid than the total (to the paisa). Checked by lintClinicalInput.',
    scope: 'clinicalInput',
    check(input, run) {
      for (const c of run.careContents) if (c.content.invoice !== undefined) for (const f of totalFindings(c.content.invoice)) run.report(f.message, ...c.at, 'invoice', ...f.below);
    },
  },
  {
    code: 'medication-without-generic-name',
    severity: 'warning',
    description:
      'A medication of a clinical input has no genericName: the Indian Medical Council regulations recommend prescribing by generic name, legibly (a recommendation, so a warning). Checked by lintClinicalInput, which build runs.',
    scope: 'clinicalInput',
    check(input, run) {
      const lists = input.careContexts === undefined ? [{ meds: input.medications, at: [] as string[] }] : input.careContexts.map((c, i) => ({ meds: c.medications, at: ['careContexts', String(i)] }));
      for (const { meds, at } of lists)
        (meds ?? []).forEach((m, i) => {
          if (m.genericName === undefined || m.genericName.trim() === '')
            run.report('this medication has no genericName; give the generic name (printed with the brand)', ...at, 'medications', String(i));
        });
    },
  },
] as const satisfies readonly RuleDefinition[];

/** The code of a lint rule, e.g. `'icd10-not-who'`. */
export type LintCode = (typeof RULE_DEFINITIONS)[number]['code'];

/** Every lint rule, with its code, severity and what it checks, in the order findings are reported. */
export const LINT_RULES: readonly LintRule[] = RULE_DEFINITIONS.map(({ code, severity, description }) => ({ code, severity, description }));

/** The rules of one scope, in list order. */
function rulesOf<S extends RuleScope>(scope: S): ReadonlyArray<RuleOf<S>> {
  return (RULE_DEFINITIONS as readonly RuleDefinition[]).filter((r): r is RuleDefinition & RuleOf<S> => r.scope === scope);
}

const SCOPES: { readonly [S in RuleScope]: ReadonlyArray<RuleOf<S>> } = {
  clinicalInput: rulesOf('clinicalInput'),
  request: rulesOf('request'),
  careContext: rulesOf('careContext'),
  diagnosis: rulesOf('diagnosis'),
  medication: rulesOf('medication'),
  content: rulesOf('content'),
};

/** Runs the rules of each scope on its subjects and collects their findings. */
function findingsCollector(disabled: ReadonlySet<string>, severityFirst: boolean) {
  const issues: Issue[] = [];
  let rule: Pick<RuleDefinition, 'code' | 'severity'> | undefined;
  const report =
    (at: Tokens) =>
    (message: string, ...below: Tokens): void => {
      if (rule === undefined) return;
      const path = pointer(...at, ...below);
      // Clinical-input findings have listed severity before the message since 0.1; keep each key order.
      issues.push(severityFirst ? { path, code: rule.code, severity: rule.severity, message } : { path, code: rule.code, message, severity: rule.severity });
    };
  function visit<S extends RuleScope>(scope: S, subject: Subjects[S], run: RunOf<S>): void {
    for (const r of SCOPES[scope]) {
      if (disabled.has(r.code)) continue;
      rule = r;
      r.check(subject, run);
    }
    rule = undefined;
  }
  return { issues, report, visit };
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
  const f = findingsCollector(new Set(options.disable ?? []), true);
  f.visit('clinicalInput', input, { at: [], report: f.report([]), contents: contentsOf(input), careContents: careContentsOf(input) });
  return f.issues;
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
  const f = findingsCollector(new Set(options.disable ?? []), false);
  const firstUse = new Map<string, number>();
  request.careContexts.forEach((cc, i) => {
    if (!firstUse.has(cc.referenceNumber)) firstUse.set(cc.referenceNumber, i);
  });
  const now = options.now;
  const timeZone = options.timeZone ?? DEFAULT_TIME_ZONE;
  const hiTypes = options.hiTypes ?? HI_TYPES;
  const abhaAddressSuffixes = options.abhaAddressSuffixes ?? DEFAULT_ABHA_ADDRESS_SUFFIXES;
  // One object literal per subject (every care context, diagnosis and medication): no spread, which copies slowly.
  const at = (index: number, tokens: Tokens): RequestRun => ({ request, now, timeZone, hiTypes, abhaAddressSuffixes, firstUse, at: tokens, index, report: f.report(tokens) });
  f.visit('request', request, at(0, []));
  request.careContexts.forEach((cc, i) => {
    const base = ['careContexts', i] as const;
    f.visit('careContext', cc, at(i, base));
    cc.bundleData.diagnosis?.forEach((d, j) => f.visit('diagnosis', d, at(j, [...base, 'bundleData', 'diagnosis', j])));
    cc.bundleData.medications?.forEach((m, j) => f.visit('medication', m, at(j, [...base, 'bundleData', 'medications', j])));
    f.visit('content', cc, at(i, base));
  });
  return f.issues;
}
