/**
 * Languages of printed documents: one message catalogue per language (a
 * missing key is a compile error), generated text (frequency, duration, dose
 * units, timing, sex, status, age, dates, record types) in the document's
 * language with no English left, bilingual documents, and soft hyphens by
 * script.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { buildLinkRequest } from '../src/builders/link-request.js';
import type { ClinicalInput, LinkCareContextRequest } from '../src/generated/types.js';
import { frequencyWords, localDose, localDuration, localStatus, localInstructions } from '../src/render/localize.js';
import { en } from '../src/render/messages/en.js';
import { hi } from '../src/render/messages/hi.js';
import { fill, formatDate, plural } from '../src/render/messages/format.js';
import { LANGUAGES, MESSAGES, TEMPLATE_NAMES, formatVisitDate, hyphenateHtml, renderDocuments, type Language, type Messages } from '../src/render/index.js';
import { textOf, unhyphenated } from './fixtures/render/html.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const EXAMPLES = ['opd-prescription', 'lab-order', 'multi-care-context'] as const;
const input = (name: string): ClinicalInput => JSON.parse(readFileSync(join(root, `examples/${name}.input.json`), 'utf8')) as ClinicalInput;
const OTHERS = LANGUAGES.filter((l) => l !== 'en');

/** Every string of a catalogue with its path (`labels.prescription`, `duration.day.one`). */
function strings(value: unknown, path = ''): Array<[string, string]> {
  if (typeof value === 'string') return [[path, value]];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => strings(v, path === '' ? k : `${path}.${k}`));
}

describe('the message catalogues, at compile time', () => {
  it('make a language without one of the English keys, or with a key English does not have, a compile error', () => {
    const { prescription: _dropped, ...labelsWithoutPrescription } = hi.labels;
    // @ts-expect-error Hindi without the prescription label
    void ({ ...hi, labels: labelsWithoutPrescription } satisfies Messages);
    const { SOS: _sos, ...frequencyWithoutSos } = hi.frequency;
    // @ts-expect-error Hindi without the words for SOS
    void ({ ...hi, frequency: frequencyWithoutSos } satisfies Messages);
    // @ts-expect-error a plural message without its "other" form
    void ({ ...hi, duration: { ...hi.duration, day: { one: '{count} दिन' } } } satisfies Messages);
    // @ts-expect-error a key English does not have
    void ({ ...hi, labels: { ...hi.labels, nickname: 'उपनाम' } } satisfies Messages);
    // The catalogues as they are: complete.
    void (hi satisfies Messages);
    expectTypeOf(MESSAGES).toEqualTypeOf<Readonly<Record<Language, Messages>>>();
  });

  it('carry the labels the page layout and the new record types use', () => {
    const keys = ['address', 'qualification', 'specialty', 'council', 'registration', 'genericName', 'strength', 'form', 'route', 'mobile', 'weight', 'vitals'] as const;
    const more = ['bloodPressure', 'pulse', 'temperature', 'spo2', 'respiratoryRate', 'height', 'bmi', 'morning', 'afternoon', 'evening', 'night'] as const;
    const pages = ['pageOf', 'patientNameBlank', 'continued', 'visitSummary'] as const;
    const records = [
      'admission',
      'discharge',
      'reasonForAdmission',
      'chiefComplaints',
      'history',
      'examination',
      'procedures',
      'courseInHospital',
      'conditionAtDischarge',
      'dischargeMedications',
      'followUp',
      'dischargeSummary',
      'immunisationCertificate',
      'vaccine',
      'doseNumber',
      'lotNumber',
      'manufacturer',
      'site',
      'nextDue',
      'wellnessRecord',
      'invoice',
      'item',
      'quantity',
      'unitPrice',
      'tax',
      'total',
      'payment',
      'amountPaid',
      'receipt',
    ] as const;
    for (const lang of LANGUAGES) for (const key of [...keys, ...more, ...pages, ...records]) expect(MESSAGES[lang].labels[key], `${lang} ${key}`).not.toBe('');
    expect(fill(en.labels.pageOf, { page: 2, pages: 3 })).toBe('Page 2 of 3');
  });
});

