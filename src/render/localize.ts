/**
 * The text the library writes itself, in the document's language(s): record
 * types, sex, diagnosis status, age, dates, frequencies, durations, dose
 * units and common timing phrases. Free text (drug names, the doctor's
 * words) is printed as given; only what abha-link generated or recognises
 * exactly is translated.
 */
import { FOOD_TIMING, parseFrequency, type FoodTiming, type FrequencyCore, type FrequencyExtras, type ParsedFrequency } from '../spec/frequency.js';
import { formatDate, fill, list, plural, weekdayName } from './messages/format.js';
import type { Messages, PluralMessage } from './messages/types.js';

const DURATION = /^(\d{1,4}(?:\.\d{1,2})?) (day|week|month|year)s?$/;
const DOSE = /^(\d{1,3}(?:\.\d{1,2})?|\d?½|(?:\d )?1\/2)\s*(tablets?|tabs?\.?|capsules?|caps?\.?|ml|mls|drops?|puffs?|sachets?|teaspoons?|tsp\.?)$/i;
const UNIT_OF: ReadonlyArray<readonly [RegExp, keyof Messages['units']]> = [
  [/^tab/i, 'tablet'],
  [/^cap/i, 'capsule'],
  [/^ml/i, 'ml'],
  [/^drop/i, 'drop'],
  [/^puff/i, 'puff'],
  [/^sachet/i, 'sachet'],
  [/^(teaspoon|tsp)/i, 'teaspoon'],
];
const SEX: Readonly<Record<string, keyof Messages['sex']>> = { m: 'M', male: 'M', f: 'F', female: 'F', o: 'O', other: 'O', u: 'U', unknown: 'U' };
const SLOTS3 = ['morning', 'afternoon', 'night'] as const;
const SLOTS4 = ['morning', 'afternoon', 'evening', 'night'] as const;

function doseValue(s: string): number {
  const t = s.replace(/1\/2$/, '½').replace(/\s/g, '');
  if (t.endsWith('½')) return (t.length > 1 ? Number(t.slice(0, -1)) : 0) + 0.5;
  return Number(t);
}

/** A frequency split into the notation (kept as written: 1-0-1, BD, Q6H; empty when there is none) and the phrase in words, or null for free text. */
export interface FrequencyWords {
  readonly notation: string;
  /** Whether the notation goes first (`1-0-1 (twice a day…)`) or after the words (`Twice a day (BD)`). */
  readonly notationFirst: boolean;
  readonly phrase: string;
}

/** How many times a day, 1 to 5 (a count the reader gives only for patterns of up to five slots). */
function timesADay(m: Messages, n: number): string {
  if (n === 5) return m.dosing.fiveTimesADay;
  return n >= 1 && n <= 4 ? m.frequency.timesADay[n as 1 | 2 | 3 | 4] : m.dosing.noDose;
}

/** The notation and the words of how often, without extras. */
function coreWords(m: Messages, f: FrequencyCore): FrequencyWords {
  switch (f.kind) {
    case 'abbreviation':
      return { notation: f.code, notationFirst: false, phrase: m.frequency[f.code] };
    case 'interval':
      return { notation: `Q${f.hours}H`, notationFirst: false, phrase: plural(m, m.frequency.everyHours, f.hours) };
    case 'pattern': {
      const notation = f.doses.join('-');
      const taken = f.doses.flatMap((d, i) => (doseValue(d) > 0 ? [i] : []));
      // No dose at all, or five times of day (which have no agreed names): the count only.
      if (taken.length === 0 || f.doses.length === 5) return { notation, notationFirst: true, phrase: timesADay(m, taken.length) };
      const slots = f.doses.length === 3 ? SLOTS3 : SLOTS4;
      const named = taken.map((i) => m.frequency.slots[slots[i] ?? 'morning']);
      return { notation, notationFirst: true, phrase: fill(m.frequency.pattern, { times: timesADay(m, taken.length), slots: list(m, named) }) };
    }
    case 'weekly':
      return { notation: '', notationFirst: false, phrase: plural(m, m.dosing.timesAWeek, f.timesPerWeek) };
    case 'alternateDays':
      return { notation: '', notationFirst: false, phrase: m.dosing.alternateDays };
    case 'weekdays':
      return {
        notation: '',
        notationFirst: false,
        phrase: fill(m.dosing.onDays, {
          days: list(
            m,
            f.days.map((d) => weekdayName(m, d)),
          ),
        }),
      };
  }
}

/** The food timing and duration written into a frequency, in words. */
function extraWords(m: Messages, f: FrequencyExtras): string[] {
  const words: string[] = [];
  if (f.food !== undefined) words.push(m.timing[f.food]);
  if (f.duration !== undefined) words.push(fill(m.dosing.forDuration, { duration: plural(m, m.duration[f.duration.unit], f.duration.value) }));
  return words;
}

