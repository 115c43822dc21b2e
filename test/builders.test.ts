import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { deriveDisplay, deriveReferenceNumber } from '../src/builders/labels.js';
import {
  buildBundleData,
  buildCareContext,
  buildDiagnosis,
  buildDoctor,
  buildHospital,
  buildLabInvestigation,
  buildLinkRequest,
  buildMedication,
  defaultHiType,
  isValidationError,
  normalizeDuration,
  normalizeFrequency,
  parseFrequency,
  safeBuildLinkRequest,
  validateLinkRequest,
  visitDateOf,
  type ClinicalInput,
  type Issue,
} from '../src/index.js';

const example = (name: string): ClinicalInput => JSON.parse(readFileSync(new URL(`../examples/${name}.input.json`, import.meta.url), 'utf8')) as ClinicalInput;

const hospital = { name: 'Sanjeevani Family Clinic', id: 'IN2910000123' };
const doctor = { name: 'Dr. Meera Iyer', licNumber: 'KMC-45678' };

function visit(at: Date | string, extra: Partial<ClinicalInput> = {}): ClinicalInput {
  return {
    hospital,
    doctor,
    patient: { abhaAddress: 'asha.verma@sbx' },
    visit: { id: 'OPD-1', at },
    medications: [{ drugName: 'Cetirizine 10 mg tablet', genericName: 'Cetirizine', dosage: '1 tablet', frequency: 'HS' }],
    ...extra,
  };
}

function issuesOf(fn: () => unknown): Issue[] {
  try {
    fn();
  } catch (e) {
    if (isValidationError(e)) return [...e.issues];
    throw e;
  }
  throw new Error('expected a ValidationError');
}

