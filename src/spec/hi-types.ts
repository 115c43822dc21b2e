/**
 * ABDM's hiTypes, one registry: each code with the facts the core knows of
 * it (its patient-facing name, the clinical content a record of that type
 * holds, what it is expected to carry, when it is the default). Labels in
 * other languages live in the render layer, the FHIR record profiles in the
 * FHIR layer; both are typed `Record<HiType, …>`, so adding a code here is a
 * compile error until every language and the FHIR layer have its entry.
 * Sources: shared/reference/abdm-and-fhir.md §1 (codes and displays), §4
 * (what each record profile has a place for).
 */
import type { CareContextInput } from '../generated/types.js';

/**
 * ABDM's hiType codes, exact spellings (reference §1: NHA ABDM-wrapper
 * `HiTypeEnum`, NHA HIE-CM hip-initiated-linking OpenAPI). The spec itself
 * only gives the example `Prescription`.
 *
 * @example
 * HI_TYPES.includes('Prescription') //=> true
 */
export const HI_TYPES = ['OPConsultation', 'Prescription', 'DischargeSummary', 'DiagnosticReport', 'ImmunizationRecord', 'HealthDocumentRecord', 'WellnessRecord', 'Invoice'] as const;

/**
 * One of ABDM's hiType codes.
 *
 * @example
 * const t: HiType = 'OPConsultation'
 */
export type HiType = (typeof HI_TYPES)[number];

/**
 * The clinical content fields of a care context (clinical input and `bundleData` alike).
 *
 * @example
 * CONTENT_FIELDS //=> ['diagnosis', 'medications', 'labInvestigations', 'advice', 'documentUrl', 'inpatientStay', 'immunizations', 'observations', 'invoice']
 */
export const CONTENT_FIELDS = ['diagnosis', 'medications', 'labInvestigations', 'advice', 'documentUrl', 'inpatientStay', 'immunizations', 'observations', 'invoice'] as const;

/** The content fields the link payload's `bundleData` carries (the others feed FHIR and printing only). */
const PAYLOAD_FIELDS = ['diagnosis', 'medications', 'labInvestigations', 'advice', 'documentUrl'] as const satisfies readonly ContentField[];

/** A clinical content field of a care context. */
export type ContentField = (typeof CONTENT_FIELDS)[number];

/** What the core knows of one hiType. */
export interface HiTypeFacts {
  /** Patient-facing English name (reference §1 "Display"); used in derived care-context displays. */
  readonly display: string;
  /** The content fields a record of this type has a place for (reference §4); other content is left out of its FHIR document. */
  readonly holds: readonly ContentField[];
  /**
   * Content a care context of this type is expected to carry at least one
   * of; lint reports one that has none. Absent: no expectation.
   */
  readonly expects?: readonly ContentField[];
  /**
   * When content given without an hiType gets this one (`defaultHiType`):
   * the content has `requires` and nothing this type does not hold. Rules
   * are tried by `rank` (lowest first); `fallback` is the type of anything
   * else. Absent: never chosen by default.
   */
  readonly chosenByDefault?: { readonly rank: number; readonly requires: ContentField } | 'fallback';
}

/**
 * The facts of every hiType (reference §1, §4). The types abha-link has
 * no FHIR record for yet hold any content and are never a default.
 *
 * @example
 * HI_TYPE_FACTS.Prescription.holds //=> ['diagnosis', 'medications', 'documentUrl']
 */
export const HI_TYPE_FACTS = {
  OPConsultation: { display: 'OP Consultation', holds: PAYLOAD_FIELDS, chosenByDefault: 'fallback' },
  Prescription: {
    display: 'Prescription',
    holds: ['diagnosis', 'medications', 'documentUrl'],
    expects: ['medications', 'documentUrl'],
    chosenByDefault: { rank: 1, requires: 'medications' },
  },
  // A discharge summary: the stay, with the discharge diagnoses, medications, advice and tests to do; or the scanned summary.
  DischargeSummary: {
    display: 'Discharge Summary',
    holds: [...PAYLOAD_FIELDS, 'inpatientStay'],
    expects: ['inpatientStay', 'documentUrl'],
    chosenByDefault: { rank: 0, requires: 'inpatientStay' },
  },
  // The link payload may name the tests; the FHIR record carries the report document only.
  DiagnosticReport: { display: 'Diagnostic Report', holds: ['documentUrl'], expects: ['labInvestigations', 'documentUrl'] },
  // Vaccines given (Immunization, next dose due) and a certificate document; nothing else has a place in the profile.
  ImmunizationRecord: {
    display: 'Immunization Record',
    holds: ['immunizations', 'documentUrl'],
    expects: ['immunizations', 'documentUrl'],
    chosenByDefault: { rank: 0, requires: 'immunizations' },
  },
  HealthDocumentRecord: { display: 'Health Document', holds: ['documentUrl'], expects: ['documentUrl'], chosenByDefault: { rank: 2, requires: 'documentUrl' } },
  // Vitals, body measurements and lifestyle (clinical input `observations`), or a document.
  WellnessRecord: { display: 'Wellness Record', holds: ['observations', 'documentUrl'], expects: ['observations', 'documentUrl'], chosenByDefault: { rank: 3, requires: 'observations' } },
  // The bill (clinical input `invoice`); InvoiceRecord's one section holds the Invoice only.
  Invoice: { display: 'Invoice', holds: ['invoice'], expects: ['invoice'], chosenByDefault: { rank: 4, requires: 'invoice' } },
} as const satisfies Record<HiType, HiTypeFacts>;

