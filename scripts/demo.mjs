// `npm run demo`: the main job on the bundled examples, with no configuration.
// Builds each clinical input in examples/ into a link request, validates and
// lints it, prints one payload in full and a summary line for each.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lintLinkRequest, safeBuildLinkRequest, validateLinkRequest } from '../dist/index.js';

const dir = join(fileURLToPath(new URL('..', import.meta.url)), 'examples');
const inputs = readdirSync(dir).filter((f) => f.endsWith('.input.json')).sort();
const now = new Date();
let failed = 0;
let shown = false;
for (const file of inputs) {
  const input = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  const built = safeBuildLinkRequest(input, { lint: { now } });
  if (!built.success) {
    failed++;
    console.log(`✗ ${file}: cannot build`);
    for (const i of built.issues) console.log(`    ${i.path || '/'} ${i.message} (${i.code})`);
    continue;
  }
  const checked = validateLinkRequest(JSON.parse(JSON.stringify(built.value)));
  const findings = checked.success ? lintLinkRequest(checked.value, { now }) : checked.issues;
  if (!shown) {
    console.log(`Link request built from examples/${file} (POST /api/m2/multiple/link-carecontext body):\n`);
    console.log(JSON.stringify(built.value, null, 2));
    console.log('');
    shown = true;
  }
  const ccs = built.value.careContexts.map((c) => `${c.hiType} ${c.referenceNumber}`).join('; ');
  const status = checked.success ? 'valid' : 'INVALID';
  console.log(`${checked.success ? '✓' : '✗'} ${file}: ${status}, ${findings.length} lint finding(s); visitDate ${built.value.visitDate}; ${ccs}`);
  if (!checked.success) failed++;
}
console.log(`\n${inputs.length - failed} of ${inputs.length} examples built and validated.`);
process.exitCode = failed === 0 ? 0 : 1;