describe('the message catalogues, at run time', () => {
  it.each(OTHERS)('%s has every English message, none empty, with the same placeholders', (lang) => {
    const ours = new Map(strings(MESSAGES[lang]));
    for (const [path, english] of strings(en)) {
      const text = ours.get(path);
      expect(text, `${lang} ${path}`).toBeTypeOf('string');
      expect(text?.trim(), `${lang} ${path}`).not.toBe('');
      const placeholders = (s: string): string[] => [...s.matchAll(/\{[a-z]+\}/gi)].map((m) => m[0]).sort();
      expect(placeholders(text ?? ''), `${lang} ${path}`).toEqual(placeholders(english));
    }
  });

  it('chooses plural forms with Intl.PluralRules and writes Latin digits in every language', () => {
    expect(plural(en, en.duration.day, 1)).toBe('1 day');
    expect(plural(en, en.duration.day, 5)).toBe('5 days');
    expect(plural(MESSAGES.ta, MESSAGES.ta.duration.day, 1)).toBe('1 நாள்');
    expect(plural(MESSAGES.ta, MESSAGES.ta.duration.day, 5)).toBe('5 நாட்கள்');
    // Marathi and Bengali write their own digits by default; printed documents use Latin digits.
    expect(plural(MESSAGES.mr, MESSAGES.mr.duration.month, 3)).toBe('3 महिने');
    expect(plural(MESSAGES.bn, MESSAGES.bn.duration.day, 12)).toBe('12 দিন');
    for (const lang of LANGUAGES) expect(formatDate(MESSAGES[lang], '2026-11-20'), lang).toMatch(/^20 \S+ 2026$/);
    expect(formatVisitDate('2026-11-20', 'en')).toBe('20 Nov 2026');
    expect(formatVisitDate('2026-09-05', 'en')).toBe('5 Sep 2026');
    expect(formatVisitDate('2026-11-20', 'hi')).toBe('20 नवंबर 2026');
    expect(formatVisitDate('2026-11-20', 'ta')).toBe('20 நவம்பர் 2026');
    expect(formatVisitDate('20/11/2026', 'ta')).toBe('20/11/2026');
  });

  it('words frequencies, durations, doses, timing and statuses abha-link reads, and leaves free text alone', () => {
    expect(frequencyWords(hi, '1-0-1 (twice a day: morning and night)')).toEqual({ notation: '1-0-1', notationFirst: true, phrase: 'दिन में दो बार: सुबह और रात' });
    expect(frequencyWords(en, '1-1-1')?.phrase).toBe('three times a day: morning, afternoon and night');
    expect(frequencyWords(MESSAGES.ta, 'Every 6 hours (Q6H)')).toEqual({ notation: 'Q6H', notationFirst: false, phrase: 'ஒவ்வொரு 6 மணி நேரத்துக்கும்' });
    expect(frequencyWords(hi, 'after lunch on Sundays')).toBeNull();
    expect(localDuration(hi, '3 months')).toBe('3 महीने');
    expect(localDuration(hi, 'till next visit')).toBeNull();
    expect(localDose(hi, '2 tablets')).toBe('2 गोलियाँ');
    expect(localDose(hi, '½ tab')).toBe('½ गोली');
    expect(localDose(hi, '10 ml in half a glass of warm water')).toBeNull();
    expect(localInstructions(MESSAGES.kn, 'After food')).toBe('ಊಟದ ನಂತರ');
    expect(localInstructions(MESSAGES.kn, 'after food with warm water')).toBeNull();
    expect(localStatus(MESSAGES.gu, 'Provisional')).toBe('પ્રાથમિક');
    expect(localStatus(MESSAGES.gu, 'constructor')).toBeNull();
  });
});

