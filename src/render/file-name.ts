/**
 * File names from care-context references, shared by `abha-link render`
 * (HTML/PDF) and `abha-link fhir` (JSON bundles): data never becomes a path.
 */

/**
 * A safe, unique file name (without extension) for a care-context reference:
 * characters outside `A-Z a-z 0-9 _ . -` become `-`, leading and trailing
 * dots and dashes go, at most 120 characters, Windows device names (CON,
 * PRN, AUX, NUL, COM1…, LPT1…) and empty results get a `document` prefix,
 * and a name already in `used` (compared case-insensitively, as Windows and
 * macOS do) gets `-2`, `-3`…. Adds the name to `used`.
 *
 * @example
 * const used = new Set<string>()
 * uniqueFileName('OPD/2026:0042', used) //=> 'OPD-2026-0042'
 * uniqueFileName('opd-2026-0042', used) //=> 'opd-2026-0042-2'
 * uniqueFileName('../../etc/passwd', used) //=> 'etc-passwd'
 * uniqueFileName('CON', used)           //=> 'document-CON'
 */
export function uniqueFileName(referenceNumber: string, used: Set<string>): string {
  let base = referenceNumber
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .replace(/^[.-]+|[.-]+$/g, '')
    .slice(0, 120);
  if (base === '' || /^(con|prn|aux|nul|com\d|lpt\d)(\..*)?$/i.test(base)) base = `document${base === '' ? '' : `-${base}`}`;
  let name = base;
  for (let n = 2; used.has(name.toLowerCase()); n++) name = `${base}-${n}`;
  used.add(name.toLowerCase());
  return name;
}
