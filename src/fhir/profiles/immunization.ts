/**
 * ImmunizationRecord (NRCeS IG 6.5.0): one section, code fixed to SNOMED CT
 * 41000179103 "Immunization record", entries sliced by type (closed):
 * Immunization (any number), at most one ImmunizationRecommendation (the
 * next doses due, one recommendation each) and DocumentReference (the
 * certificate). No place for diagnoses, medications, lab orders or advice.
 */
import type { ImmunizationInput } from '../../generated/types.js';
import { issue, type Assembly } from '../assembly.js';
import { PROFILES, RECORD_PROFILES, STAY_CODES, SYSTEMS } from '../constants.js';
import { codedSection, documentLine, li } from '../narrative.js';
import type { CompositionSection, Immunization, ImmunizationRecommendation, ImmunizationRecommendationRecommendation, Reference } from '../r4.js';
import { documentBytes, documentReference, misfitClinicalContent, reportDocumentProblem } from '../resources.js';
import { isolatedXhtml as iso } from '../xhtml.js';
import { conceptOf, dateTimeOf } from './stay-resources.js';

const meta = (p: string): { profile: string[] } => ({ profile: [p] });
const words = (v: string | undefined): string | undefined => (v === undefined || v.trim() === '' ? undefined : v.trim());

/** One Immunization per dose given: the vaccine in words (SNOMED CT coded only when given), lot, manufacturer, site, route, dose number. */
function immunizationOf(a: Assembly, im: ImmunizationInput): Immunization & { id: string } {
  const [lot, maker, site, route] = [words(im.lotNumber), words(im.manufacturer), words(im.site), words(im.route)];
  const dose = im.doseNumber;
  return {
    resourceType: 'Immunization',
    id: a.nextId('Immunization'),
    meta: meta(PROFILES.Immunization),
    status: 'completed',
    vaccineCode: conceptOf(im.vaccine.trim(), im.vaccineCode, SYSTEMS.snomed),
    patient: a.refs.patient,
    encounter: a.refs.encounter,
    occurrenceDateTime: dateTimeOf(a, im.date) as string,
    ...(lot !== undefined ? { lotNumber: lot } : {}),
    // The manufacturer is known by name only: a display, not an Organization the NRCeS profile could not accept without its identifier.
    ...(maker !== undefined ? { manufacturer: { display: maker } } : {}),
    ...(site !== undefined ? { site: { text: site } } : {}),
    ...(route !== undefined ? { route: { text: route } } : {}),
    ...(dose === undefined ? {} : { protocolApplied: [typeof dose === 'number' ? { doseNumberPositiveInt: dose } : { doseNumberString: dose.trim() }] }),
  };
}

/** The next doses due, one recommendation per immunisation with `nextDue`, each citing its dose. */
function recommendation(a: Assembly, due: ReadonlyArray<{ im: ImmunizationInput; ref: Reference }>): Reference | undefined {
  if (due.length === 0) return undefined;
  const recommendations: ImmunizationRecommendationRecommendation[] = due.map(({ im, ref }) => ({
    vaccineCode: [conceptOf(im.vaccine.trim(), im.vaccineCode, SYSTEMS.snomed)],
    forecastStatus: { coding: [{ ...STAY_CODES.recommendationDue }] },
    dateCriterion: [{ code: { coding: [{ ...STAY_CODES.dateVaccineDue }] }, value: (im.nextDue as string).trim() }],
    supportingImmunization: [{ ...ref }],
  }));
  const r: ImmunizationRecommendation & { id: string } = {
    resourceType: 'ImmunizationRecommendation',
    id: a.nextId('ImmunizationRecommendation'),
    meta: meta(PROFILES.ImmunizationRecommendation),
    patient: a.refs.patient,
    date: a.job.when,
    authority: a.refs.organization,
    recommendation: recommendations,
  };
  return a.add(r);
}

/** `Covishield, dose 2, 2026-11-20 (lot 4121Z005; left deltoid; intramuscular); next dose due 2027-05-20`. */
function immunizationLine(im: ImmunizationInput): string {
  const details = [im.lotNumber !== undefined ? `lot ${iso(im.lotNumber)}` : undefined, ...[im.manufacturer, im.site, im.route].map((d) => (d !== undefined ? iso(d) : undefined))];
  const shown = details.filter((x): x is string => x !== undefined);
  const dose = im.doseNumber !== undefined ? `, dose ${iso(String(im.doseNumber))}` : '';
  return `${iso(im.vaccine)}${dose}, ${iso(im.date)}${shown.length > 0 ? ` (${shown.join('; ')})` : ''}${im.nextDue !== undefined ? `; next dose due ${iso(im.nextDue)}` : ''}`;
}

/** The single section of an ImmunizationRecord, or none with an error when there is neither a dose nor the certificate. */
export function immunizationSections(a: Assembly): CompositionSection[] {
  const given = a.job.clinical?.immunizations ?? [];
  const refs = given.map((im) => a.add(immunizationOf(a, im)));
  const next = recommendation(
    a,
    given.flatMap((im, i) => (im.nextDue !== undefined ? [{ im, ref: refs[i] as Reference }] : [])),
  );
  const lines = given.map(immunizationLine);
  if (next !== undefined) refs.push(next);
  const doc = documentBytes(a);
  if (typeof doc === 'object') {
    refs.push(documentReference(a, doc));
    lines.push(documentLine(doc));
  } else if (doc !== 'none') reportDocumentProblem(a, doc, given.length === 0);
  misfitClinicalContent(a);
  if (refs.length === 0) {
    if (doc === 'none') a.report(issue(a.job.at.content(), 'empty-document', 'an ImmunizationRecord needs at least one immunization or the embedded certificate document'));
    return [];
  }
  return [codedSection('Immunization record', RECORD_PROFILES.ImmunizationRecord.section.coding, refs, li(lines))];
}
