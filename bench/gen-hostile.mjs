/**
 * Hostile documents of the adversarial review (issue 10, items 4 and 5), for
 * the benchmark and for reproducing the figures by hand. Synthetic data only.
 *
 *   wrongTypedItems(bytes)  a link request whose careContexts are `bytes / 2`
 *                           numbers instead of objects: one schema error per item
 *                           (the quadratic-validation attack; 80 KB and 160 KB)
 *   manyWarnings()          a link request of about 2.8 MB within every schema
 *                           bound (100 care contexts of 200 medications without
 *                           dosage or frequency): 40,000 lint warnings, each to be
 *                           located by line (the quadratic-location attack)
 *
 * Usage as a script:
 *   node bench/gen-hostile.mjs wrong-typed OUT.json [BYTES]   (default 80000)
 *   node bench/gen-hostile.mjs many-warnings OUT.json
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const EXAMPLE = fileURLToPath(new URL('../examples/opd-prescription.request.json', import.meta.url));

/** The example request with `careContexts` replaced by `bytes / 2` numbers (`1,` is two bytes). */
export function wrongTypedItems(bytes = 80_000) {
  const req = JSON.parse(readFileSync(EXAMPLE, 'utf8'));
  req.careContexts = Array.from({ length: Math.floor(bytes / 2) }, () => 1);
  return JSON.stringify(req);
}

/** A 2.8 MB pretty-printed link request that passes the schema and draws two lint warnings per medication. */
export function manyWarnings() {
  const req = JSON.parse(readFileSync(EXAMPLE, 'utf8'));
  const [first] = req.careContexts;
  const instructions = 'after food, with a full glass of water';
  req.careContexts = Array.from({ length: 100 }, (_, c) => ({
    ...first,
    referenceNumber: `OPD-2026-0042-${c}`,
    bundleData: {
      ...first.bundleData,
      medications: Array.from({ length: 200 }, (_, m) => ({ drugName: `Drug ${c}-${m}`, instructions })),
    },
  }));
  return JSON.stringify(req, null, 2);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [kind, out, bytes] = process.argv.slice(2);
  if (out === undefined || (kind !== 'wrong-typed' && kind !== 'many-warnings')) {
    process.stderr.write('usage: node bench/gen-hostile.mjs wrong-typed|many-warnings OUT.json [BYTES]\n');
    process.exit(2);
  }
  writeFileSync(out, kind === 'wrong-typed' ? wrongTypedItems(bytes === undefined ? undefined : Number(bytes)) : manyWarnings());
}
