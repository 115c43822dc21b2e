import type { Doctor } from '../generated/types.js';
import { checkInput, checkOutput } from './check.js';
import { compact, text } from '../util.js';

/**
 * Builds `bundleData.doctor`: name, medical registration (licence) number
 * and HPR id. Strings are trimmed; blank optional fields are left out.
 *
 * @throws ValidationError listing every issue of the input
 * @example
 * buildDoctor({ name: 'Dr. Meera Iyer', licNumber: 'KMC-45678', hpId: '71-2665-5777-2713' })
 * //=> { name: 'Dr. Meera Iyer', licNumber: 'KMC-45678', hpId: '71-2665-5777-2713' }
 */
export function buildDoctor(input: Doctor): Doctor {
  return checkOutput('doctor', makeDoctor(checkInput('doctor', input)));
}

/** @internal Builds from an input already checked against its schema. */
export function makeDoctor(d: Doctor): Doctor {
  return compact({ name: d.name.trim(), licNumber: text(d.licNumber), hpId: text(d.hpId) });
}