/** The values of a link request that are printed as given (free text and identifiers), so that what is left of a page is the library's own text. */
function givenText(req: LinkCareContextRequest): string[] {
  const out: string[] = [];
  const generated: Readonly<Record<string, (s: string) => boolean>> = {
    frequency: (s) => frequencyWords(en, s) !== null,
    duration: (s) => localDuration(en, s) !== null,
    dosage: (s) => localDose(en, s) !== null,
    instructions: (s) => localInstructions(en, s) !== null,
    status: (s) => localStatus(en, s) !== null,
    hiType: () => true,
  };
  const walk = (value: unknown, key: string): void => {
    if (typeof value === 'string') {
      if (!(generated[key]?.(value) ?? false)) out.push(value);
    } else if (Array.isArray(value)) for (const v of value) walk(v, key);
    else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, k);
  };
  walk(req, '');
  return out.sort((a, b) => b.length - a.length);
}

/** The data of a clinical input that only printing uses (not in the link request): letterhead, patient and medicine details, as given. */
function printOnlyText(ci: ClinicalInput): string[] {
  const doctors = [ci.doctor, ...(ci.careContexts ?? []).map((c) => c.doctor)];
  const meds = [...(ci.medications ?? []), ...(ci.careContexts ?? []).flatMap((c) => c.medications ?? [])];
  return [
    ci.hospital.address,
    ci.patient.mobile,
    ci.patient.address,
    ...doctors.flatMap((d) => [d?.qualification, d?.specialty, d?.council]),
    ...meds.flatMap((m) => [m.genericName, m.strength, m.form, m.route]),
  ]
    .filter((s): s is string => typeof s === 'string' && s.trim() !== '')
    .sort((a, b) => b.length - a.length);
}

/** The library's own English words: every catalogue string with its placeholders taken out. */
const ENGLISH = [...new Set(strings(en).flatMap(([path, s]) => (path.startsWith('intl.') || path === 'date' || path === 'name' ? [] : s.split(/\{[a-z]+\}/i).map((p) => p.trim()))))]
  .filter((s) => /[a-z]{3}/i.test(s))
  .concat(['Nov', 'twice a day', 'days']);

/**
 * Per language, the library's English words that its own catalogue does not
 * contain (those it contains may be printed), each with the pattern that finds
 * it as a whole word: made once per language, not once per page and word.
 */