function deepFreeze<T>(o: T): T {
  if (o !== null && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

describe('visitDateOf and the visit date of buildLinkRequest', () => {
  it.each([
    ['23:30 IST on 20 Nov is dated 20 Nov', '2026-11-20T23:30:00+05:30', '2026-11-20'],
    ['01:00 IST on 21 Nov (19:30 UTC on 20 Nov) is dated 21 Nov', '2026-11-20T19:30:00Z', '2026-11-21'],
    ['18:29:59 UTC is still 20 Nov in India', '2026-11-20T18:29:59Z', '2026-11-20'],
    ['18:30 UTC is midnight in India, 21 Nov', '2026-11-20T18:30:00Z', '2026-11-21'],
    ['a date-time without offset is wall-clock time at the facility', '2026-11-21T01:00:00', '2026-11-21'],
    ['a bare date is the date itself', '2026-11-20', '2026-11-20'],
    ['an offset from elsewhere is converted to India', '2026-11-20T15:00:00-05:00', '2026-11-21'],
  ])('%s', (_, at, date) => {
    expect(visitDateOf(at)).toEqual({ date });
    expect(buildLinkRequest(visit(at)).visitDate).toBe(date);
  });

  it('accepts Date objects and dates them in the facility time zone', () => {
    expect(buildLinkRequest(visit(new Date('2026-11-20T19:30:00Z'))).visitDate).toBe('2026-11-21');
    expect(buildLinkRequest(visit(new Date('2026-11-20T18:00:00Z'))).visitDate).toBe('2026-11-20');
  });

  it('uses the time zone the input gives', () => {
    const input = visit('2026-11-20T19:30:00Z');
    input.visit.timeZone = 'UTC';
    expect(buildLinkRequest(input).visitDate).toBe('2026-11-20');
  });

  it('does not depend on the machine time zone', () => {
    const before = process.env.TZ;
    try {
      process.env.TZ = 'America/Los_Angeles';
      const west = buildLinkRequest(visit('2026-11-20T19:30:00Z'));
      process.env.TZ = 'Asia/Tokyo';
      const east = buildLinkRequest(visit('2026-11-20T19:30:00Z'));
      expect(west).toEqual(east);
      expect(west.careContexts[0]?.display).toBe('Prescription at Sanjeevani Family Clinic on 21 Nov 2026');
    } finally {
      if (before === undefined) delete process.env.TZ;
      else process.env.TZ = before;
    }
  });

  it('reports an impossible date at /visit/at', () => {
    expect(issuesOf(() => buildLinkRequest(visit('2026-02-30T10:00:00+05:30')))).toEqual([expect.objectContaining({ path: '/visit/at', code: 'invalid-datetime' })]);
  });

  it('reports an invalid Date object at /visit/at', () => {
    expect(issuesOf(() => buildLinkRequest(visit(new Date('not a date'))))).toEqual([expect.objectContaining({ path: '/visit/at', code: 'invalid-datetime' })]);
  });

  it('reports a text that is not ISO 8601 at /visit/at', () => {
    expect(issuesOf(() => buildLinkRequest(visit('20/11/2026')))).toEqual([expect.objectContaining({ path: '/visit/at', code: 'invalid-datetime' })]);
  });

  it('reports an unknown time zone at /visit/timeZone', () => {
    const input = visit('2026-11-20T10:00:00+05:30');
    input.visit.timeZone = 'Asia/Bengaluru';
    expect(issuesOf(() => buildLinkRequest(input))).toEqual([expect.objectContaining({ path: '/visit/timeZone', code: 'unknown-time-zone' })]);
  });
});

describe('normalizeFrequency', () => {
  it.each([
    ['1-0-1', '1-0-1 (twice a day: morning and night)'],
    ['1-1-1', '1-1-1 (three times a day: morning, afternoon and night)'],
    ['0-0-1', '0-0-1 (once a day: night)'],
    ['1 - 0 - 1', '1-0-1 (twice a day: morning and night)'],
    ['1-1-1-1', '1-1-1-1 (four times a day: morning, afternoon, evening and night)'],
    ['½-0-½', '½-0-½ (twice a day: morning and night)'],
    ['2-0-2', '2-0-2 (twice a day: morning and night)'],
    ['OD', 'Once a day (OD)'],
    ['od', 'Once a day (OD)'],
    ['BD', 'Twice a day (BD)'],
    ['b.d.', 'Twice a day (BD)'],
    ['BID', 'Twice a day (BD)'],
    ['TDS', 'Three times a day (TDS)'],
    ['tid', 'Three times a day (TDS)'],
    ['QID', 'Four times a day (QID)'],
    ['HS', 'At bedtime (HS)'],
    ['SOS', 'When required (SOS)'],
    ['prn', 'When required (SOS)'],
    ['STAT', 'Immediately, once (STAT)'],
  ])('reads %s as %s', (input, expected) => {
    expect(normalizeFrequency(input)).toBe(expected);
  });

  it.each([
    ['1/2-0-1/2', '½-0-½ (twice a day: morning and night)'],
    ['1 1/2-0-1', '1½-0-1 (twice a day: morning and night)'],
    ['1–0–1', '1-0-1 (twice a day: morning and night)'],
    ['Q6H', 'Every 6 hours (Q6H)'],
    ['q8h', 'Every 8 hours (Q8H)'],
    ['Q12H', 'Every 12 hours (Q12H)'],
    ['Q4H', 'Every 4 hours (Q4H)'],
    ['q.6.h.', 'Every 6 hours (Q6H)'],
    ['every 8 hours', 'Every 8 hours (Q8H)'],
    ['Once every 8 hours', 'Every 8 hours (Q8H)'],
    ['12 hourly', 'Every 12 hours (Q12H)'],
    ['twice daily', 'Twice a day (BD)'],
    ['Twice a day', 'Twice a day (BD)'],
    ['BDS', 'Twice a day (BD)'],
    ['thrice daily', 'Three times a day (TDS)'],
    ['3 times a day', 'Three times a day (TDS)'],
    ['once daily', 'Once a day (OD)'],
    ['four times daily', 'Four times a day (QID)'],
    ['OD HS', 'At bedtime (HS)'],
    ['at bedtime', 'At bedtime (HS)'],
    ['as needed', 'When required (SOS)'],
    ['1-1-1-1', '1-1-1-1 (four times a day: morning, afternoon, evening and night)'],
  ])('reads %s, as typed on a keyboard, as %s', (input, expected) => {
    expect(normalizeFrequency(input)).toBe(expected);
    // Its own output reads back the same: normalising twice changes nothing.
    expect(normalizeFrequency(expected)).toBe(expected);
  });

  it.each(['Q0H', 'Q25H', 'every 30 hours', '7 times a week', 'every other Sunday', 'BD x 0 days', 'Every 6 hours (Q8H)'])('keeps %s as written: it is not a frequency it reads', (input) => {
    expect(normalizeFrequency(input)).toBe(input);
  });

  it('gives a structured dose pattern the same string as its notation', () => {
    expect(normalizeFrequency({ morning: 1, night: 1 })).toBe(normalizeFrequency('1-0-1'));
    expect(normalizeFrequency({ morning: 1, afternoon: 1, evening: 1, night: 1 })).toBe(normalizeFrequency('1-1-1-1'));
  });

  it('reads a structured pattern without any dose as no frequency', () => {
    expect(normalizeFrequency({})).toBe('');
    expect(buildMedication({ drugName: 'ORS sachet', frequency: { morning: 0 } })).toEqual({ drugName: 'ORS sachet' });
  });

  it("keeps the doctor's text when the frequency cannot be parsed", () => {
    expect(normalizeFrequency('  alternate days   after dialysis ')).toBe('alternate days after dialysis');
    expect(normalizeFrequency('1-0')).toBe('1-0');
  });
});

describe('parseFrequency: frequencies as clinicians write them', () => {
  it.each([
    ['once a week', { kind: 'weekly', timesPerWeek: 1 }, 'Once a week'],
    ['weekly', { kind: 'weekly', timesPerWeek: 1 }, 'Once a week'],
    ['OW', { kind: 'weekly', timesPerWeek: 1 }, 'Once a week'],
    ['twice a week', { kind: 'weekly', timesPerWeek: 2 }, 'Twice a week'],
    ['BIW', { kind: 'weekly', timesPerWeek: 2 }, 'Twice a week'],
    ['thrice weekly', { kind: 'weekly', timesPerWeek: 3 }, 'Three times a week'],
    ['TIW', { kind: 'weekly', timesPerWeek: 3 }, 'Three times a week'],
    ['4 times a week', { kind: 'weekly', timesPerWeek: 4 }, 'Four times a week'],
    ['alternate day', { kind: 'alternateDays' }, 'On alternate days'],
    ['Alternate days', { kind: 'alternateDays' }, 'On alternate days'],
    ['AD', { kind: 'alternateDays' }, 'On alternate days'],
    ['EOD', { kind: 'alternateDays' }, 'On alternate days'],
    ['every other day', { kind: 'alternateDays' }, 'On alternate days'],
    ['every Monday', { kind: 'weekdays', days: ['mon'] }, 'Every Monday'],
    ['Mon, Thu', { kind: 'weekdays', days: ['mon', 'thu'] }, 'Every Monday and Thursday'],
    ['on Sundays', { kind: 'weekdays', days: ['sun'] }, 'Every Sunday'],
    ['Mon/Wed/Fri', { kind: 'weekdays', days: ['mon', 'wed', 'fri'] }, 'Every Monday, Wednesday and Friday'],
    ['Thursday and Monday', { kind: 'weekdays', days: ['mon', 'thu'] }, 'Every Monday and Thursday'],
    ['q6h', { kind: 'interval', hours: 6 }, 'Every 6 hours (Q6H)'],
    ['every 6 hours', { kind: 'interval', hours: 6 }, 'Every 6 hours (Q6H)'],
    ['1-0-1-0-1', { kind: 'pattern', doses: ['1', '0', '1', '0', '1'], timesPerDay: 3 }, '1-0-1-0-1 (three times a day)'],
    ['1-1-1-1-1', { kind: 'pattern', doses: ['1', '1', '1', '1', '1'], timesPerDay: 5 }, '1-1-1-1-1 (five times a day)'],
    ['BD x 5 days', { kind: 'abbreviation', code: 'BD', words: 'Twice a day', duration: { value: 5, unit: 'day' } }, 'Twice a day (BD), for 5 days'],
    ['TDS × 1 wk', { kind: 'abbreviation', code: 'TDS', words: 'Three times a day', duration: { value: 1, unit: 'week' } }, 'Three times a day (TDS), for 1 week'],
    ['1-1-1 after food', { kind: 'pattern', doses: ['1', '1', '1'], timesPerDay: 3, food: 'afterFood' }, '1-1-1 (three times a day: morning, afternoon and night), after food'],
    [
      '1-0-1 before meals x 10d',
      { kind: 'pattern', doses: ['1', '0', '1'], timesPerDay: 2, food: 'beforeFood', duration: { value: 10, unit: 'day' } },
      '1-0-1 (twice a day: morning and night), before food, for 10 days',
    ],
    ['OD empty stomach', { kind: 'abbreviation', code: 'OD', words: 'Once a day', food: 'emptyStomach' }, 'Once a day (OD), on an empty stomach'],
    ['once a week for 8 weeks', { kind: 'weekly', timesPerWeek: 1, duration: { value: 8, unit: 'week' } }, 'Once a week, for 8 weeks'],
  ])('reads %s into structure', (input, parsed, words) => {
    expect(parseFrequency(input)).toEqual(parsed);
    expect(normalizeFrequency(input)).toBe(words);
    // Its own words read back the same.
    expect(parseFrequency(words)).toEqual(parsed);
    expect(normalizeFrequency(words)).toBe(words);
  });

  it.each(['alternate days after dialysis', 'every other Sunday', 'BD x 0 days', '7 times a week', 'Mon Wed Fri fortnightly', 'after lunch on Sundays'])('keeps %s as text', (input) => {
    expect(parseFrequency(input)).toEqual({ kind: 'text', text: input });
  });

  it('reads a pattern with no dose (0-0-0) as a pattern of no times a day, which lint refuses', () => {
    expect(parseFrequency('0-0-0')).toEqual({ kind: 'pattern', doses: ['0', '0', '0'], timesPerDay: 0 });
    expect(normalizeFrequency('0-0-0')).toBe('0-0-0');
  });
});

describe('normalizeDuration', () => {
  it.each([
    [{ value: 5, unit: 'day' as const }, '5 days'],
    [{ value: 1, unit: 'week' as const }, '1 week'],
    [{ value: 3, unit: 'months' as const }, '3 months'],
    ['5d', '5 days'],
    ['x 5 days', '5 days'],
    ['for 2 weeks', '2 weeks'],
    ['2 wks', '2 weeks'],
    ['1 Month', '1 month'],
    ['1 day', '1 day'],
  ])('reads %j as %s', (input, expected) => {
    expect(normalizeDuration(input)).toBe(expected);
  });

  it('keeps the text when the duration cannot be parsed', () => {
    expect(normalizeDuration(' till next review ')).toBe('till next review');
    expect(normalizeDuration('5 fortnights')).toBe('5 fortnights');
  });
});

describe('buildMedication', () => {
  it('produces consistent strings from structured and written input', () => {
    expect(buildMedication({ drugName: ' Metformin 500 mg tablet ', dosage: '1 tablet', frequency: 'bd', duration: { value: 30, unit: 'day' }, instructions: 'after food' })).toEqual({
      drugName: 'Metformin 500 mg tablet',
      dosage: '1 tablet',
      frequency: 'Twice a day (BD)',
      duration: '30 days',
      instructions: 'after food',
    });
  });

  it('leaves out blank optional fields', () => {
    expect(buildMedication({ drugName: 'ORS sachet', dosage: ' ', instructions: '' })).toEqual({ drugName: 'ORS sachet' });
  });

  it('reports every problem with its path', () => {
    const issues = issuesOf(() => buildMedication({ drugName: '', frequency: 3, duration: { value: -1, unit: 'fortnight' } } as never));
    expect(issues.map((i) => [i.path, i.code])).toEqual(
      expect.arrayContaining([
        ['/drugName', 'empty'],
        ['/frequency', 'type'],
        ['/duration/value', 'out-of-range'],
        ['/duration/unit', 'not-allowed'],
      ]),
    );
  });

  it('says once which types a frequency may have', () => {
    const issues = issuesOf(() => buildMedication({ drugName: 'X', frequency: 3 } as never));
    expect(issues).toEqual([expect.objectContaining({ path: '/frequency', code: 'type', message: 'frequency must be a string or an object' })]);
  });
});

describe('the small builders', () => {
  it('buildHospital trims and drops blank optional fields', () => {
    expect(buildHospital({ name: ' Sanjeevani Family Clinic ', id: 'IN2910000123', phone: '', email: 'desk@clinic.example' })).toEqual({
      name: 'Sanjeevani Family Clinic',
      id: 'IN2910000123',
      email: 'desk@clinic.example',
    });
  });

  it('buildHospital rejects a name of blanks', () => {
    expect(issuesOf(() => buildHospital({ name: '   ', id: 'IN2910000123' }))).toEqual([expect.objectContaining({ path: '/name', code: 'empty' })]);
  });

  it('buildDoctor keeps the registration number and HPR id', () => {
    expect(buildDoctor({ name: 'Dr. Meera Iyer', licNumber: 'KMC-45678', hpId: '71-2665-5777-2713' })).toEqual({
      name: 'Dr. Meera Iyer',
      licNumber: 'KMC-45678',
      hpId: '71-2665-5777-2713',
    });
  });

  it('buildDiagnosis upper-cases the ICD-10 code and never invents one', () => {
    expect(buildDiagnosis({ diagnosisName: 'Type 2 diabetes mellitus', icdCode: 'e11.9', status: 'Confirmed' })).toEqual({
      diagnosisName: 'Type 2 diabetes mellitus',
      status: 'confirmed',
      icdCode: 'E11.9',
    });
    expect(buildDiagnosis({ diagnosisName: 'Viral fever' })).toEqual({ diagnosisName: 'Viral fever' });
  });

  it('buildLabInvestigation keeps instructions when given', () => {
    expect(buildLabInvestigation({ testName: 'Lipid profile', instructions: '12 hours fasting' })).toEqual({ testName: 'Lipid profile', instructions: '12 hours fasting' });
  });

  it('buildBundleData leaves out empty lists', () => {
    expect(buildBundleData({ hospital, doctor, medications: [], diagnosis: [{ diagnosisName: 'Viral fever' }] })).toEqual({
      hospital,
      doctor,
      diagnosis: [{ diagnosisName: 'Viral fever' }],
    });
  });

  it('buildBundleData rejects unknown fields instead of dropping them', () => {
    expect(issuesOf(() => buildBundleData({ hospital, doctor, vitals: 'BP 130/80' } as never))).toEqual([
      // the 3rd key, by position: keys are the caller's data
      expect.objectContaining({ path: '/#2', code: 'unknown-field' }),
    ]);
  });
});

describe('buildCareContext', () => {
  const base = { hospital, doctor, visitId: 'OPD-2026-0042', visitDate: '2026-11-20' };

  it('derives hiType, referenceNumber and display when not given', () => {
    expect(buildCareContext({ ...base, medications: [{ drugName: 'Cetirizine 10 mg', frequency: 'HS' }] })).toEqual({
      referenceNumber: 'OPD-2026-0042-Prescription',
      display: 'Prescription at Sanjeevani Family Clinic on 20 Nov 2026',
      hiType: 'Prescription',
      bundleData: { hospital, doctor, medications: [{ drugName: 'Cetirizine 10 mg', frequency: 'At bedtime (HS)' }] },
    });
  });

  it('keeps referenceNumber, display and hiType when given', () => {
    const cc = buildCareContext({ ...base, hiType: 'DiagnosticReport', referenceNumber: 'LAB-1', display: 'Blood test report', documentUrl: 'https://x.example/r.pdf' });
    expect([cc.referenceNumber, cc.display, cc.hiType]).toEqual(['LAB-1', 'Blood test report', 'DiagnosticReport']);
  });

  it('numbers the second care context of the same hiType', () => {
    expect(buildCareContext({ ...base, occurrence: 2, medications: [{ drugName: 'X' }] }).referenceNumber).toBe('OPD-2026-0042-Prescription-2');
  });
});

describe('defaultHiType', () => {
  it.each([
    [{ medications: [{ drugName: 'X' }] }, 'Prescription'],
    [{ medications: [{ drugName: 'X' }], diagnosis: [{ diagnosisName: 'Y' }] }, 'Prescription'],
    [{ medications: [{ drugName: 'X' }], advice: 'Rest' }, 'OPConsultation'],
    [{ labInvestigations: [{ testName: 'CBC' }] }, 'OPConsultation'],
    [{ documentUrl: 'https://x.example/a.pdf' }, 'HealthDocumentRecord'],
    [{}, 'OPConsultation'],
    [{ inpatientStay: { admittedAt: '2026-11-15' } }, 'DischargeSummary'],
    [{ inpatientStay: { admittedAt: '2026-11-15' }, medications: [{ drugName: 'X' }], diagnosis: [{ diagnosisName: 'Y' }], advice: 'Rest' }, 'DischargeSummary'],
    [{ immunizations: [{ vaccine: 'BCG', date: '2026-11-20' }] }, 'ImmunizationRecord'],
    [{ immunizations: [{ vaccine: 'BCG', date: '2026-11-20' }], documentUrl: 'https://x.example/certificate.pdf' }, 'ImmunizationRecord'],
    [{ immunizations: [{ vaccine: 'BCG', date: '2026-11-20' }], medications: [{ drugName: 'X' }] }, 'OPConsultation'],
  ])('%j → %s', (content, hiType) => {
    expect(defaultHiType(content)).toBe(hiType);
  });
});

describe('derived labels', () => {
  it('referenceNumber replaces characters ABDM rejects and keeps different ids apart', () => {
    const a = deriveReferenceNumber('OPD#42', 'OPConsultation', 1);
    const b = deriveReferenceNumber('OPD&42', 'OPConsultation', 1);
    expect(a).toMatch(/^OPD-42-[0-9a-f]{8}-OPConsultation$/);
    expect(a).not.toBe(b);
  });

  it('display uses only characters ABDM accepts and at most 255 of them', () => {
    const d = deriveDisplay('Prescription', 'सञ्जीवनी Clinic & Hospital #2 '.repeat(20), '2026-11-20');
    expect(d).toMatch(/^[a-zA-Z0-9_\-@,. "':|()/]+$/);
    expect(d.length).toBeLessThanOrEqual(255);
    expect(d.endsWith(' on 20 Nov 2026')).toBe(true);
  });

  it('display falls back to type and date when the hospital name has no usable characters', () => {
    expect(deriveDisplay('OPConsultation', 'सञ्जीवनी', '2026-11-20')).toBe('OP Consultation on 20 Nov 2026');
  });
});

describe('buildLinkRequest', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('builds every bundled example into a valid request', () => {
    for (const name of ['opd-prescription', 'lab-order', 'multi-care-context']) {
      const req = buildLinkRequest(example(name));
      expect(validateLinkRequest(req).success).toBe(true);
      const committed = JSON.parse(readFileSync(new URL(`../examples/${name}.request.json`, import.meta.url), 'utf8')) as unknown;
      expect(req).toEqual(committed);
    }
  });

  it('does not mutate its input', () => {
    const input = deepFreeze(example('multi-care-context'));
    const copy = structuredClone(input);
    buildLinkRequest(input);
    expect(input).toEqual(copy);
  });

  it('gives the same output for the same input, whatever the clock says', () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2020-01-01T00:00:00Z'));
    const first = buildLinkRequest(example('lab-order'));
    vi.setSystemTime(new Date('2031-06-30T12:00:00Z'));
    expect(buildLinkRequest(example('lab-order'))).toEqual(first);
  });

  it('returns fresh objects that share nothing with the input', () => {
    const input = example('opd-prescription');
    const req = buildLinkRequest(input);
    expect(req.careContexts[0]?.bundleData.hospital).not.toBe(input.hospital);
    expect(req.careContexts[0]?.bundleData.diagnosis).not.toBe(input.diagnosis);
  });

  it('takes hipId from the hospital id unless given', () => {
    expect(buildLinkRequest(visit('2026-11-20')).hipId).toBe('IN2910000123');
  });

  it('gives each care context of a visit its own reference, numbering repeats of a hiType', () => {
    const input = visit('2026-11-20', {
      careContexts: [{ medications: [{ drugName: 'A', dosage: '1', frequency: 'OD' }] }, { medications: [{ drugName: 'B', dosage: '1', frequency: 'OD' }] }],
    });
    delete input.medications;
    expect(buildLinkRequest(input).careContexts.map((c) => c.referenceNumber)).toEqual(['OPD-1-Prescription', 'OPD-1-Prescription-2']);
  });

  it('uses the care context doctor when one is given', () => {
    const other = { name: 'Dr. Farah Siddiqui', licNumber: 'DMC-77120' };
    const input = visit('2026-11-20', { careContexts: [{ doctor: other, medications: [{ drugName: 'A', dosage: '1', frequency: 'OD' }] }] });
    delete input.medications;
    expect(buildLinkRequest(input).careContexts[0]?.bundleData.doctor).toEqual(other);
  });

  it('refuses content at the top level next to careContexts instead of dropping it', () => {
    const input = visit('2026-11-20', { careContexts: [{ medications: [{ drugName: 'A' }] }], advice: 'Rest' });
    const issues = issuesOf(() => buildLinkRequest(input));
    expect(issues.map((i) => [i.path, i.code])).toEqual([
      ['/medications', 'content-outside-care-contexts'],
      ['/advice', 'content-outside-care-contexts'],
    ]);
  });

  it('refuses an empty careContexts list', () => {
    const input = visit('2026-11-20', { careContexts: [] });
    delete input.medications;
    expect(issuesOf(() => buildLinkRequest(input))).toEqual([expect.objectContaining({ path: '/careContexts', code: 'empty-care-contexts' })]);
  });

  it('reports every schema issue at once with paths into the clinical input', () => {
    const input = {
      hospital: { name: 'Sanjeevani Family Clinic' },
      doctor: {},
      patient: {},
      visit: { id: 'OPD-1', at: '2026-11-20' },
      careContexts: [{ medications: [{ dosage: '1 tablet' }] }],
      vitals: {},
    } as unknown as ClinicalInput;
    const issues = issuesOf(() => buildLinkRequest(input));
    expect(issues.map((i) => [i.path, i.code]).sort()).toEqual(
      [
        ['/careContexts/0/medications/0/drugName', 'required'],
        ['/doctor/name', 'required'],
        ['/hospital/id', 'required'],
        ['/patient/abhaAddress', 'required'],
        ['/#5', 'unknown-field'], // vitals, the 6th key
      ].sort(),
    );
  });

  it('maps lint errors back to the clinical input', () => {
    const input = example('multi-care-context');
    const report = input.careContexts?.[2];
    if (report === undefined) throw new Error('example changed');
    report.documentUrl = 'http://records.greenvalley.example/r.pdf';
    expect(issuesOf(() => buildLinkRequest(input))).toEqual([expect.objectContaining({ path: '/careContexts/2/documentUrl', code: 'document-url-not-https' })]);
  });

  it('maps a lint error on a derived field to the field it came from', () => {
    const input = visit('2026-11-20');
    input.patient.abhaAddress = 'asha.verma@gmail';
    expect(issuesOf(() => buildLinkRequest(input))).toEqual([expect.objectContaining({ path: '/patient/abhaAddress', code: 'abha-address-shape' })]);
  });

  it('returns lint warnings beside a successful build', () => {
    const input = visit('2026-11-20', { medications: [{ drugName: 'Cetirizine 10 mg tablet', genericName: 'Cetirizine' }] });
    const r = safeBuildLinkRequest(input);
    expect(r.success).toBe(true);
    if (r.success)
      expect(r.warnings.map((w) => [w.path, w.code])).toEqual([
        ['/hiType', 'hi-type-inferred'], // information: Prescription, chosen from the medications
        ['/medications/0/dosage', 'medication-without-dosage'],
        ['/medications/0/frequency', 'medication-without-frequency'],
      ]);
  });

  it('flags a visit in the future only when told the time', () => {
    const input = visit('2026-11-22T09:00:00+05:30');
    expect(safeBuildLinkRequest(input).success).toBe(true);
    const r = safeBuildLinkRequest(input, { lint: { now: new Date('2026-11-21T12:00:00+05:30') } });
    expect(r.success ? [] : r.issues).toEqual([expect.objectContaining({ path: '/visit/at', code: 'visit-date-in-future' })]);
  });

  it('can skip lint', () => {
    const input = visit('2026-11-20');
    input.patient.abhaAddress = 'not-an-abha-address';
    expect(buildLinkRequest(input, { lint: false }).abhaAddress).toBe('not-an-abha-address');
  });

  it('keeps health data out of error messages', () => {
    const input = visit('2026-11-20', { medications: [{ drugName: 'Olanzapine 10 mg SECRET-DRUG', frequency: 42 as never }] });
    input.patient.abhaAddress = 'secret.person@gmail';
    try {
      buildLinkRequest(input);
      throw new Error('expected a ValidationError');
    } catch (e) {
      const text = `${String(e)} ${JSON.stringify(e)} ${(e as Error).stack ?? ''}`;
      expect(text).not.toContain('SECRET-DRUG');
      expect(text).not.toContain('secret.person');
      expect(isValidationError(e)).toBe(true);
    }
  });
});

describe('hiType names that are also Object.prototype members', () => {
  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])('builds with hiType %s and reports it through lint, not a crash', (hiType) => {
    const input = visit('2026-11-20', { hiType });
    const r = safeBuildLinkRequest(input);
    expect(r.success ? [] : r.issues.map((i) => [i.path, i.code])).toEqual([['/hiType', 'unknown-hi-type']]);
    expect(deriveDisplay(hiType, 'Sanjeevani Family Clinic', '2026-11-20')).toBe(`${hiType.replace(/[^a-zA-Z0-9_\-@,. "':|()/]+/g, ' ').trim()} at Sanjeevani Family Clinic on 20 Nov 2026`);
  });
});

