/**
 * `abha-link fhir validate [--format text|json] FILE...`: any FHIR R4 bundle or
 * resource, checked by the profile-driven NRCeS validator (base R4 structure,
 * and the NRCeS IG profiles the resources declare or are referenced as).
 * Exit 0 when every file is valid, 1 when one is invalid, 2 when one cannot be
 * read or is not JSON.
 */
import type { Issue } from '../../errors.js';
import { validateFhirBundle } from '../../fhir/nrces/validate.js';
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

/** Validates each FILE; returns the exit code. */
export async function runFhirValidate(files: readonly string[], format: 'text' | 'json'): Promise<number> {
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
      continue;
    }
    const r = validateFhirBundle(read.value);
    if (r.success) valid++;
    else invalid++;
    if (format === 'json') await writeOut(`${JSON.stringify({ file: read.name, valid: r.success, issues: r.issues.map(slim) })}\n`);
    else {
      const lineOf = (p: string): number => read.lineOf(pointerOfFhirPath(p));
      const text = issueLines(r.issues, read.name, lineOf, undefined, 'use --format json for all');
      if (text !== '') await writeOut(text);
    }
  }
  if (format === 'text') cliIo().stderr.write(`${plural(files.length, 'file')}: ${valid} valid, ${invalid} invalid${broken > 0 ? `, ${broken} unreadable` : ''}\n`);
  return broken > 0 ? EXIT.usage : invalid > 0 ? EXIT.invalid : EXIT.ok;
}
