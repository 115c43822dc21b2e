// `npm run demo`: the main job on the bundled examples, with no configuration.
//   1. build each clinical input in examples/ into a link request (the 4.12 body), validate and lint it;
//   2. render the prescription of the first example as printable HTML (demo-output/);
//   3. start the local mock of the linking service on a free loopback port;
//   4. submit every request through the client and print the outcome.
// Everything is synthetic and offline.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lintLinkRequest, safeBuildLinkRequest, validateLinkRequest } from '../dist/index.js';
import { renderDocuments } from '../dist/render/index.js';
import { createClient } from '../dist/client/index.js';
import { startMockServer } from '../dist/mock/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = join(root, 'examples');
const inputs = readdirSync(dir)
  .filter((f) => f.endsWith('.input.json'))
  .sort();
const now = new Date();
let failed = 0;

console.log('1. Build, validate and lint\n');
const built = [];
for (const file of inputs) {
  const input = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  const r = safeBuildLinkRequest(input, { lint: { now } });
  if (!r.success) {
    failed++;
    console.log(`  ✗ ${file}: cannot build`);
    for (const i of r.issues) console.log(`      ${i.path || '/'} ${i.message} (${i.code})`);
    continue;
  }
  const checked = validateLinkRequest(JSON.parse(JSON.stringify(r.value)));
  const findings = checked.success ? lintLinkRequest(checked.value, { now }) : checked.issues;
  if (!checked.success) failed++;
  const ccs = r.value.careContexts.map((c) => `${c.hiType} ${c.referenceNumber}`).join('; ');
  console.log(`  ${checked.success ? '✓' : '✗'} ${file}: ${checked.success ? 'valid' : 'INVALID'}, ${findings.length} lint finding(s); visitDate ${r.value.visitDate}; ${ccs}`);
  built.push({ file, input, request: r.value });
}

const first = built.find((b) => b.file === 'opd-prescription.input.json') ?? built[0];
if (first !== undefined) {
  console.log(`\n   The link request built from examples/${first.file}:\n`);
  console.log(JSON.stringify(first.request, null, 2).replace(/^/gm, '   '));

  console.log('\n2. Render the prescription\n');
  const out = join(root, 'demo-output');
  mkdirSync(out, { recursive: true });
  for (const doc of renderDocuments(first.input, { template: 'prescription', lint: { now } })) {
    const path = join(out, `${doc.fileName}.html`);
    writeFileSync(path, doc.html);
    console.log(`  ✓ ${path} (${doc.pageSize}, open it in a browser and print)`);
  }
}

console.log('\n3. Start the local mock of the linking service\n');
const mock = await startMockServer();
console.log(`  ✓ listening on ${mock.url}`);
try {
  console.log('\n4. Submit every request (token from POST /api/m1/abha/token, then POST /api/m2/multiple/link-carecontext)\n');
  const client = createClient({ baseUrl: mock.url, apiKey: mock.apiKey });
  const summary = await client.submitMany(
    built.map((b) => b.request),
    {
      concurrency: 2,
      onResult: (r) => {
        const file = built[r.index]?.file ?? `item ${r.index}`;
        const detail = r.outcome === 'acknowledged' ? `HTTP ${r.status}, request id ${r.requestId}` : (r.reason ?? '');
        console.log(`  ${r.outcome === 'acknowledged' ? '✓' : '✗'} ${file}: ${r.outcome} ${detail}`);
      },
    },
  );
  console.log(`\n  ${summary.acknowledged} of ${built.length} link requests acknowledged by the mock.`);
  if (summary.acknowledged !== built.length) failed++;
} finally {
  await mock.close();
}

console.log(failed === 0 ? '\nDemo complete: every example built, validated, rendered and linked.' : `\nDemo finished with ${failed} problem(s).`);
process.exitCode = failed === 0 ? 0 : 1;
