/**
 * Baseline of the NDJSON benchmark: reads a file the way `abha-link validate
 * --ndjson` does (src/cli/io.ts streamLines: 1 MiB read stream, split raw bytes
 * on \n with a carry, decode each line, drop \r and a leading BOM, skip blank lines,
 * hand batches of lines to an async callback) and only JSON.parse-s each line.
 * No validation, no output per document.
 *
 * Usage: node bench/baseline-parse.mjs FILE
 * Prints one JSON summary line on stderr: {"docs":n,"notJson":n}
 */
import { createReadStream } from 'node:fs';

const maxLineLength = 64 * 1024 * 1024;

async function streamLines(file, onBatch) {
  const stream = createReadStream(file, { highWaterMark: 1024 * 1024 });
  await new Promise((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', reject);
  });
  let carry = [];
  let carryLength = 0;
  let carryTooLong = false;
  let lineNo = 0;
  const take = (bytes, out) => {
    lineNo++;
    if (bytes === undefined) {
      out.push({ line: lineNo, text: '', tooLong: true });
      return;
    }
    let end = bytes.length;
    if (end > 0 && bytes[end - 1] === 13) end--;
    let start = 0;
    if (lineNo === 1 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3;
    const t = bytes.toString('utf8', start, end);
    if (t.trim() !== '') out.push({ line: lineNo, text: t, tooLong: false });
  };
  for await (const buf of stream) {
    const out = [];
    let start = 0;
    let nl = buf.indexOf(10, start);
    while (nl !== -1) {
      if (carryTooLong) take(undefined, out);
      else if (carryLength === 0) take(buf.subarray(start, nl), out);
      else {
        carry.push(buf.subarray(start, nl));
        take(Buffer.concat(carry), out);
      }
      carry = [];
      carryLength = 0;
      carryTooLong = false;
      start = nl + 1;
      nl = buf.indexOf(10, start);
    }
    if (!carryTooLong && start < buf.length) {
      carry.push(buf.subarray(start));
      carryLength += buf.length - start;
      if (carryLength > maxLineLength) {
        carry = [];
        carryLength = 0;
        carryTooLong = true;
      }
    }
    if (out.length > 0) await onBatch(out);
  }
  const out = [];
  if (carryTooLong) take(undefined, out);
  else if (carryLength > 0) take(Buffer.concat(carry), out);
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