/**
 * Content only a clinical input carries (never `bundleData`), with the
 * hiType whose record has a place for it: lint and the FHIR layer warn
 * when a care context of another hiType gives it.
 *
 * @example
 * CLINICAL_ONLY_CONTENT.inpatientStay //=> 'DischargeSummary'
 */
export const CLINICAL_ONLY_CONTENT = { inpatientStay: 'DischargeSummary', immunizations: 'ImmunizationRecord' } as const satisfies Partial<Record<ContentField, HiType>>;

/** The same table, each entry seen as {@link HiTypeFacts} (its optional fields readable). */
const FACTS: Readonly<Record<HiType, HiTypeFacts>> = HI_TYPE_FACTS;

/** The rules of {@link HI_TYPE_FACTS} `chosenByDefault`, in the order they are tried; the fallback last. */
const DEFAULT_RULES: ReadonlyArray<{ readonly hiType: HiType; readonly requires?: ContentField }> = (() => {
  const ranked = HI_TYPES.flatMap((hiType) => {
    const rule = FACTS[hiType].chosenByDefault;
    return rule === undefined || rule === 'fallback' ? [] : [{ hiType, rank: rule.rank, requires: rule.requires }];
  }).sort((a, b) => a.rank - b.rank);
  const fallback = HI_TYPES.filter((t) => FACTS[t].chosenByDefault === 'fallback');
  return [...ranked.map(({ hiType, requires }) => ({ hiType, requires })), ...fallback.map((hiType) => ({ hiType }))];
})();

/**
 * Patient-facing names of each hiType (reference §1 "Display").
 *
 * @example
 * HI_TYPE_DISPLAY.OPConsultation //=> 'OP Consultation'
 */
export const HI_TYPE_DISPLAY: Readonly<Record<HiType, string>> = Object.fromEntries(HI_TYPES.map((t) => [t, FACTS[t].display])) as Record<HiType, string>;

/**
 * True when `value` is one of ABDM's hiType codes (its own entry, never an inherited name).
 *
 * @example
 * isHiType('Prescription') //=> true
 * isHiType('constructor')  //=> false
 */
export function isHiType(value: string): value is HiType {
  return Object.hasOwn(HI_TYPE_FACTS, value);
}

/** The content of a care context as far as these facts look at it. */
export interface ContentLike {
  readonly diagnosis?: readonly unknown[] | undefined;
  readonly medications?: readonly unknown[] | undefined;
  readonly labInvestigations?: readonly unknown[] | undefined;
  readonly advice?: string | undefined;
  readonly documentUrl?: string | undefined;
  readonly inpatientStay?: object | undefined;
  readonly immunizations?: readonly unknown[] | undefined;
  readonly observations?: object | undefined;
  readonly invoice?: object | undefined;
}

/**
 * The content fields a care context carries: lists that are not empty and
 * text that is not blank. With `blankText: true`, text counts when given at
 * all (a link request sends blank text as it is; the builders drop it).
 *
 * @example
 * contentPresent({ medications: [{ drugName: 'A' }], advice: '  ' })                      //=> Set { 'medications' }
 * contentPresent({ medications: [{ drugName: 'A' }], advice: '  ' }, { blankText: true }) //=> Set { 'medications', 'advice' }
 */
export function contentPresent(content: ContentLike, options: { readonly blankText?: boolean } = {}): ReadonlySet<ContentField> {
  const present = new Set<ContentField>();
  for (const field of CONTENT_FIELDS) {
    const v = content[field];
    if (Array.isArray(v) ? v.length > 0 : typeof v === 'string' ? options.blankText === true || v.trim() !== '' : isFilledObject(v)) present.add(field);
  }
  return present;
}

/** An object (not a list) with at least one field: observations or an invoice given. */
function isFilledObject(v: unknown): boolean {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0;
}

/**
 * The present content fields a record of `hiType` has no place for.
 *
 * @example
 * contentOutside('Prescription', new Set(['medications', 'advice'])) //=> ['advice']
 */
