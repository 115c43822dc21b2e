/**
 * `abha-link fhir validate [--format text|json|outcome] FILE...`: any FHIR R4 bundle or
 * resource, checked by the profile-driven NRCeS validator (base R4 structure,
 * and the NRCeS IG profiles the resources declare or are referenced as).
 * Exit 0 when every file is valid, 1 when one is invalid, 2 when one cannot be
 * read or is not JSON.
 */
import type { Issue } from '../../errors.js';
import { validateFhirBundle, type FhirValidationResult } from '../../fhir/nrces/validate.js';
import { toOperationOutcome } from '../../fhir/outcome.js';
import type { OperationOutcome } from '../../fhir/r4.js';
import { detectInputKind } from '../../input-kind.js';
import { plural } from '../../util.js';
import { EXIT, cliIo, issueLines, readJsonInput, stopForClosedOutput, UsageError, writeOut } from '../io.js';

/** `Bundle.entry[3].resource.code` → `/entry/3/resource/code`, to find the line of an issue. */
export function pointerOfFhirPath(path: string): string {
  const dot = path.indexOf('.');
  const bracket = path.indexOf('[');
  const start = [dot, bracket].filter((i) => i >= 0).sort((a, b) => a - b)[0];
  if (start === undefined) return '';
  return path
    .slice(start)
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .slice(1)
    .map((t) => `/${t.replace(/~/g, '~0').replace(/\//g, '~1')}`)
    .join('');
}

const slim = (i: Issue): { path: string; code: string; message: string; severity: string } => ({ path: i.path, code: i.code, message: i.message, severity: i.severity });

/** The formats of `abha-link fhir validate`. */
export type FhirValidateFormat = 'text' | 'json' | 'outcome';

/** What `--format outcome` prints for a file that cannot be read or is not JSON. */
const UNREADABLE: OperationOutcome = {
  resourceType: 'OperationOutcome',
  issue: [{ severity: 'fatal', code: 'structure', details: { text: 'the file cannot be read, or is not JSON (standard error says why)' } }],
};

/** One OperationOutcome: indented when it is the only one, else one per line. */
async function writeOutcome(outcome: OperationOutcome, alone: boolean): Promise<void> {
  await writeOut(`${JSON.stringify(outcome, null, alone ? 2 : undefined)}\n`);
}

const KIND_NAMES = { 'clinical-input': 'a clinical input', 'link-request': 'a link request (link-carecontext-request)', 'care-context': 'a care context' } as const;

/**
 * One of abha-link's own documents given to `fhir validate` by mistake: what it is and which command to use.
 * Undefined for anything that may be FHIR (it has a resourceType, or is none of abha-link's documents).
 */
export function notFhir(value: unknown, file: string): FhirValidationResult | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || Object.hasOwn(value, 'resourceType')) return undefined;
  const kind = detectInputKind(value);
  if (kind === undefined) return undefined;
  const arg = file === '-' ? '-' : 'FILE';
  const make = kind === 'care-context' ? '' : ` \`abha-link fhir ${arg}\` makes FHIR document bundles from it, and \`abha-link validate ${arg}\` checks it.`;
  const message = `this is ${KIND_NAMES[kind]}, not a FHIR resource or bundle (it has no resourceType): abha-link fhir validate checks FHIR.${make}`;
  return { success: false, issues: [{ path: 'Resource', code: 'not-fhir', message, severity: 'error' }] };
}

/** Validates each FILE; returns the exit code. */
export async function runFhirValidate(files: readonly string[], format: FhirValidateFormat, options: { readonly strict?: boolean } = {}): Promise<number> {
  if (files.length === 0) throw new UsageError('abha-link fhir validate needs at least one FILE (- for stdin)');
  let invalid = 0;
  let broken = 0;
  let valid = 0;
  for (const file of files) {
    if (stopForClosedOutput()) break;
    let read;
    try {
      read = await readJsonInput(file === '-' ? undefined : file, { regularOnly: true });
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      cliIo().stderr.write(`abha-link: ${e.message}\n`);
      read = undefined;
    }
    if (read === undefined) {
      broken++;
      if (format === 'json') await writeOut(`${JSON.stringify({ file, valid: false, readable: false })}\n`);
      else if (format === 'outcome') await writeOutcome(UNREADABLE, files.length === 1);
      continue;
    }
    const r = notFhir(read.value, file) ?? validateFhirBundle(read.value, { strict: options.strict === true });
    if (r.success) valid++;
    else invalid++;
    if (format === 'json') await writeOut(`${JSON.stringify({ file: read.name, valid: r.success, issues: r.issues.map(slim), ...(r.truncated === true ? { truncated: true } : {}) })}\n`);
    else if (format === 'outcome') await writeOutcome(toOperationOutcome(r.issues), files.length === 1);
    else {
      const lineOf = (p: string): number => read.lineOf(pointerOfFhirPath(p));
      const text = issueLines(r.issues, read.name, lineOf, undefined, 'use --format json for all');
      if (text !== '') await writeOut(text);
      if (r.truncated === true) await writeOut(`${read.name}: validation stopped at ${plural(r.issues.length, 'issue')} (the cap); fix these and run it again\n`);
    }
  }
  if (format === 'text') cliIo().stderr.write(`${plural(files.length, 'file')}: ${valid} valid, ${invalid} invalid${broken > 0 ? `, ${broken} unreadable` : ''}\n`);
  return broken > 0 ? EXIT.usage : invalid > 0 ? EXIT.invalid : EXIT.ok;
}
