/**
 * What the renderer does around the model: one visit summary gathered from
 * every care context of the visit, the checks on the caller's `custom`
 * object, and the warnings for values a printed page expects but the input
 * does not give (nothing is left blank without a word).
 */
import type { Issue } from '../errors.js';
import type { CareContext } from '../generated/types.js';
import type { InputKind } from '../input-kind.js';
import type { CustomData, DocumentSource } from './model.js';

/** The hiType of a gathered visit summary (not an ABDM hiType). */
export const VISIT_SUMMARY_HI_TYPE = 'VisitSummary';

/**
 * One source for the whole visit: every care context's diagnoses,
 * medications, investigations and advice, with the first one's hospital and
 * doctor. One care context stays itself.
 */
export function gatherVisit(sources: readonly DocumentSource[]): DocumentSource {
  const first = sources[0];
  if (first === undefined) throw new RangeError('a visit has at least one care context');
  if (sources.length === 1) return first;
  const records = sources.map((s) => s.careContext);
  const b = first.careContext.bundleData;
  const documentUrl = records.map((r) => r.bundleData.documentUrl).find((u) => u !== undefined);
  const careContext: CareContext = {
    referenceNumber: first.visitId ?? first.careContext.referenceNumber,
    display: first.careContext.display,
    hiType: VISIT_SUMMARY_HI_TYPE,
    bundleData: { hospital: b.hospital, doctor: b.doctor, ...(documentUrl === undefined ? {} : { documentUrl }) },
  };
  // Medication details follow the medications, care context by care context.
  const medications = sources.flatMap((s) => (s.careContext.bundleData.medications ?? []).map((_, i) => s.details?.medications[i] ?? {}));
  return { ...first, careContext, records, details: { doctor: first.details?.doctor ?? {}, medications } };
}

const MAX_CUSTOM_BYTES = 64 * 1024;
const MAX_CUSTOM_DEPTH = 8;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Why a value is not plain JSON, or undefined when it is. */
function customProblem(v: unknown, depth: number, path: string): string | undefined {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return undefined;
  if (typeof v === 'number') return Number.isFinite(v) ? undefined : `${path || 'custom'} is not a finite number`;
  if (typeof v !== 'object') return `${path || 'custom'} is a ${typeof v}, not a JSON value`;
  if (depth >= MAX_CUSTOM_DEPTH) return `custom is nested more than ${MAX_CUSTOM_DEPTH} levels deep`;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const p = customProblem(v[i], depth + 1, `${path}/${i}`);
      if (p !== undefined) return p;
    }
    return undefined;
  }
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return `${path || 'custom'} is not a plain object`;
  for (const k of Object.keys(v)) {
    if (FORBIDDEN_KEYS.has(k)) return `${path}/${k} is not allowed (a prototype key)`;
    const p = customProblem((v as Record<string, unknown>)[k], depth + 1, `${path}/${k}`);
    if (p !== undefined) return p;
  }
  return undefined;
}

/**
 * The caller's `custom` object as a fresh JSON copy, or a TypeError naming
 * what is wrong: not a plain object, a value that is not JSON, more than 8
 * levels, more than 64 KiB as JSON, or a prototype key.
 */
export function checkCustom(custom: unknown): CustomData {
  if (custom === null || typeof custom !== 'object' || Array.isArray(custom)) throw new TypeError('custom must be a JSON object');
  const problem = customProblem(custom, 0, '');
  if (problem !== undefined) throw new TypeError(problem);
  const json = JSON.stringify(custom);
  if (Buffer.byteLength(json, 'utf8') > MAX_CUSTOM_BYTES) throw new TypeError(`custom is larger than ${MAX_CUSTOM_BYTES / 1024} KiB as JSON`);
  return JSON.parse(json) as CustomData;
}

/**
 * Warnings for what a printed page expects and the input does not give: the
 * patient's name (the page then has a blank line for it), the visit date,
 * the doctor's registration number, and, from a clinical input, the doctor's
 * qualification and council. One warning per value, with the path where it
 * would be given.
 */
export function missingValueWarnings(kind: InputKind, sources: readonly DocumentSource[]): Issue[] {
  const out = new Map<string, Issue>();
  const warn = (path: string, code: string, message: string): void => {
    if (!out.has(`${code}${path}`)) out.set(`${code}${path}`, { path, code, message, severity: 'warning' });
  };
  const clinical = kind === 'clinical-input';
  sources.forEach((s, i) => {
    if (s.patient.name === undefined || s.patient.name.trim() === '')
      warn(
        clinical ? '/patient/name' : '',
        'missing-patient-name',
        clinical
          ? "patient.name is not given: the page has a blank line for the patient's name"
          : 'a link request or care context carries no patient name: the page has a blank line for it; give the patient (CLI --patient FILE, render option patient)',
      );
    if (s.visitDate === undefined) warn('', 'missing-visit-date', 'the visit date is not known: the page carries no date; give it (render option context.visitDate)');
    const d = s.careContext.bundleData.doctor;
    const doctorPath = clinical ? '/doctor' : kind === 'link-request' ? `/careContexts/${i}/bundleData/doctor` : '/bundleData/doctor';
    if (d.licNumber === undefined || d.licNumber.trim() === '')
      warn(`${doctorPath}/licNumber`, 'missing-registration', "the doctor's registration number (licNumber) is not given: the Indian Medical Council regulations ask for it on the page");
    if (clinical && s.details?.doctor.qualification === undefined)
      warn(`${doctorPath}/qualification`, 'missing-qualification', "the doctor's qualification is not given: the Indian Medical Council regulations ask for it on the page");
    if (clinical && d.licNumber !== undefined && s.details?.doctor.council === undefined)
      warn(`${doctorPath}/council`, 'missing-council', 'the medical council of the registration number is not given: the registration particulars are printed without it');
  });
  return [...out.values()];
}
