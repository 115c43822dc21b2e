/**
 * `--icd10-titles FILE` (abha-link fhir, abha-link serve): the hospital's
 * ICD-10 title table, read once, its unusable rows reported on stderr by line
 * (at most {@link SHOWN} of them, then a count), never silently dropped.
 */
import { parseIcd10Titles, type Icd10TitleTable } from '../fhir/icd10-titles.js';
import { plural } from '../util.js';
import { UsageError, cliIo, readText } from './io.js';

/** How many unusable rows are listed one by one; the rest are counted. */
const SHOWN = 20;

/**
 * Reads and parses the title table of `file` (a regular file, strict UTF-8),
 * writing what cannot be used to stderr as `FILE:LINE message (code)`.
 *
 * @throws UsageError when the file cannot be read, or holds no code with a title
 */
export async function readIcd10TitlesFile(file: string): Promise<Icd10TitleTable> {
  if (file === '-') throw new UsageError('--icd10-titles needs a file (standard input carries the document)');
  const table = parseIcd10Titles(await readText(file, { regularOnly: true }));
  const err = cliIo().stderr;
  for (const i of table.issues.slice(0, SHOWN)) err.write(`${file}:${i.line} ${i.message} (${i.code})\n`);
  if (table.issues.length > SHOWN) err.write(`${file}: ${plural(table.issues.length - SHOWN, 'more row')} left out or warned about, as above\n`);
  if (table.count === 0) {
    throw new UsageError(
      `--icd10-titles: ${file} holds no ICD-10 code with a title; give a CSV or TSV file of code and title (E11.9,Type 2 diabetes mellitus without complications) or WHO's ClaML XML release`,
    );
  }
  return table;
}