/**
 * The words of a frequency abha-link reads (its own normalised output included), in the language; null for text it
 * does not read.
 *
 * @example
 * frequencyWords(messages.hi, '1-0-1 (twice a day: morning and night)') //=> { notation: '1-0-1', notationFirst: true, phrase: 'दिन में दो बार: सुबह और रात' }
 * frequencyWords(messages.te, 'Every 6 hours (Q6H)') //=> { notation: 'Q6H', notationFirst: false, phrase: 'ప్రతి 6 గంటలకొకసారి' }
 * frequencyWords(messages.hi, 'Twice a day (BD), for 5 days') //=> { notation: 'BD', notationFirst: false, phrase: 'दिन में दो बार, 5 दिन तक' }
 */
export function frequencyWords(m: Messages, text: string): FrequencyWords | null {
  const f: ParsedFrequency = parseFrequency(text);
  if (f.kind === 'text') return null;
  const core = coreWords(m, f);
  return { ...core, phrase: [core.phrase, ...extraWords(m, f)].join(', ') };
}

/**
 * A frequency as printed on its own: `1-0-1 (twice a day: morning and night)`, `Twice a day (BD)`, `Once a week`; free
 * text as given.
 *
 * @example
 * localFrequency(messages.hi, 'Twice a day (BD)') //=> 'दिन में दो बार (BD)'
 */
export function localFrequency(m: Messages, text: string): string {
  const w = frequencyWords(m, text);
  return w === null ? text : frequencyShown(w);
}

/** Words and notation together: `1-0-1 (…)`, `… (BD)`, or the words alone when there is no notation. */
export function frequencyShown(w: FrequencyWords): string {
  if (w.notation === '') return capitalise(w.phrase);
  return w.notationFirst ? `${w.notation} (${w.phrase})` : `${w.phrase} (${w.notation})`;
}

/** The first letter in upper case (English phrases that begin a cell); scripts without case are unchanged. */
function capitalise(s: string): string {
  return s.charAt(0).toLocaleUpperCase('en-IN') + s.slice(1);
}

/**
 * A duration abha-link wrote (`5 days`, `1 month`) in the language; anything else as given.
 *
 * @example
 * localDuration(messages.hi, '3 months') //=> '3 महीने'
 */
export function localDuration(m: Messages, text: string): string | null {
  const d = DURATION.exec(text);
  if (d === null) return null;
  return plural(m, m.duration[d[2] as keyof Messages['duration']], Number(d[1]));
}

/**
 * A dose of a known unit (`1 tablet`, `½ tab`, `5 ml`) in the language; null for anything else.
 *
 * @example
 * localDose(messages.hi, '2 tablets') //=> '2 गोलियाँ'
 */
export function localDose(m: Messages, text: string): string | null {
  const d = DOSE.exec(text.trim());
  if (d === null) return null;
  const unit = UNIT_OF.find(([re]) => re.test(d[2] ?? ''))?.[1];
  if (unit === undefined) return null;
  const written = (d[1] ?? '').replace(/(\d) 1\/2$/, '$1½').replace(/^1\/2$/, '½');
  const value = doseValue(written);
  const message: PluralMessage = m.units[unit];
  // Less than one is one of a thing, not many: "½ tablet", "0.5 tablet".
  if (value < 1) return plural(m, message, 1, written);
  return plural(m, message, value, written.includes('½') ? written : undefined);
}

type Meal = 'food' | 'breakfast' | 'lunch' | 'dinner';
type Relation = 'before' | 'after' | 'with';
const MEAL_OF: Readonly<Record<string, Meal>> = { food: 'food', meal: 'food', meals: 'food', breakfast: 'breakfast', lunch: 'lunch', dinner: 'dinner', supper: 'dinner' };
/** "30 minutes before breakfast", "1 hour after food", "after lunch", "with dinner", "half an hour before meals". */
const MEAL_TIMING = /^(?:(\d{1,3}|half an?) ?(minutes?|mins?|hours?|hrs?|h) )?(before|after|with) (food|meals?|breakfast|lunch|dinner|supper)$/;
/** "do not exceed 5 days", "not more than 5 days", "max 5 days", "for not more than 2 weeks". */
const AT_MOST = /^(?:do not (?:exceed|use (?:for )?more than|take (?:for )?more than)|(?:for )?not (?:more|longer) than|max(?:imum)?\.?|up to) (\d{1,3}) ?(days?|d|weeks?|wks?)$/;

