/**
 * The hiType registry: the core facts (spec/hi-types.ts), the printed names
 * in every language (render/labels.ts) and the FHIR record profiles
 * (fhir/constants.ts, fhir/profiles/index.ts). The type tests below are
 * checked by `npm run typecheck` (tsc over test/): each `@ts-expect-error`
 * line says what a forgotten registry entry does, and fails the type check
 * if that mistake stops being a compile error.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ProfileBuilder } from '../src/fhir/assembly.js';
import { OTHER_RECORD_PROFILES, RECORD_PROFILES, isFhirHiType, type FhirHiType, type KnownRecordProfile, type RecordProfile } from '../src/fhir/constants.js';
import { PROFILE_BUILDERS } from '../src/fhir/profiles/index.js';
import { HI_TYPE_LABELS, LANGUAGES, type Language } from '../src/render/labels.js';
import { buildDocumentModel } from '../src/render/model.js';
import { HI_TYPES, HI_TYPE_FACTS, contentOutside, contentPresent, hasExpectedContent, hiTypeForContent, type ContentField, type HiType, type HiTypeFacts } from '../src/spec/hi-types.js';

describe('the hiType registry, at compile time', () => {
  it('has core facts, a printed name in every language and a FHIR entry for exactly the hiType codes', () => {
    expectTypeOf<keyof typeof HI_TYPE_FACTS>().toEqualTypeOf<HiType>();
    expectTypeOf<keyof typeof HI_TYPE_LABELS>().toEqualTypeOf<Language>();
    expectTypeOf<keyof (typeof HI_TYPE_LABELS)['en']>().toEqualTypeOf<HiType>();
    expectTypeOf<keyof (typeof HI_TYPE_LABELS)['hi']>().toEqualTypeOf<HiType>();
    expectTypeOf<keyof typeof PROFILE_BUILDERS>().toEqualTypeOf<FhirHiType>();
    expectTypeOf<FhirHiType | keyof typeof OTHER_RECORD_PROFILES>().toEqualTypeOf<HiType>();
    expectTypeOf<FhirHiType & keyof typeof OTHER_RECORD_PROFILES>().toEqualTypeOf<never>();
  });

  it('makes a new hiType without its facts, its printed names or its FHIR entry a compile error', () => {
    type WithNewCode = HiType | 'NewRecord';
    // @ts-expect-error the core facts of a new hiType are missing
    void (HI_TYPE_FACTS satisfies Record<WithNewCode, HiTypeFacts>);
    // @ts-expect-error a language does not name the new hiType
    void (HI_TYPE_LABELS satisfies Record<Language, Record<WithNewCode, string>>);
    // @ts-expect-error the FHIR layer neither emits the new hiType nor lists it as not emitted yet
    void ({ ...RECORD_PROFILES, ...OTHER_RECORD_PROFILES } satisfies Record<WithNewCode, RecordProfile | KnownRecordProfile>);
    // The same tables as they are: complete.
    void (HI_TYPE_FACTS satisfies Record<HiType, HiTypeFacts>);
    void (HI_TYPE_LABELS satisfies Record<Language, Record<HiType, string>>);
    void ({ ...RECORD_PROFILES, ...OTHER_RECORD_PROFILES } satisfies Record<HiType, RecordProfile | KnownRecordProfile>);
  });

  it('makes a new language without hiType names, or a record profile without its section builder, a compile error', () => {
    // @ts-expect-error a new language has no hiType names
    void (HI_TYPE_LABELS satisfies Record<Language | 'xx', Record<HiType, string>>);
    // @ts-expect-error a record profile for a new hiType has no section builder
    void (PROFILE_BUILDERS satisfies Record<FhirHiType | 'NewRecord', ProfileBuilder>);
    void (PROFILE_BUILDERS satisfies Record<FhirHiType, ProfileBuilder>);
  });
});

describe('the hiType registry, at run time', () => {
  it.each(HI_TYPES)('%s has a display, a printed name in every language, and a FHIR record profile', (hiType) => {
    expect(HI_TYPE_FACTS[hiType].display).not.toBe('');
    for (const lang of LANGUAGES) expect(HI_TYPE_LABELS[lang][hiType]).not.toBe('');
    expect(isFhirHiType(hiType) && RECORD_PROFILES[hiType].hiType).toBe(hiType);
  });

  it('has no hiType left without a FHIR mapping', () => {
    expect(Object.keys(OTHER_RECORD_PROFILES)).toEqual([]);
  });

  it('heads a printed care context with its hiType name in the chosen language', () => {
    const careContext = { referenceNumber: 'R-1', display: 'Discharge', hiType: 'DischargeSummary', bundleData: { hospital: { name: 'H', id: 'IN1' }, doctor: { name: 'D' } } };
    const source = { careContext, patient: {}, visitId: undefined, visitDate: undefined, followUp: undefined };
    for (const lang of LANGUAGES) expect(buildDocumentModel(source, { template: 'prescription', lang, pageSize: 'A4', qrCode: false }).heading).toBe(HI_TYPE_LABELS[lang].DischargeSummary);
  });
});

describe('the content facts of each hiType', () => {
  const set = (...fields: ContentField[]): ReadonlySet<ContentField> => new Set(fields);

  it('count lists that are not empty and text that is not blank, or any given text for a link payload', () => {
    expect([...contentPresent({ diagnosis: [], medications: [{}], advice: '  ', documentUrl: 'https://x.example/a.pdf' })]).toEqual(['medications', 'documentUrl']);
    expect([...contentPresent({ advice: '  ' }, { blankText: true })]).toEqual(['advice']);
  });

  it.each([
    [['medications'], 'Prescription'],
    [['medications', 'diagnosis', 'documentUrl'], 'Prescription'],
    [['medications', 'advice'], 'OPConsultation'],
    [['medications', 'labInvestigations'], 'OPConsultation'],
    [['documentUrl'], 'HealthDocumentRecord'],
    [['documentUrl', 'diagnosis'], 'OPConsultation'],
    [['labInvestigations'], 'OPConsultation'],
    [[], 'OPConsultation'],
  ] as Array<[ContentField[], HiType]>)('choose for content %j the hiType %s', (fields, hiType) => {
    expect(hiTypeForContent(set(...fields))).toBe(hiType);
  });

  it('say what a record has no place for and whether it has what it is expected to carry', () => {
    expect(contentOutside('Prescription', set('medications', 'labInvestigations', 'advice'))).toEqual(['labInvestigations', 'advice']);
    expect(contentOutside('OPConsultation', set('medications', 'labInvestigations', 'advice'))).toEqual([]);
    expect(hasExpectedContent('Prescription', set('diagnosis'))).toBe(false);
    expect(hasExpectedContent('DiagnosticReport', set('labInvestigations'))).toBe(true);
    expect(hasExpectedContent('OPConsultation', set())).toBe(true);
  });
});
