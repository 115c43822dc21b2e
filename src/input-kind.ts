/**
 * Which of abha-link's documents a parsed JSON value is, by its top-level
 * fields: one rule shared by every command and entry point that accepts more
 * than one kind.
 */

import { isObject } from './util.js';

/** The documents abha-link accepts as input. */
export type InputKind = 'clinical-input' | 'link-request' | 'care-context';

const has = (o: Record<string, unknown>, k: string): boolean => Object.hasOwn(o, k);

/**
 * Which kind of input a value is, from its top-level fields: `patient`,
 * `visit` or `doctor` make a clinical input; `bundleData` a care context;
 * `abhaAddress`, `hipId`, `visitDate` or `careContexts` a link request.
 *
 * @example
 * detectInputKind({ hospital: {}, doctor: {}, patient: {}, visit: {} }) //=> 'clinical-input'
 * detectInputKind({ abhaAddress: 'a@sbx', careContexts: [] })           //=> 'link-request'
 * detectInputKind({ referenceNumber: 'R1', bundleData: {} })            //=> 'care-context'
 * detectInputKind([1, 2])                                               //=> undefined
 */
export function detectInputKind(value: unknown): InputKind | undefined {
  if (!isObject(value)) return undefined;
  if (has(value, 'patient') || has(value, 'visit') || has(value, 'doctor')) return 'clinical-input';
  if (has(value, 'bundleData')) return 'care-context';
  if (has(value, 'abhaAddress') || has(value, 'hipId') || has(value, 'visitDate') || has(value, 'careContexts')) return 'link-request';
  return undefined;
}
