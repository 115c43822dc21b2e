/**
 * Baseline of the NDJSON benchmark: reads a file the way `abha-link validate
 * --ndjson` does (src/cli/io.ts streamLines: 1 MiB read stream, StringDecoder,
 * split on \n with a carry, drop \r and a leading BOM, skip blank lines,
 * hand batches of lines to an async callback) and only JSON.parse-s each line.
 * No validation, no output per document.
 *
 * Usage: node bench/baseline-parse.mjs FILE
 * Prints one JSON summary line on stderr: {"docs":n,"notJson":n}
 */
import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

const maxLineLength = 64 * 1024 * 1024;

async function streamLines(file, onBatch) {
  const stream = createReadStream(file, { highWaterMark: 1024 * 1024 });
  await new Promise((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', reject);
  });
  const decoder = new StringDecoder('utf8');
  let carry = '';
  let carryTooLong = false;
  let lineNo = 0;
  let first = true;
  const take = (raw, out, tooLong) => {
    lineNo++;
    let t = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (first) {
      first = false;
      if (t.charCodeAt(0) === 0xfeff) t = t.slice(1);
    }
    if (tooLong) out.push({ line: lineNo, text: '', tooLong: true });
    else if (t.trim() !== '') out.push({ line: lineNo, text: t, tooLong: false });
  };
  for await (const chunk of stream) {
    const s = decoder.write(chunk);
    const out = [];
    let start = 0;
    let nl = s.indexOf('\n', start);
    while (nl !== -1) {
      take(carryTooLong ? '' : carry + s.slice(start, nl), out, carryTooLong);
      carry = '';
      carryTooLong = false;
      start = nl + 1;
      nl = s.indexOf('\n', start);
    }
    if (!carryTooLong) {
      carry += s.slice(start);
      if (carry.length > maxLineLength) {
        carry = '';
        carryTooLong = true;
      }
    }
    if (out.length > 0) await onBatch(out);
  }
  const rest = carry + decoder.end();
  const out = [];
  if (carryTooLong || rest !== '') take(carryTooLong ? '' : rest, out, carryTooLong);
  if (out.length > 0) await onBatch(out);
}

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