const ENGLISH_NOT_IN: ReadonlyMap<Language, ReadonlyArray<readonly [string, RegExp]>> = new Map(
  OTHERS.map((lang) => {
    const catalogue = strings(MESSAGES[lang]).map(([, s]) => s);
    const absent = ENGLISH.filter((english) => !catalogue.some((s) => s.includes(english)));
    return [lang, absent.map((english) => [english, new RegExp(`\\b${english.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'i')] as const)];
  }),
);

describe('documents in every language', () => {
  it.each(OTHERS.flatMap((lang) => TEMPLATE_NAMES.flatMap((template) => EXAMPLES.map((example) => [lang, template, example] as const))))(
    'in %s, the %s template prints examples/%s with none of the English the library writes',
    (lang, template, example) => {
      const ci = input(example);
      const req = buildLinkRequest(ci);
      const given = [...givenText(req), ...printOnlyText(ci), ci.patient.name ?? '', ci.visit.followUp ?? '', ci.visit.id].filter((s) => s !== '');
      for (const doc of renderDocuments(ci, { lang, template })) {
        expect(doc.html).toContain(`<html lang="${lang}"`);
        let text = textOf(doc.html);
        for (const g of given) text = text.split(g).join(' ');
        const left = (ENGLISH_NOT_IN.get(lang) ?? []).filter(([, word]) => word.test(text)).map(([english]) => english);
        expect(left, `${lang} ${template} ${doc.referenceNumber}`).toEqual([]);
      }
    },
  );

  it('prints the Hindi prescription with how to take each medicine in Hindi, and the drug names as written', () => {
    const ci = input('opd-prescription');
    const text = textOf(renderDocuments(ci, { lang: 'hi' })[0]?.html ?? '');
    expect(text).not.toContain('twice a day');
    expect(text).not.toMatch(/\bdays\b/);
    for (const phrase of ['1-0-1 (दिन में दो बार: सुबह और रात)', 'दिन में एक बार (OD)', 'ज़रूरत होने पर (SOS)', 'रात को सोते समय (HS)', 'दिन में तीन बार (TDS)', '30 दिन', '1 गोली', 'खाना खाने के बाद'])
      expect(text).toContain(phrase);
    expect(text).toContain('48 वर्ष / महिला');
    expect(text).toContain('पक्का');
    for (const m of ci.medications ?? []) expect(text).toContain(m.drugName);
  });

  it('prints the English prescription exactly as before', () => {
    const text = textOf(renderDocuments(input('opd-prescription'))[0]?.html ?? '');
    for (const phrase of ['1-0-1 (twice a day: morning and night)', 'Once a day (OD)', 'When required (SOS)', '30 days', '1 tablet', 'after food', '48 y / F', 'confirmed', '20 Nov 2026'])
      expect(text).toContain(phrase);
  });

  it('writes the Tamil, Telugu, Kannada, Marathi, Bengali and Gujarati frequency of 1-0-1 with the notation kept', () => {
    const freq = (lang: Language): string =>
      /<span class="freq-text"><bdi>(1-0-1 [^<]*)<\/bdi><\/span>/.exec(unhyphenated(renderDocuments(input('opd-prescription'), { lang })[0]?.html ?? ''))?.[1] ?? '';
    expect(freq('ta')).toBe('1-0-1 (நாளுக்கு இரண்டு முறை: காலை மற்றும் இரவு)');
    expect(freq('te')).toBe('1-0-1 (రోజుకు రెండుసార్లు: ఉదయం మరియు రాత్రి)');
    expect(freq('kn')).toBe('1-0-1 (ದಿನಕ್ಕೆ ಎರಡು ಬಾರಿ: ಬೆಳಿಗ್ಗೆ ಮತ್ತು ರಾತ್ರಿ)');
    expect(freq('mr')).toBe('1-0-1 (दिवसातून दोनदा: सकाळी आणि रात्री)');
    expect(freq('bn')).toBe('1-0-1 (দিনে দুবার: সকাল এবং রাত)');
    expect(freq('gu')).toBe('1-0-1 (દિવસમાં બે વાર: સવારે અને રાત્રે)');
  });
});

describe('bilingual documents', () => {
  const ci = input('opd-prescription');
  const [doc] = renderDocuments(ci, { lang: ['en', 'hi'] });
  const html = unhyphenated(doc?.html ?? '');

  it('print each label in both languages, the second under the first and marked with its language', () => {
    expect(doc).toMatchObject({ lang: 'en', languages: ['en', 'hi'] });
    expect(html).toContain('<html lang="en"');
    expect(html).toContain('<h1><span class=l1>Prescription</span><span class=l2 lang=hi>दवा का पर्चा</span></h1>');
    expect(html).toContain('<th class="freq"><span class=l1>Frequency</span><span class=l2 lang=hi>कितनी बार</span><span class="dose-grid head"');
    expect(html).toMatch(/\.l2 \{ display: block;/);
    // A label that is the same in both languages is printed once.
    expect(html).toContain('<span class="icd">ICD-10 <bdi>E11.9</bdi></span>');
  });

  it('print generated phrases in both languages and the data once', () => {
    const text = textOf(doc?.html ?? '');
    expect(html).toContain('<span class=l1>1-0-1 (twice a day: morning and night)</span><span class=l2 lang=hi>दिन में दो बार: सुबह और रात</span>');
    expect(text.match(/1-0-1/g)).toHaveLength(1);
    expect(html).toContain('<span class=l1>30 days</span><span class=l2 lang=hi>30 दिन</span>');
    expect(html).toContain('<span class=l1>20 Nov 2026</span><span class=l2 lang=hi>20 नवंबर 2026</span>');
    for (const m of ci.medications ?? []) expect(text.split(m.drugName)).toHaveLength(2);
    expect(text.split(ci.patient.name ?? '?')).toHaveLength(2);
  });

  it('keep attribute values and the title plain text', () => {
    expect(html).toContain('aria-label="Patient / रोगी"');
    expect(/<title>([^<]*)<\/title>/.exec(html)?.[1]).toBe('Prescription / दवा का पर्चा · \u2068OPD-2026-0042-Prescription\u2069');
    for (const m of html.matchAll(/="([^"]*)"/g)) expect(m[1]).not.toMatch(/[<>]/);
  });

  it('take either order and refuse the same language twice, three languages or an unknown one', () => {
    expect(unhyphenated(renderDocuments(ci, { lang: ['ta', 'en'] })[0]?.html ?? '')).toContain('<h1><span class=l1>மருந்துச் சீட்டு</span><span class=l2 lang=en>Prescription</span></h1>');
    expect(() => renderDocuments(ci, { lang: ['en', 'en'] })).toThrow(RangeError);
    expect(() => renderDocuments(ci, { lang: ['en', 'hi', 'ta'] })).toThrow(/one language, or two different ones/);
    expect(() => renderDocuments(ci, { lang: ['en', 'xx' as Language] })).toThrow(/unknown language "xx"/);
  });
});

describe('soft hyphens', () => {
  it('go into long words of the body text by their script, and nowhere else', () => {
    const page = [
      '<html><head><title>Pharmacokinetics</title><style>.pharmacokinetics{}</style></head>',
      '<body><p class="pharmacokinetics" title="pharmacokinetics">Pharmacokinetics स्वास्थ्यकर्मियों மருத்துவமனையில் ಆಸ್ಪತ್ರೆಯಲ್ಲಿ</p>',
      '<p>asha.verma@sbx https://records.example/pharmacokinetics OPD-2026-0042-Prescription Amoxicillin&amp;Clavulanate</p>',
      '<svg><text>Pharmacokinetics</text></svg></body></html>',
    ].join('');
    const out = hyphenateHtml(page, ['en']);
    expect(out.replace(/\u00ad/g, '')).toBe(page);
    expect(out).toContain('<title>Pharmacokinetics</title><style>.pharmacokinetics{}</style>');
    expect(out).toContain('class="pharmacokinetics" title="pharmacokinetics">');
    expect(out).toContain('<svg><text>Pharmacokinetics</text></svg>');
    expect(out).toContain('<p>asha.verma@sbx https://records.example/pharmacokinetics OPD-2026-0042-Prescription Amox');
    expect(out).toContain('&amp;');
    const words = /<p class[^>]*>([^<]*)<\/p>/.exec(out)?.[1]?.split(' ') ?? [];
    expect(words).toHaveLength(4);
    for (const w of words) expect(w, w).toContain('\u00ad');
    // Never before a vowel sign, virama or other combining mark, and never leaving one letter alone at either end.
    expect(out).not.toMatch(/\u00ad[\p{M}\u200c\u200d]/u);
    for (const w of words) for (const part of [w.split('\u00ad')[0] ?? '', w.split('\u00ad').pop() ?? '']) expect(part.replace(/\p{M}/gu, '').length, w).toBeGreaterThanOrEqual(2);
  });

  it('are in every rendered page unless turned off, and the text reads the same', () => {
    const ci = input('opd-prescription');
    for (const lang of LANGUAGES) {
      const on = renderDocuments(ci, { lang })[0]?.html ?? '';
      const off = renderDocuments(ci, { lang, hyphenate: false })[0]?.html ?? '';
      expect(on, lang).toContain('\u00ad');
      expect(off, lang).not.toContain('\u00ad');
      expect(unhyphenated(on), lang).toBe(off);
    }
  });
});
