/**
 * Dosing text a patient cannot misread, in every language: the dose grid's marks are distinct, every frequency the
 * reader accepts prints whole words (never `undefined`, `NaN`, a placeholder or empty parentheses), instructions,
 * forms, routes and result flags come from the catalogue, and what the library cannot read is marked as the
 * doctor's words.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { normalizeFrequency } from '../src/spec/frequency.js';
import { buildLinkRequest } from '../src/builders/link-request.js';
import type { ClinicalInput, LinkCareContextRequest, Medication } from '../src/generated/types.js';
import { frequencyWords, localDose, localFlag, localForm, localFrequency, localInstructions, localRoute } from '../src/render/localize.js';
import { LANGUAGES, MESSAGES, renderDocuments, type Language } from '../src/render/index.js';
import { textOf, unhyphenated } from './fixtures/render/html.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const input = (name: string): ClinicalInput => JSON.parse(readFileSync(join(root, `examples/${name}.input.json`), 'utf8')) as ClinicalInput;
const OTHERS = LANGUAGES.filter((l) => l !== 'en');
/** Text that a phrase built from a missing message or a bad number would leave. */
const BROKEN = /undefined|NaN|[{}]|\(\s*\)|\(\s*[:,]|:\s*\)/;

/** A mark as compared: NFC, without any combining mark (Unicode category M: vowel signs, virama, anusvara, nukta). */
const bare = (s: string): string => s.normalize('NFC').replace(/\p{M}/gu, '');
/** The text of a page on one line, without the spaces that tags leave inside parentheses. */
const flat = (html: string): string => textOf(html).replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/ \)/g, ')');

describe('the dose grid marks', () => {
  it.each(LANGUAGES)('in %s, are four, none empty, and no two equal even without their vowel signs and other combining marks', (lang) => {
    const marks = Object.values(MESSAGES[lang].dosing.marks);
    expect(marks).toHaveLength(4);
    for (const m of marks) expect(bare(m), `${lang} ${m}`).not.toBe('');
    expect(new Set(marks.map(bare)).size, `${lang}: ${marks.join(' ')}`).toBe(4);
  });

  it('tells morning from night in Malayalam, and morning from evening in Bengali and Odia (the first letters of the words did not)', () => {
    const { ml, bn, or } = MESSAGES;
    expect(bare(ml.dosing.marks.morning)).not.toBe(bare(ml.dosing.marks.night));
    expect(bare(bn.dosing.marks.morning)).not.toBe(bare(bn.dosing.marks.evening));
    expect(bare(or.dosing.marks.morning)).not.toBe(bare(or.dosing.marks.evening));
  });

  it.each(LANGUAGES)('head the grid and its legend of a %s prescription', (lang) => {
    const html = unhyphenated(renderDocuments(input('opd-prescription'), { lang })[0]?.html ?? '');
    const heads = [...html.matchAll(/<span class="slot-name">([^<]*)<\/span>/g)].map((m) => m[1]);
    expect(heads).toEqual(Object.values(MESSAGES[lang].dosing.marks));
    for (const [k, mark] of Object.entries(MESSAGES[lang].dosing.marks)) expect(html).toContain(`<b>${mark}</b> ${MESSAGES[lang].labels[k as 'morning']}`);
  });
});

/** Every dose pattern of 3, 4 and 5 slots over these doses. */
function patterns(slots: number, doses: readonly string[]): string[] {
  if (slots === 0) return [''];
  return patterns(slots - 1, doses).flatMap((rest) => doses.map((d) => (rest === '' ? d : `${rest}-${d}`)));
}

