/**
 * Baseline of the NDJSON benchmark: reads a file with the CLI's own line
 * reader (streamLines of dist/cli/io.js) and only JSON.parse-s each line.
 * No validation, no output per document.
 *
 * Usage: node bench/baseline-parse.mjs FILE
 * Prints one JSON summary line on stderr: {"docs":n,"notJson":n}
 */
// The CLI's own reader, so that the baseline differs from `validate --ndjson` only in validation and output.
import { streamLines } from '../dist/cli/io.js';

const file = process.argv[2];
if (file === undefined) {
  process.stderr.write('usage: node bench/baseline-parse.mjs FILE\n');
  process.exit(2);
}
let docs = 0;
let notJson = 0;
let objects = 0;
await streamLines(file, (lines) => {
  for (const l of lines) {
    docs++;
    if (l.tooLong) {
      notJson++;
      continue;
    }
    try {
      const v = JSON.parse(l.text);
      if (v !== null && typeof v === 'object') objects++;
    } catch {
      notJson++;
    }
  }
});
process.stderr.write(`${JSON.stringify({ docs, notJson, objects })}\n`);