/** A food or meal timing without an amount of time, in the language. */
function mealWords(m: Messages, relation: Relation, meal: Meal): string {
  const table: Readonly<Record<Relation, Readonly<Record<Meal, string>>>> = {
    before: { food: m.timing.beforeFood, breakfast: m.timing.beforeBreakfast, lunch: m.dosing.beforeLunch, dinner: m.dosing.beforeDinner },
    after: { food: m.timing.afterFood, breakfast: m.dosing.afterBreakfast, lunch: m.dosing.afterLunch, dinner: m.dosing.afterDinner },
    with: { food: m.timing.withFood, breakfast: m.dosing.withBreakfast, lunch: m.dosing.withLunch, dinner: m.dosing.withDinner },
  };
  return table[relation][meal];
}

/** One piece of instructions ("after lunch", "30 minutes before breakfast", "at night") in the language; null when it is not one the library reads. */
function instructionPiece(m: Messages, piece: string): string | null {
  const food = (Object.keys(FOOD_TIMING) as FoodTiming[]).find((k) => FOOD_TIMING[k].read.test(piece));
  if (food !== undefined) return m.timing[food];
  if (/^(?:at )?bed ?time$|^h\.?s\.?$/.test(piece)) return m.timing.atBedtime;
  if (/^(?:in the )?morning$/.test(piece)) return m.dosing.inTheMorning;
  if (/^(?:at )?night$/.test(piece)) return m.dosing.atNight;
  if (/^(?:(?:as|when|if) (?:needed|required)|s\.?o\.?s\.?|p\.?r\.?n\.?)$/.test(piece)) return m.dosing.asNeeded;
  if (/^sip (?:it )?(?:through|throughout) the day$/.test(piece)) return m.dosing.sipThroughTheDay;
  if (/^(?:finish|complete) the (?:full )?course$/.test(piece)) return m.dosing.finishTheCourse;
  const most = AT_MOST.exec(piece);
  if (most !== null) return fill(m.dosing.notMoreThan, { duration: plural(m, m.duration[/^w/.test(most[2] ?? '') ? 'week' : 'day'], Number(most[1])) });
  const t = MEAL_TIMING.exec(piece);
  if (t === null) return null;
  const relation = t[3] as Relation;
  const meal = MEAL_OF[t[4] ?? 'food'] ?? 'food';
  if (t[1] === undefined) return mealWords(m, relation, meal);
  if (relation === 'with') return null;
  const half = t[1].startsWith('half');
  const hours = !half && /^h/.test(t[2] ?? '');
  const time = hours ? plural(m, m.dosing.hours, Number(t[1])) : plural(m, m.dosing.minutes, half ? 30 : Number(t[1]));
  return fill((relation === 'before' ? m.dosing.timedBefore : m.dosing.timedAfter)[meal], { time });
}

/**
 * Instructions the library reads, in the language: timing relative to food and meals (`after lunch`, `30 minutes
 * before breakfast`, `1 hour before food`), `morning`, `at night`, `at bedtime`, `empty stomach`, `as needed`,
 * `do not exceed 5 days`, `sip through the day`, alone or several joined by commas; null for anything else (which
 * then prints as the doctor wrote it).
 *
 * @example
 * localInstructions(messages.hi, 'after food') //=> 'खाना खाने के बाद'
 * localInstructions(messages.ta, '30 minutes before breakfast') //=> 'காலை உணவுக்கு 30 நிமிடம் முன்'
 * localInstructions(messages.hi, 'morning, before breakfast') //=> 'सुबह, नाश्ते से पहले'
 * localInstructions(messages.hi, 'after dialysis') //=> null
 */
export function localInstructions(m: Messages, text: string): string | null {
  const pieces = text
    .trim()
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[.]$/, '')
    .split(/ ?[,;] ?/);
  const words = pieces.map((p) => instructionPiece(m, p.replace(/^\((.*)\)$/, '$1')));
  return words.length === 0 || words.some((w) => w === null) ? null : words.join(', ');
}