/** Every form of frequency the reader accepts, each also with a food timing and a duration written after it. */
const BASES = [
  ...['OD', 'BD', 'TDS', 'QID', 'HS', 'SOS', 'STAT', 'OD HS', 'b.d.', 'twice daily', 'thrice daily', 'at bedtime', 'as needed'],
  ...Array.from({ length: 24 }, (_, i) => `Q${i + 1}H`),
  ...patterns(3, ['0', '1', '½', '2']),
  ...patterns(4, ['0', '1']),
  ...patterns(5, ['0', '1']),
  ...['once a week', 'weekly', 'OW', 'twice a week', 'BIW', 'thrice weekly', 'TIW', '4 times a week', '5 times a week', '6 times a week'],
  ...['alternate day', 'AD', 'EOD', 'every other day'],
  ...['every Monday', 'Tue', 'on Wednesdays', 'Thursday', 'Fri', 'Sat', 'Sun', 'Mon, Thu', 'Mon/Wed/Fri', 'Monday and Thursday', 'Sat, Sun'],
];
const TAILS = ['', ' after food', ' before food', ' with food', ' empty stomach', ' x 5 days', ' x 1 day', ' for 2 weeks', ' x 3 months', ' after food x 5 days'];
const ALL = BASES.flatMap((b) => TAILS.map((t) => `${b}${t}`));

describe('every frequency the reader accepts', () => {
  it('is read by the reader: each of the forms this test prints', () => {
    expect(ALL.filter((f) => frequencyWords(MESSAGES.en, normalizeFrequency(f)) === null)).toEqual([]);
    expect(ALL.length).toBeGreaterThan(1500);
  });

  it.each(LANGUAGES)('prints in %s with words from the catalogue, never undefined, NaN, a placeholder or empty parentheses', (lang) => {
    const m = MESSAGES[lang];
    const bad = ALL.flatMap((f) => {
      const printed = localFrequency(m, normalizeFrequency(f));
      const words = frequencyWords(m, normalizeFrequency(f))?.phrase ?? '';
      return BROKEN.test(printed) || words.trim() === '' ? [`${f} → ${printed}`] : [];
    });
    expect(bad).toEqual([]);
  });

  /** A link request whose one care context holds a medicine for each base frequency (and some with tails); 0-0-0 is refused (below). */
  function everyFrequencyRequest(): LinkCareContextRequest {
    const req = buildLinkRequest(input('opd-prescription'));
    const cc = req.careContexts[0];
    if (cc === undefined) throw new Error('example changed');
    // At most 200 medicines a care context: every base form, and two of them with every tail.
    const frequencies = [...BASES.filter((b) => !/^[0-]+$/.test(b)), ...['BD', '1-0-1'].flatMap((b) => TAILS.slice(1).map((t) => `${b}${t}`))];
    const meds: Medication[] = frequencies.map((f, i) => ({
      drugName: `Medicine ${i + 1}`,
      dosage: ['1 tablet', '½ tab', '5 ml', '2 drops'][i % 4] ?? '1 tablet',
      frequency: normalizeFrequency(f),
      duration: '5 days',
      instructions: ['after lunch', '30 minutes before breakfast', 'as needed', 'at night'][i % 4] ?? 'after food',
    }));
    return { ...req, careContexts: [{ ...cc, bundleData: { ...cc.bundleData, medications: meds } }] };
  }

  const PAGES: ReadonlyArray<Language | readonly [Language, Language]> = [...LANGUAGES, ...OTHERS.map((l) => ['en', l] as const), ['hi', 'en'], ['ta', 'en']];
  it.each(PAGES.map((p) => [Array.isArray(p) ? p.join('+') : p, p] as const))('prints on a %s prescription without a phrase built from a missing message', (_, lang) => {
    const req = everyFrequencyRequest();
    const [doc] = renderDocuments(req, { lang: lang as Language | [Language, Language] });
    const text = textOf(doc?.html ?? '');
    const lines = text.split(/\n/).filter((l) => BROKEN.test(l));
    expect(lines).toEqual([]);
    expect(text).toContain('Medicine 1');
  });
});

describe('a frequency with no dose at all', () => {
  it('is refused by the renderer at its path, so that no page says to take nothing', () => {
    const req = buildLinkRequest(input('opd-prescription'));
    const cc = req.careContexts[0];
    if (cc === undefined) throw new Error('example changed');
    const meds = (cc.bundleData.medications ?? []).map((m, i) => (i === 1 ? { ...m, frequency: '0-0-0' } : m));
    const bad = { ...req, careContexts: [{ ...cc, bundleData: { ...cc.bundleData, medications: meds } }] };
    expect(() => renderDocuments(bad)).toThrow(/\/careContexts\/0\/bundleData\/medications\/1\/frequency/);
  });
});