describe('buildLinkRequest with an inpatient stay and immunisations', () => {
  /** The visit without its medication, with `extra`. */
  const without = (extra: Partial<ClinicalInput>): ClinicalInput => {
    const v: Partial<ClinicalInput> = visit('2026-11-18T11:00:00+05:30');
    delete v.medications;
    return { ...(v as ClinicalInput), ...extra };
  };
  const stay = { admittedAt: '2026-11-15T21:40:00+05:30', dischargedAt: '2026-11-18T11:00:00+05:30', chiefComplaints: ['Abdominal pain'] };

  it('keeps the link request to the spec: the stay and the immunisations stay out of bundleData', () => {
    const plain = buildLinkRequest(visit('2026-11-18T11:00:00+05:30', { hiType: 'DischargeSummary' }));
    const withStay = buildLinkRequest(visit('2026-11-18T11:00:00+05:30', { hiType: 'DischargeSummary', inpatientStay: stay, immunizations: [{ vaccine: 'Tdap', date: '2026-11-18' }] }));
    expect(withStay).toEqual(plain);
    expect(validateLinkRequest(withStay).success).toBe(true);
    expect(withStay.careContexts[0]?.hiType).toBe('DischargeSummary');
  });

  it('gives an ImmunizationRecord its own reference number by default', () => {
    const r = buildLinkRequest(without({ immunizations: [{ vaccine: 'BCG', date: '2026-11-20' }] }));
    expect(r.careContexts.map((c) => [c.hiType, c.referenceNumber])).toEqual([['ImmunizationRecord', 'OPD-1-ImmunizationRecord']]);
  });

  it('reports a discharge before the admission, at dischargedAt', () => {
    const issues = issuesOf(() => buildLinkRequest(visit('2026-11-18T11:00:00+05:30', { inpatientStay: { admittedAt: '2026-11-18T10:00:00+05:30', dischargedAt: '2026-11-18T09:00:00+05:30' } })));
    expect(issues.map((i) => [i.path, i.code])).toEqual([['/inpatientStay/dischargedAt', 'discharge-before-admission']]);
  });

  it('compares an admission without offset in the facility time zone', () => {
    // 10:00 in Kolkata is 04:30 UTC: a discharge at 05:00 UTC the same day comes after it.
    const r = safeBuildLinkRequest(visit('2026-11-18T11:00:00+05:30', { inpatientStay: { admittedAt: '2026-11-18T10:00:00', dischargedAt: '2026-11-18T05:00:00Z' } }));
    expect(r.success).toBe(true);
  });

  it('reports dates that do not exist and schema errors with their paths, inside careContexts too', () => {
    const input: ClinicalInput = without({
      careContexts: [{ inpatientStay: { admittedAt: '2026-02-30', procedures: [{ name: 'X', date: '2026-11-31T10:00:00' }] } }, { immunizations: [{ vaccine: 'BCG', date: '2026-13-01' }] }],
    });
    expect(issuesOf(() => buildLinkRequest(input)).map((i) => [i.path, i.code])).toEqual([
      ['/careContexts/0/inpatientStay/admittedAt', 'invalid-datetime'],
      ['/careContexts/0/inpatientStay/procedures/0/date', 'invalid-datetime'],
      ['/careContexts/1/immunizations/0/date', 'invalid-datetime'],
    ]);
    const schema = { ...input, careContexts: [{ immunizations: [{ vaccine: 'BCG', date: '2026-11-18', vaccineCode: { code: 'BCG-1', display: 'BCG' } }] }] } as ClinicalInput;
    expect(issuesOf(() => buildLinkRequest(schema)).map((i) => [i.path, i.code])).toEqual([['/careContexts/0/immunizations/0/vaccineCode/code', 'invalid-snomed-code']]);
  });

  it('reports an inpatient stay at the top level beside careContexts', () => {
    const input = without({ inpatientStay: stay, careContexts: [{ advice: 'Rest' }] });
    expect(issuesOf(() => buildLinkRequest(input)).map((i) => [i.path, i.code])).toEqual([['/inpatientStay', 'content-outside-care-contexts']]);
  });
});

