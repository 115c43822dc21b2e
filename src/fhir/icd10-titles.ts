/**
 * The hospital's own ICD-10 title table, read from the forms hospitals hold
 * it in: a CSV or TSV file of `code,title` rows (a header row is allowed), or
 * WHO's ClaML XML release. Of a CSV or TSV row, the first column is the
 * code and the second its title; further columns are not read. abha-link ships no table (WHO does not permit
 * redistributing ICD-10 titles); with one of these, a diagnosis's `icdCode`
 * becomes an ICD-10 coding in the NRCeS Condition slice, its display the
 * code's title (`toFhirBundles(input, { icd10Titles })`).
 *
 * Pure: text in, table and issues out. Nothing is guessed: a row whose code is
 * not of ICD-10's shape, or whose title is empty, is reported by its line and
 * left out; the first title of a code repeated with another title is kept.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import sax from 'sax';
import { ICD10_PERMISSIVE } from '../spec/constants.js';

/** One problem with a row of the table: its line (1-based), a code and a message that echoes no cell. */
export interface Icd10TitleIssue {
  readonly line: number;
  readonly code: 'not-icd10-code' | 'empty-title' | 'too-few-columns' | 'extra-columns' | 'duplicate-code' | 'unreadable';
  readonly severity: 'error' | 'warning';
  readonly message: string;
}

/** What {@link parseIcd10Titles} read: the table (code → title), how it was read, and what was left out. */
export interface Icd10TitleTable {
  /** Code (dotted, capitals: `E11.9`) → title. No prototype: a code named `constructor` is only a code. */
  readonly titles: Readonly<Record<string, string>>;
  /** How many codes the table holds. */
  readonly count: number;
  readonly format: Icd10TitleFormat;
  readonly issues: readonly Icd10TitleIssue[];
}

/** The forms {@link parseIcd10Titles} reads. */
export type Icd10TitleFormat = 'csv' | 'tsv' | 'claml';

/** Options of {@link parseIcd10Titles}. */
export interface ParseIcd10TitlesOptions {
  /** The form of the text; default: ClaML when it begins with `<`, TSV when its first line holds a tab, else CSV. */
  readonly format?: Icd10TitleFormat;
}

/**
 * An ICD-10 code as tables write it, in the dotted capitals of WHO's release:
 * `e11.9` and `E119` are `E11.9`; undefined when it is not of ICD-10's shape.
 *
 * @example
 * normalizeIcd10Code(' e119 ') //=> 'E11.9'
 * normalizeIcd10Code('A00-A09') //=> undefined (a block, not a code)
 */
export function normalizeIcd10Code(raw: string): string | undefined {
  let code = raw.trim().toUpperCase();
  if (/^[A-Z][0-9][0-9A-Z][0-9A-Z]{1,4}$/.test(code)) code = `${code.slice(0, 3)}.${code.slice(3)}`;
  return ICD10_PERMISSIVE.test(code) ? code : undefined;
}

/** The title of `code` in `titles`, whichever way the code is written (`E119`, `e11.9`). */
export function icd10Title(titles: Readonly<Record<string, string>>, code: string): string | undefined {
  const key = Object.hasOwn(titles, code) ? code : normalizeIcd10Code(code);
  const title = key !== undefined && Object.hasOwn(titles, key) ? titles[key] : undefined;
  return typeof title === 'string' && title.trim() !== '' ? title.trim() : undefined;
}

function detectFormat(text: string): Icd10TitleFormat {
  const start = text.replace(/^\uFEFF/, '').trimStart();
  if (start.startsWith('<')) return 'claml';
  const firstLine = start.slice(0, start.search(/\r?\n|$/));
  return firstLine.includes('\t') ? 'tsv' : 'csv';
}

/** Collects rows into a table, reporting what cannot be used. */
class TableBuilder {
  readonly titles: Record<string, string> = Object.create(null) as Record<string, string>;
  readonly issues: Icd10TitleIssue[] = [];
  count = 0;

  add(line: number, rawCode: string, rawTitle: string, headerAllowed: boolean): void {
    const code = normalizeIcd10Code(rawCode);
    const title = rawTitle.replace(/\s+/g, ' ').trim();
    if (code === undefined) {
      if (!headerAllowed)
        this.issues.push({
          line,
          code: 'not-icd10-code',
          severity: 'error',
          message: 'the first column is not an ICD-10 code (a letter, two characters, then an optional dotted subdivision, such as E11.9); the row is left out',
        });
      return;
    }
    if (title === '') {
      this.issues.push({ line, code: 'empty-title', severity: 'error', message: `the title of ${code} is empty; the row is left out` });
      return;
    }
    const earlier = this.titles[code];
    if (earlier !== undefined) {
      if (earlier !== title) this.issues.push({ line, code: 'duplicate-code', severity: 'warning', message: `${code} was given an earlier title; the first is kept` });
      return;
    }
    this.titles[code] = title;
    this.count++;
  }

