import type { Medication, MedicationInput } from '../generated/types.js';
import { checkInput, checkOutput } from './check.js';
import { compact, text } from '../util.js';
import { normalizeDuration } from './duration.js';
import { normalizeFrequency } from '../spec/frequency.js';

/**
 * Builds an item of `bundleData.medications` from what the doctor wrote.
 *
 * `frequency` may be Indian notation (1-0-1, OD, BD, TDS, QID, HS, SOS, STAT)
 * or a dose pattern `{ morning, afternoon, evening, night }`; `duration` may
 * be text ("5 days", "x 2 wks") or `{ value, unit }`. Both become consistent
 * human strings (see {@link normalizeFrequency}, {@link normalizeDuration});
 * what cannot be parsed is kept as written.
 *
 * @throws ValidationError listing every issue of the input
 * @example
 * buildMedication({ drugName: 'Metformin 500 mg tablet', dosage: '1 tablet', frequency: 'BD',
 *   duration: { value: 30, unit: 'day' }, instructions: 'after food' })
 * //=> { drugName: 'Metformin 500 mg tablet', dosage: '1 tablet', frequency: 'Twice a day (BD)',
 * //     duration: '30 days', instructions: 'after food' }
 */
export function buildMedication(input: MedicationInput): Medication {
  return checkOutput('medication', makeMedication(checkInput('medication-input', input)));
}

/** @internal Builds from an input already checked against its schema. */
export function makeMedication(m: MedicationInput): Medication {
  const frequency = m.frequency === undefined ? undefined : text(normalizeFrequency(m.frequency));
  const duration = m.duration === undefined ? undefined : text(normalizeDuration(m.duration));
  return compact({ drugName: m.drugName.trim(), dosage: text(m.dosage), frequency, duration, instructions: text(m.instructions) });
}
