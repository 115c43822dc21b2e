/**
 * The rules of a FHIR document bundle that no NRCeS profile expresses, or
 * that the validator decides in code at a more precise path than the
 * invariant's: each a named rule with its own issue code. Entries (fullUrl
 * form and uniqueness, bdl-7, bdl-8, bdl-3), the document's identifier,
 * timestamp and first entry (bdl-9, bdl-10, bdl-11), the resource id that
 * matches its `urn:uuid` fullUrl, the profiles a document's resources should
 * declare, and the sections of a Composition (cmp-1, cmp-2). Issues never
 * carry a value of the bundle.
 */
import type { Severity } from '../../errors.js';
import { PROFILES } from '../constants.js';
import { safeResourceType } from '../structure.js';
import { isObject } from '../../util.js';

type Json = Record<string, unknown>;
type Path = ReadonlyArray<string | number>;
/** Reports one issue at a path of the bundle. */
export type Report = (path: Path, code: string, message: string, severity?: Severity) => void;

/** The invariants these rules decide (not evaluated again from the profiles), and dom-6 (a best-practice guideline). */
export const DOCUMENT_RULE_INVARIANTS: ReadonlySet<string> = new Set(['dom-6', 'bdl-3', 'bdl-7', 'bdl-8', 'bdl-9', 'bdl-10', 'bdl-11', 'cmp-1', 'cmp-2']);

const UUID = /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ABSOLUTE = /^[a-z][a-z0-9+.-]*:/i;

/** Entry `i`'s fullUrl: absolute, a lower-case UUID when `urn:uuid`, not versioned (bdl-8), unique (bdl-7). */
function fullUrlRules(full: string, i: number, seen: ReadonlySet<string>, report: Report): void {
  // A urn:uuid fullUrl (the usual one) is absolute, and one with a valid UUID has no `/_history/` in it.
  const uuid = full.startsWith('urn:uuid:');
  const valid = uuid && UUID.test(full);
  if (!uuid && !ABSOLUTE.test(full))
    report(['entry', i, 'fullUrl'], 'relative-full-url', 'fullUrl must be an absolute URI such as urn:uuid:…; relative fullUrls fail the NRCeS DocumentBundle profile');
  else if (uuid && !valid) report(['entry', i, 'fullUrl'], 'invalid-full-url', 'a urn:uuid fullUrl must carry a lower-case UUID');
  if (!valid && full.includes('/_history/')) report(['entry', i, 'fullUrl'], 'bdl-8', 'fullUrl cannot be a version-specific reference (FHIR bdl-8)');
  if (seen.has(full)) report(['entry', i, 'fullUrl'], 'bdl-7', 'fullUrl must be unique in a bundle (FHIR bdl-7)');
}

/** The entries of any bundle, and of a document: each needs a fullUrl and a resource, and no request or response (bdl-3). */
function entryRules(entries: readonly unknown[], isDocument: boolean, report: Report): void {
  const seen = new Set<string>();
  for (let i = 0; i < entries.length; i++) {
    const en = entries[i];
    if (!isObject(en)) continue;
    const r = en.resource;
    const full = typeof en.fullUrl === 'string' ? en.fullUrl : undefined;
    if (full !== undefined) {
      fullUrlRules(full, i, seen, report);
      seen.add(full);
    } else if (isDocument) report(['entry', i, 'fullUrl'], 'required', 'every entry of a document needs a fullUrl so that references to it resolve');
    if (isDocument && r === undefined) report(['entry', i, 'resource'], 'required', 'every entry of a document must have a resource');
    if (isDocument && (en.request !== undefined || en.response !== undefined)) report(['entry', i], 'bdl-3', 'entries of a document have no request or response');
    if (!isObject(r) || typeof r.resourceType !== 'string' || typeof r.id !== 'string') continue;
    // `r.id !== full.slice(9)`, without the slice.
    if (full !== undefined && full.startsWith('urn:uuid:') && (r.id.length !== full.length - 9 || !full.endsWith(r.id)))
      report(['entry', i, 'resource', 'id'], 'id-mismatch', 'the resource id must match the UUID of its fullUrl', 'warning');
  }
}

/** A document's own rules: identifier (bdl-9), timestamp (bdl-10), a Composition first (bdl-11), the DocumentBundle profile declared. */
function documentRules(bundle: Json, entries: readonly unknown[], report: Report): void {
  const id = isObject(bundle.identifier) ? bundle.identifier : undefined;
  if (id?.system === undefined || id.value === undefined) report(['identifier'], 'bdl-9', 'a document must have an identifier with a system and a value (FHIR bdl-9)');
  if (bundle.timestamp === undefined) report(['timestamp'], 'bdl-10', 'a document must have a timestamp (FHIR bdl-10)');
  const first = entries[0];
  if (!isObject(first) || !isObject(first.resource) || first.resource.resourceType !== 'Composition')
    report(entries.length === 0 ? ['entry'] : ['entry', 0, 'resource'], 'bdl-11', 'the first entry of a document must be a Composition (FHIR bdl-11)');
  const profiles = isObject(bundle.meta) && Array.isArray(bundle.meta.profile) ? bundle.meta.profile : [];
  if (!profiles.includes(PROFILES.DocumentBundle))
    report(['meta', 'profile'], 'missing-profile', `the bundle does not declare the NRCeS DocumentBundle profile (${PROFILES.DocumentBundle}); its rules were not applied`, 'warning');
}

/** Every entry of a document should declare its NRCeS profile; said once per resource (the validator replaces it with the profile it applied instead, if any). */
function declaredProfiles(entries: readonly unknown[], report: Report): void {
  entries.forEach((en, i) => {
    const r = isObject(en) ? en.resource : undefined;
    if (!isObject(r) || typeof r.resourceType !== 'string') return;
    const declared = isObject(r.meta) && Array.isArray(r.meta.profile) ? r.meta.profile : [];
    if (declared.length === 0)
      report(['entry', i, 'resource', 'meta', 'profile'], 'missing-profile', `${safeResourceType(r.resourceType)} declares no profile in meta.profile; NRCeS rules were not applied to it`, 'warning');
  });
}

/** The rules of a Bundle that no profile expresses: its entries and, for a document, the document's own. */
export function bundleRules(bundle: Json, report: Report): void {
  const entries = Array.isArray(bundle.entry) ? bundle.entry : [];
  const isDocument = bundle.type === 'document';
  entryRules(entries, isDocument, report);
  if (!isDocument) return;
  documentRules(bundle, entries, report);
  declaredProfiles(entries, report);
}

/** cmp-1 and cmp-2 of each section of a Composition, at the section (or its emptyReason), nested sections included. */
export function sectionRules(sections: unknown, path: Path, report: Report, depth = 0): void {
  if (!Array.isArray(sections) || depth > 16) return;
  // The path of a section is made only when it has an issue or sub-sections.
  sections.forEach((s, i) => {
    if (!isObject(s)) return;
    const hasEntries = Array.isArray(s.entry) && s.entry.length > 0;
    if (s.text === undefined && !hasEntries && s.section === undefined) report([...path, i], 'cmp-1', 'a section must contain at least one of text, entries, or sub-sections (FHIR cmp-1)');
    if (s.emptyReason !== undefined && hasEntries) report([...path, i, 'emptyReason'], 'cmp-2', 'a section can only have an emptyReason if it is empty (FHIR cmp-2)');
    if (Array.isArray(s.section)) sectionRules(s.section, [...path, i, 'section'], report, depth + 1);
  });
}