describe('frequencies as clinicians write them, in words', () => {
  it.each([
    ['en', 'thrice weekly', '3 times a week'],
    ['en', 'once a week', 'Once a week'],
    ['hi', 'thrice weekly', 'हफ़्ते में 3 बार'],
    ['hi', 'once a week', 'हफ़्ते में एक बार'],
    ['ta', 'once a week', 'வாரத்துக்கு ஒரு முறை'],
    ['hi', 'EOD', 'एक दिन छोड़कर'],
    ['ta', 'alternate day', 'ஒரு நாள் விட்டு ஒரு நாள்'],
    ['hi', 'Mon, Thu', 'हर सोमवार और गुरुवार'],
    ['ta', 'every Monday', 'ஒவ்வொரு திங்கள்'],
    ['en', '1-0-1-0-1', '1-0-1-0-1 (three times a day)'],
    ['hi', '1-1-1-1-1', '1-1-1-1-1 (दिन में पाँच बार)'],
    ['en', 'BD x 5 days', 'Twice a day, for 5 days (BD)'],
    ['hi', 'BD x 5 days', 'दिन में दो बार, 5 दिन तक (BD)'],
    ['ta', '1-1-1 after food', '1-1-1 (நாளுக்கு மூன்று முறை: காலை, மதியம் மற்றும் இரவு, சாப்பிட்ட பின்)'],
    ['hi', '0-0-0', '0-0-0 (किसी भी समय खुराक नहीं)'],
  ] as const)('in %s, prints %s as %s', (lang, written, printed) => {
    expect(localFrequency(MESSAGES[lang], normalizeFrequency(written))).toBe(printed);
  });

  it('says "every 6 hours" in Telugu and Kannada as once in so many hours, never as "at 6 o\'clock"', () => {
    expect(localFrequency(MESSAGES.te, 'Every 6 hours (Q6H)')).toBe('ప్రతి 6 గంటలకొకసారి (Q6H)');
    expect(localFrequency(MESSAGES.kn, 'Every 6 hours (Q6H)')).toBe('ಪ್ರತಿ 6 ಗಂಟೆಗೊಮ್ಮೆ (Q6H)');
    expect(localFrequency(MESSAGES.te, 'Every 1 hours (Q1H)')).toBe('గంటకొకసారి (Q1H)');
    for (let h = 1; h <= 24; h++) {
      // "6 గంటలకు" and "6 ಗಂಟೆಗೆ" are how the hour of the clock is said.
      expect(localFrequency(MESSAGES.te, `Q${h}H`)).not.toMatch(/గంటలకు|గంటకు/);
      expect(localFrequency(MESSAGES.kn, `Q${h}H`)).not.toMatch(/ಗಂಟೆಗೆ/);
    }
  });
});