  result(format: Icd10TitleFormat): Icd10TitleTable {
    return { titles: this.titles, count: this.count, format, issues: this.issues };
  }
}

function readDelimited(text: string, format: 'csv' | 'tsv'): Icd10TitleTable {
  const table = new TableBuilder();
  let rows: Array<{ record: string[]; info: { lines: number } }>;
  try {
    rows = parseCsv(text, {
      bom: true,
      delimiter: format === 'tsv' ? '\t' : ',',
      relax_column_count: true,
      relax_quotes: format === 'tsv',
      skip_empty_lines: true,
      info: true,
    }) as unknown as typeof rows;
  } catch (e) {
    const line = typeof (e as { lines?: unknown }).lines === 'number' ? (e as { lines: number }).lines : 1;
    table.issues.push({ line, code: 'unreadable', severity: 'error', message: `the ${format.toUpperCase()} cannot be read from this line on (an unclosed quote?); nothing was read from it` });
    return table.result(format);
  }
  const quoteHint = format === 'csv' ? ' (a title with a comma is written in double quotes)' : '';
  const columns = rows[0]?.record.length ?? 0;
  rows.forEach(({ record, info }, i) => {
    if (record.length < 2) {
      table.issues.push({ line: info.lines, code: 'too-few-columns', severity: 'error', message: `a row needs two columns, the code and its title${quoteHint}; the row is left out` });
      return;
    }
    if (record.length > columns) {
      table.issues.push({ line: info.lines, code: 'extra-columns', severity: 'warning', message: `this row has more columns than the first row${quoteHint}; its second column is taken as the title` });
    }
    table.add(info.lines, record[0] ?? '', record[1] ?? '', i === 0);
  });
  return table.result(format);
}

/** WHO ClaML: each `Class kind="category"`'s code, with the text of its `Rubric kind="preferred"` label. */
function readClaml(text: string): Icd10TitleTable {
  const table = new TableBuilder();
  const parser = sax.parser(true, { trim: false, normalize: false });
  let classCode: string | undefined;
  let classLine = 0;
  let inPreferred = false;
  let labelDepth = 0;
  let label = '';
  let preferred: string | undefined;
  parser.onopentag = (node) => {
    const attr = (name: string): string | undefined => {
      const v = node.attributes[name];
      return typeof v === 'string' ? v : undefined;
    };
    if (node.name === 'Class' && attr('kind') === 'category') {
      classCode = attr('code');
      classLine = parser.line + 1;
      preferred = undefined;
    } else if (node.name === 'Rubric' && classCode !== undefined) inPreferred = attr('kind') === 'preferred';
    else if (node.name === 'Label' && inPreferred && preferred === undefined) {
      labelDepth = 1;
      label = '';
    } else if (labelDepth > 0) labelDepth++;
  };
  parser.ontext = (t) => {
    if (labelDepth > 0) label += t;
  };
  parser.oncdata = parser.ontext;
  // Stop at the first error, where it is (sax would otherwise go on and throw only at the end).
  parser.onerror = (e) => {
    throw e;
  };
  parser.onclosetag = (name) => {
    if (labelDepth > 0) {
      labelDepth--;
      if (labelDepth === 0) preferred = label;
    } else if (name === 'Rubric') inPreferred = false;
    else if (name === 'Class' && classCode !== undefined) {
      table.add(classLine, classCode, preferred ?? '', false);
      classCode = undefined;
    }
  };
  try {
    parser.write(text.replace(/^\uFEFF/, '')).close();
  } catch {
    table.issues.push({ line: parser.line + 1, code: 'unreadable', severity: 'error', message: 'the ClaML XML is not well-formed from this line on; what came before it was read' });
  }
  return table.result('claml');
}

/**
 * Reads the hospital's ICD-10 title table from its text.
 *
 * @example
 * const t = parseIcd10Titles('code,title\nE11.9,Type 2 diabetes mellitus without complications\n')
 * t.titles['E11.9'] //=> 'Type 2 diabetes mellitus without complications'
 * toFhirBundles(input, { icd10Titles: t.titles })
 */
export function parseIcd10Titles(text: string, options: ParseIcd10TitlesOptions = {}): Icd10TitleTable {
  const format = options.format ?? detectFormat(text);
  return format === 'claml' ? readClaml(text) : readDelimited(text, format);
}