describe('issues about the inpatient stay and immunisations never quote the input', () => {
  it('names fields and expectations only', () => {
    const secret = 'SECRET-Tuberculosis';
    const input = visit('2026-11-18T11:00:00+05:30', {
      hiType: 'DischargeSummary',
      inpatientStay: { admittedAt: '2026-11-18', dischargedAt: '2026-11-17', chiefComplaints: [secret], procedures: [{ name: secret, code: { code: secret, display: secret } }] },
      immunizations: [{ vaccine: secret, date: '2026-02-30', lotNumber: secret }],
    });
    const r = safeBuildLinkRequest(input);
    expect(r.success).toBe(false);
    expect(r.success ? [] : [...new Set(r.issues.map((i) => i.path))]).toEqual(['/inpatientStay/procedures/0/code/code']);
    expect(JSON.stringify(r)).not.toContain('SECRET');
    const dates = safeBuildLinkRequest({ ...input, inpatientStay: { admittedAt: '2026-11-18', dischargedAt: '2026-11-17', chiefComplaints: [secret] } });
    expect(dates.success ? [] : dates.issues.map((i) => [i.path, i.code])).toEqual([
      ['/inpatientStay/dischargedAt', 'discharge-before-admission'],
      ['/immunizations/0/date', 'invalid-datetime'],
    ]);
    expect(JSON.stringify(dates)).not.toContain('SECRET');
  });
});