describe("instructions in the patient's language", () => {
  it.each([
    ['hi', 'after lunch', 'दोपहर के खाने के बाद'],
    ['hi', 'after dinner', 'रात के खाने के बाद'],
    ['hi', '1 hour before food', 'खाने से 1 घंटा पहले'],
    ['hi', '2 hours after meals', 'खाने के 2 घंटे बाद'],
    ['hi', '30 minutes before breakfast', 'नाश्ते से 30 मिनट पहले'],
    ['hi', 'half an hour before dinner', 'रात के खाने से 30 मिनट पहले'],
    ['hi', 'morning, before breakfast', 'सुबह, नाश्ते से पहले'],
    ['hi', 'at night', 'रात को'],
    ['hi', 'as needed', 'ज़रूरत होने पर'],
    ['hi', 'not more than 5 days', 'ज़्यादा से ज़्यादा 5 दिन'],
    ['hi', 'do not exceed 2 weeks', 'ज़्यादा से ज़्यादा 2 हफ़्ते'],
    ['hi', 'sip through the day', 'दिन भर थोड़ा-थोड़ा करके पिएँ'],
    ['hi', 'after food; finish the course', 'खाना खाने के बाद, पूरा कोर्स करें'],
    ['ta', 'after lunch', 'மதிய உணவுக்குப் பின்'],
    ['ta', '30 minutes before breakfast', 'காலை உணவுக்கு 30 நிமிடம் முன்'],
    ['ta', '1 hour before food', 'சாப்பிடுவதற்கு 1 மணி நேரம் முன்'],
    ['ta', 'after dinner', 'இரவு உணவுக்குப் பின்'],
    ['ta', 'not more than 5 days', 'அதிகபட்சம் 5 நாட்கள்'],
    ['en', '15 Minutes Before Breakfast.', '15 minutes before breakfast'],
  ] as const)('in %s, words "%s" as %s', (lang, written, printed) => {
    expect(localInstructions(MESSAGES[lang], written)).toBe(printed);
  });

  it.each(['for fever above 100 F, at least 6 hours apart', 'on the painful knee', 'after dialysis', 'with 5 minutes before food', 'after lunch, with orange juice'])(
    'leaves "%s" as written (the library does not read it)',
    (written) => {
      expect(localInstructions(MESSAGES.hi, written)).toBeNull();
    },
  );

  it.each(LANGUAGES)('has words for every instruction, form, route and flag it reads in %s', (lang) => {
    const m = MESSAGES[lang];
    for (const t of ['after lunch', '1 hour before food', '30 minutes after dinner', 'with breakfast', 'at bedtime', 'empty stomach', 'do not exceed 5 days'])
      expect(localInstructions(m, t), `${lang} ${t}`).toMatch(/\S/);
    for (const f of ['tablet', 'Tab.', 'capsule', 'syrup', 'suspension', 'injection', 'drops', 'ointment', 'cream', 'gel', 'inhaler', 'powder', 'sachet', 'nasal spray', 'gargle'])
      expect(localForm(m, f), `${lang} ${f}`).toMatch(/\S/);
    for (const r of ['oral', 'PO', 'topical', 'IV', 'IM', 'SC', 'inhalation', 'nasal', 'eye', 'ear', 'sublingual', 'rectal', 'vaginal', 'gargle'])
      expect(localRoute(m, r), `${lang} ${r}`).toMatch(/\S/);
    for (const f of ['High', 'H', 'low', 'Normal']) expect(localFlag(m, f), `${lang} ${f}`).toMatch(/\S/);
    expect(localFlag(m, 'Borderline')).toBeNull();
  });

  it('prints the Hindi and Tamil long prescriptions with their instructions, forms and routes translated, and marks what stays as written', () => {
    const ci = input('long-prescription');
    for (const lang of ['hi', 'ta'] as const) {
      const m = MESSAGES[lang];
      const text = flat(renderDocuments(ci, { lang })[0]?.html ?? '');
      for (const phrase of [m.dosing.afterLunch, m.dosing.afterDinner, m.dosing.sipThroughTheDay, m.dosing.forms.tablet, m.dosing.routes.oral, m.dosing.forms.syrup])
        expect(text, `${lang} ${phrase}`).toContain(phrase);
      expect(text).toContain(localInstructions(m, '30 minutes before breakfast') ?? '?');
      expect(text).toContain(localInstructions(m, '1 hour before food') ?? '?');
      expect(text).toContain(localInstructions(m, 'not more than 5 days') ?? '?');
      for (const english of ['after lunch', 'after dinner', 'minutes before breakfast', 'hour before food', 'sip through the day', 'not more than', '· tablet ·', '· oral'])
        expect(text, `${lang} ${english}`).not.toContain(english);
      expect(text).toContain(`on the painful knee (${m.dosing.asWritten})`);
    }
  });

  it("does not mark the doctor's words on an English page", () => {
    const text = textOf(renderDocuments(input('long-prescription'), { lang: 'en' })[0]?.html ?? '');
    expect(text).toContain('on the painful knee');
    expect(text).not.toContain(MESSAGES.en.dosing.asWritten);
  });
});

