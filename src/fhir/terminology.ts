/**
 * Terminology honesty for diagnoses (issue 12 item 4). An ICD-10 coding's
 * `display` is the code's title, never the doctor's words: the NRCeS
 * Condition profile requires a display in its ICD-10 slice, and abha-link
 * ships no ICD-10 title table (none with a licence that lets us ship it), so
 * a coding is written only when the caller supplies the title
 * (the diagnosis's `icdTitle` from the EMR, else `options.icd10Titles`, the
 * hospital's table). Otherwise, and always for an ICD-11 MMS code (the
 * profile closes its codings to ICD-10 and SNOMED CT), the code is kept in
 * `Condition.code.text` beside the diagnosis name, with a warning. A SNOMED CT
 * concept the EMR holds (`snomed`) is a coding of its own.
 */
import type { Diagnosis, DiagnosisInput } from '../generated/types.js';
import { ICD10_PERMISSIVE, ICD11_MMS } from '../spec/constants.js';
import { issue, type Assembly } from './assembly.js';
import { SYSTEMS } from './constants.js';
import { icd10Title } from './icd10-titles.js';
import type { CodeableConcept, Coding } from './r4.js';

/** The classification an icdCode belongs to, by its shape (ICD-10: digit second; ICD-11 MMS: letter second). */
export function icdSystemOf(code: string): 'ICD-10' | 'ICD-11' | undefined {
  if (ICD11_MMS.test(code)) return 'ICD-11';
  return ICD10_PERMISSIVE.test(code) ? 'ICD-10' : undefined;
}

/** `Type 2 diabetes mellitus (ICD-11 5A11)`: how code.text keeps a code that cannot be a coding. */
export function textWithCode(name: string, code: string): string {
  return `${name} (${icdSystemOf(code) ?? 'ICD-10'} ${code})`;
}

/** Reads {@link textWithCode} back: the name and the code, or undefined when the text does not end so. */
export function codeFromText(text: string): { readonly name: string; readonly code: string } | undefined {
  const m = /^(.+) \((ICD-1[01]) ([^\s()]+)\)$/.exec(text);
  if (m === null) return undefined;
  const [, name = '', system, code = ''] = m;
  return icdSystemOf(code) === system ? { name, code } : undefined;
}

/** A CodeableConcept of codings (none: no `coding`) and a text. */
function concept(coding: readonly Coding[], text: string): CodeableConcept {
  return coding.length > 0 ? { coding: [...coding], text } : { text };
}

/** Condition.code of a diagnosis, reporting where a code is kept in text. */
export function conditionCode(a: Assembly, d: Diagnosis, index: number): CodeableConcept {
  const given: DiagnosisInput | undefined = a.job.clinical?.diagnosis?.[index];
  const snomed: Coding[] = given?.snomed === undefined ? [] : [{ system: SYSTEMS.snomed, code: given.snomed.code.trim(), display: given.snomed.display.trim() }];
  const code = d.icdCode;
  if (given?.icdTitle !== undefined && (code === undefined || icdSystemOf(code) === 'ICD-11'))
    a.report(
      issue(
        a.job.at.content('diagnosis', index, 'icdTitle'),
        'icd-title-not-used',
        'icdTitle is the ICD-10 title of icdCode, and this diagnosis has no ICD-10 icdCode: the title has no place and is left out',
        'warning',
      ),
    );
  if (code === undefined) return concept(snomed, d.diagnosisName);
  const at = a.job.at.content('diagnosis', index, 'icdCode');
  if (icdSystemOf(code) === 'ICD-11') {
    a.report(
      issue(
        at,
        'icd11-in-text',
        'icdCode is an ICD-11 MMS code: the NRCeS Condition profile allows codings of ICD-10 and SNOMED CT only, so the code is kept in Condition.code.text beside the diagnosis name, not as a coding',
        'warning',
      ),
    );
    return concept(snomed, textWithCode(d.diagnosisName, code));
  }
  const titles = a.options.icd10Titles;
  const title = given?.icdTitle?.trim() ?? (titles === undefined ? undefined : icd10Title(titles, code));
  if (title !== undefined) return concept([{ system: SYSTEMS.icd10, code, display: title }, ...snomed], d.diagnosisName);
  a.report(
    issue(
      at,
      'icd10-title-unknown',
      `the NRCeS Condition profile needs an ICD-10 coding's display to be the code's title, not the diagnosis as written, and ${titles === undefined ? 'no ICD-10 title table was given (abha-link ships none)' : 'the ICD-10 title table given has no title for this code'}: the code is kept in Condition.code.text. To write it as a coding, give the diagnosis its icdTitle from the EMR, or supply the hospital's licensed ICD-10 title table (CSV or TSV of code and title, or WHO ClaML XML): --icd10-titles FILE on abha-link fhir and abha-link serve, or the option icd10Titles of toFhirBundles (parseIcd10Titles reads the file's text)`,
      'warning',
    ),
  );
  return concept(snomed, textWithCode(d.diagnosisName, code));
}
