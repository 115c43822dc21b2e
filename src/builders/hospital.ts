import type { Hospital } from '../generated/types.js';
import { checkInput, checkOutput } from './check.js';
import { compact, text } from '../util.js';

/**
 * Builds `bundleData.hospital`: name and facility id (the HFR id for ABDM),
 * phone and email when known. Strings are trimmed; blank optional fields are
 * left out.
 *
 * @throws ValidationError listing every issue of the input
 * @example
 * buildHospital({ name: ' City Care Clinic ', id: 'IN2910000123', phone: '' })
 * //=> { name: 'City Care Clinic', id: 'IN2910000123' }
 */
export function buildHospital(input: Hospital): Hospital {
  return checkOutput('hospital', makeHospital(checkInput('hospital', input)));
}

/** @internal Builds from an input already checked against its schema. */
export function makeHospital(h: Hospital): Hospital {
  return compact({ name: h.name.trim(), id: h.id.trim(), phone: text(h.phone), email: text(h.email) });
}