describe('the words print-review.md found wrong', () => {
  it('gives ½ the singular: "½ tablet", in English, Marathi, Tamil, Telugu and Punjabi', () => {
    expect(localDose(MESSAGES.en, '½ tab')).toBe('½ tablet');
    expect(localDose(MESSAGES.en, '0.5 tablets')).toBe('0.5 tablet');
    expect(localDose(MESSAGES.mr, '1/2 tab')).toBe('½ गोळी');
    expect(localDose(MESSAGES.ta, '½ tablet')).toBe('½ மாத்திரை');
    expect(localDose(MESSAGES.te, '½ tablet')).toBe('½ మాత్ర');
    expect(localDose(MESSAGES.pa, '½ tablet')).toBe('½ ਗੋਲੀ');
    expect(localDose(MESSAGES.en, '1½ tablets')).toBe('1½ tablets');
  });

  it('labels temperature as temperature, never fever, in every language', () => {
    const temperature = Object.fromEntries(LANGUAGES.map((l) => [l, MESSAGES[l].labels.temperature]));
    expect(temperature).toEqual({
      en: 'Temp.',
      hi: 'तापमान',
      mr: 'तापमान',
      bn: 'তাপমাত্রা',
      ta: 'உடல் வெப்பநிலை',
      te: 'శరీర ఉష్ణోగ్రత',
      kn: 'ದೇಹದ ತಾಪಮಾನ',
      gu: 'તાપમાન',
      ml: 'ശരീര താപനില',
      or: 'ତାପମାତ୍ରା',
      pa: 'ਤਾਪਮਾਨ',
    });
  });

  it('says "provisional" as not yet confirmed, not as temporary', () => {
    const temporary = /तात्पुरते|தற்காலிகம்|తాత్కాలికం|ತಾತ್ಕಾಲಿಕ|કામચલાઉ|താൽക്കാലികം|ଅସ୍ଥାୟୀ|ਆਰਜ਼ੀ/;
    for (const lang of LANGUAGES) expect(MESSAGES[lang].diagnosisStatus.provisional, lang).not.toMatch(temporary);
  });

  it('labels the vaccine route as a route, not "how to take", and prints the route itself in the language', () => {
    const howToTake = /कैसे लें|कसे घ्यावे|কীভাবে নেবেন|எப்படி எடுப்பது|ఎలా తీసుకోవాలి|ಹೇಗೆ ತೆಗೆದುಕೊಳ್ಳಬೇಕು|કેવી રીતે લેવી|എങ്ങനെ കഴിക്കണം|କିପରି ନେବେ|ਕਿਵੇਂ ਲੈਣੀ ਹੈ/;
    for (const lang of LANGUAGES) expect(MESSAGES[lang].labels.route, lang).not.toMatch(howToTake);
    const text = textOf(renderDocuments(input('immunization'), { lang: 'hi' })[0]?.html ?? '');
    expect(text).toContain(MESSAGES.hi.dosing.routes.intramuscular);
  });

  it('names the prescription in Bengali, and the Odia teaspoon as a small spoon', () => {
    expect(MESSAGES.bn.labels.prescription).toBe('প্রেসক্রিপশন');
    expect(MESSAGES.bn.hiTypes.Prescription).toBe('প্রেসক্রিপশন');
    expect(localDose(MESSAGES.or, '5 tsp')).toBe('5 ଛୋଟ ଚାମଚ');
  });

  it('prints result flags and mmHg in the language on the Hindi discharge summary and health check', () => {
    const discharge = flat(renderDocuments(input('discharge-summary'), { lang: 'hi' })[0]?.html ?? '');
    expect(discharge).not.toMatch(/\((High|Low|Normal)\)/);
    expect(discharge).toContain(`(${MESSAGES.hi.dosing.flags.high})`);
    const wellness = textOf(renderDocuments(input('wellness'), { lang: 'hi' })[0]?.html ?? '');
    expect(wellness).toContain('mmHg');
    expect(wellness).not.toContain('mm[Hg]');
  });
});