/** Dose forms the library names in every language, by the words a form is written with. */
const FORM_OF: ReadonlyArray<readonly [RegExp, keyof Messages['dosing']['forms']]> = [
  [/^(?:tab(?:let)?s?\.?)$/, 'tablet'],
  [/^(?:cap(?:sule)?s?\.?)$/, 'capsule'],
  [/^(?:syr(?:up)?\.?)$/, 'syrup'],
  [/^(?:susp(?:ension)?\.?|oral suspension)$/, 'suspension'],
  [/^(?:inj(?:ection)?\.?)$/, 'injection'],
  [/^(?:drops?|eye drops?|ear drops?|nasal drops?|oral drops?)$/, 'drops'],
  [/^(?:oint(?:ment)?\.?)$/, 'ointment'],
  [/^(?:cream)$/, 'cream'],
  [/^(?:gel)$/, 'gel'],
  [/^(?:inhaler|mdi|rotacaps?)$/, 'inhaler'],
  [/^(?:powder)$/, 'powder'],
  [/^(?:sachets?)$/, 'sachet'],
  [/^(?:(?:nasal |throat |oral )?spray)$/, 'spray'],
  [/^(?:gargles?|mouthwash)$/, 'gargle'],
];
/** Routes the library names in every language. */
const ROUTE_OF: ReadonlyArray<readonly [RegExp, keyof Messages['dosing']['routes']]> = [
  [/^(?:oral(?:ly)?|p\.?o\.?|by mouth)$/, 'oral'],
  [/^(?:topical(?:ly)?|local(?:ly)?|external(?:ly)?|local application)$/, 'topical'],
  [/^(?:intravenous(?:ly)?|i\.?v\.?)$/, 'intravenous'],
  [/^(?:intramuscular(?:ly)?|i\.?m\.?)$/, 'intramuscular'],
  [/^(?:subcutaneous(?:ly)?|s\.?c\.?|s\.?q\.?)$/, 'subcutaneous'],
  [/^(?:inhal(?:ation|ed)|inh\.?)$/, 'inhalation'],
  [/^(?:nasal|intranasal)$/, 'nasal'],
  [/^(?:eye|ocular|ophthalmic)$/, 'eye'],
  [/^(?:ear|otic)$/, 'ear'],
  [/^(?:sublingual|s\.?l\.?)$/, 'sublingual'],
  [/^(?:rectal|p\.?r\.?)$/, 'rectal'],
  [/^(?:vaginal|p\.?v\.?)$/, 'vaginal'],
  [/^(?:gargle|as a gargle)$/, 'gargle'],
];

/**
 * A dose form (`tablet`, `tab`, `syrup`) in the language; null for anything else.
 *
 * @example
 * localForm(messages.ta, 'tablet') //=> 'மாத்திரை'
 */
export function localForm(m: Messages, text: string): string | null {
  const t = text.trim().toLowerCase();
  const key = FORM_OF.find(([re]) => re.test(t))?.[1];
  return key === undefined ? null : m.dosing.forms[key];
}

/**
 * A route (`oral`, `PO`, `IM`, `topical`) in the language; null for anything else.
 *
 * @example
 * localRoute(messages.hi, 'oral') //=> 'मुँह से'
 */
export function localRoute(m: Messages, text: string): string | null {
  const t = text.trim().toLowerCase();
  const key = ROUTE_OF.find(([re]) => re.test(t))?.[1];
  return key === undefined ? null : m.dosing.routes[key];
}

/**
 * A test result's flag (`High`, `H`, `low`, `normal`) in the language; null for anything else.
 *
 * @example
 * localFlag(messages.hi, 'High') //=> 'ज़्यादा'
 */
export function localFlag(m: Messages, text: string): string | null {
  const t = text.trim().toLowerCase();
  const key = /^(?:h|high|above normal|raised|elevated)$/.test(t) ? 'high' : /^(?:l|low|below normal)$/.test(t) ? 'low' : /^(?:n|normal|within normal limits|wnl)$/.test(t) ? 'normal' : null;
  return key === null ? null : m.dosing.flags[key];
}

/**
 * The sex (M, F, O, U, or the words) in the language; null for anything else.
 *
 * @example
 * localSex(messages.hi, 'F') //=> 'महिला'
 */
export function localSex(m: Messages, text: string): string | null {
  const key = SEX[text.trim().toLowerCase()];
  return key === undefined || !Object.hasOwn(SEX, text.trim().toLowerCase()) ? null : m.sex[key];
}

/**
 * A diagnosis status (confirmed, provisional…) in the language; null for anything else.
 *
 * @example
 * localStatus(messages.hi, 'provisional') //=> 'अनुमानित'
 */
export function localStatus(m: Messages, text: string): string | null {
  const key = text.trim().toLowerCase();
  return Object.hasOwn(m.diagnosisStatus, key) ? m.diagnosisStatus[key as keyof Messages['diagnosisStatus']] : null;
}

/**
 * An age in years (or months under one) in the language.
 *
 * @example
 * localAge(messages.en, { years: 48 }) //=> '48 y'
 */
export function localAge(m: Messages, age: { years: number } | { months: number }): string {
  return 'years' in age ? plural(m, m.age.years, age.years) : plural(m, m.age.months, age.months);
}

/**
 * A YYYY-MM-DD date in the language.
 *
 * @example
 * localDate(messages.hi, '2026-11-20') //=> '20 नवंबर 2026'
 */
export function localDate(m: Messages, date: string): string {
  return formatDate(m, date);
}