export function contentOutside(hiType: HiType, present: ReadonlySet<ContentField>): ContentField[] {
  const holds = FACTS[hiType].holds;
  return [...present].filter((f) => !holds.includes(f));
}

/**
 * False when `hiType` expects some content and none of it is present.
 *
 * @example
 * hasExpectedContent('HealthDocumentRecord', new Set(['advice'])) //=> false
 */
export function hasExpectedContent(hiType: HiType, present: ReadonlySet<ContentField>): boolean {
  const expects = FACTS[hiType].expects;
  return expects === undefined || expects.some((f) => present.has(f));
}

/**
 * The hiType of content given without one: the first `chosenByDefault`
 * rule of {@link HI_TYPE_FACTS} (by rank) that the content meets, else the
 * fallback type.
 *
 * @example
 * hiTypeForContent(new Set(['medications', 'diagnosis'])) //=> 'Prescription'
 * hiTypeForContent(new Set(['inpatientStay', 'medications'])) //=> 'DischargeSummary'
 * hiTypeForContent(new Set(['labInvestigations']))        //=> 'OPConsultation'
 */
export function hiTypeForContent(present: ReadonlySet<ContentField>): HiType {
  for (const rule of DEFAULT_RULES) if (rule.requires === undefined || meetsRule(rule.hiType, rule.requires, present)) return rule.hiType;
  return 'OPConsultation';
}

/** True when the content has what a `chosenByDefault` rule requires and nothing its type has no place for. */
function meetsRule(hiType: HiType, requires: ContentField, present: ReadonlySet<ContentField>): boolean {
  return present.has(requires) && contentOutside(hiType, present).length === 0;
}

/** The hiType {@link hiTypeForContent} chooses, why, and the type the content came closest to when another rule was passed over. */
export interface HiTypeChoice {
  readonly hiType: HiType;
  /** Why, naming content fields and hiType codes only (never a value of the content). */
  readonly reason: string;
  /** A type whose rule the content met but for content it has no place for (advice beside medications: Prescription). */
  readonly passedOver?: HiType;
}

/**
 * The hiType of content given without one ({@link hiTypeForContent}) and
 * the reason in words: the content that chose it, or what kept a more
 * specific type from being chosen. Names fields and codes only.
 *
 * @example
 * explainHiTypeForContent(new Set(['medications', 'advice']))
 * //=> { hiType: 'OPConsultation', passedOver: 'Prescription',
 * //     reason: 'it has medications, but also advice, which hiType Prescription has no place for' }
 */
export function explainHiTypeForContent(present: ReadonlySet<ContentField>): HiTypeChoice {
  const passedOver: Array<{ hiType: HiType; requires: ContentField }> = [];
  for (const { hiType, requires } of DEFAULT_RULES) {
    if (requires === undefined) {
      const why = passedOver.map((r) => `it has ${r.requires}, but also ${contentOutside(r.hiType, present).join(' and ')}, which hiType ${r.hiType} has no place for`);
      const choosing = new Set(DEFAULT_RULES.flatMap((r) => (r.requires === undefined ? [] : [r.requires])));
      const reason = why.length > 0 ? why.join('; ') : `it has ${[...present].join(', ') || 'no content'}, and none of ${[...choosing].join(', ')}, which choose another type`;
      return passedOver[0] === undefined ? { hiType, reason } : { hiType, reason, passedOver: passedOver[0].hiType };
    }
    if (meetsRule(hiType, requires, present)) {
      const others = [...present].filter((f) => f !== requires);
      return { hiType, reason: `it has ${requires}${others.length > 0 ? ` and only other content hiType ${hiType} holds (${others.join(', ')})` : ''}` };
    }
    if (present.has(requires)) passedOver.push({ hiType, requires });
  }
  return { hiType: hiTypeForContent(present), reason: 'no rule chose another type' };
}

/**
 * The hiType a care context gets when none is given, from its content
 * (the `chosenByDefault` facts of `HI_TYPE_FACTS`): an inpatient stay makes
 * a `DischargeSummary`, immunisations an `ImmunizationRecord` (each with
 * only the other content its record holds); medications alone (with
 * or without diagnoses) make a `Prescription`; a document URL alone makes a
 * `HealthDocumentRecord`; anything else (lab orders, advice, diagnoses) an
 * `OPConsultation`, the record that holds all of them.
 *
 * @example
 * defaultHiType({ medications: [{ drugName: 'Amoxicillin 500 mg' }] }) //=> 'Prescription'
 * defaultHiType({ labInvestigations: [{ testName: 'CBC' }] })          //=> 'OPConsultation'
 * defaultHiType({ inpatientStay: { admittedAt: '2026-11-15' } })       //=> 'DischargeSummary'
 */
export function defaultHiType(content: CareContextInput): HiType {
  return hiTypeForContent(contentPresent(content));
}
