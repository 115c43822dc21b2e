#!/usr/bin/env node
// The journal attacks of issue 10, measured against the local mock:
//   node scripts/journal-attacks.mjs [ROOT]   (ROOT: a built abha-link tree, default this one)
// 1. two submitters started together on one journal through a symbolic link, then through a hard link;
// 2. a journal whose header salt had one character changed, rerun on its input.
// Prints, per attack, the items linked more than once (counted at the mock) and the exit codes.
import { spawn } from 'node:child_process';
import { linkSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(process.argv[2] ?? '.');
const cli = join(root, 'dist/cli/main.js');
const { startMockServer } = await import(pathToFileURL(join(root, 'dist/mock/index.js')).href);
const { linkRequestKey } = await import(pathToFileURL(join(root, 'dist/client/index.js')).href);
const API_KEY = 'sk-attack-measure';
const N = 300;
const base = JSON.parse(readFileSync(join(root, 'examples/opd-prescription.request.json'), 'utf8'));
const tmp = mkdtempSync(join(tmpdir(), 'abha-link-attacks-'));
const mock = await startMockServer({ apiKey: API_KEY });
mock.faults.add({ endpoint: 'link-carecontext', times: Infinity, fault: { type: 'latency', ms: 5 } });

const run = (args) =>
  new Promise((done) => {
    const child = spawn(process.execPath, [cli, ...args], { env: { ...process.env, ABHA_LINK_API_KEY: API_KEY, ABHA_LINK_BASE_URL: mock.url }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => done({ code, err }));
  });

function input(tag) {
  const items = Array.from({ length: N }, (_, i) => ({ ...base, visitId: `ATK-${tag}-${i}` }));
  const path = join(tmp, `${tag}.ndjson`);
  writeFileSync(path, items.map((i) => JSON.stringify(i)).join('\n') + '\n');
  return { items, path };
}
const twice = (items) => items.filter((i) => mock.linkCount(linkRequestKey(i)).linked > 1).length;
const linked = (items) => items.filter((i) => mock.linkCount(linkRequestKey(i)).linked > 0).length;

for (const kind of ['symlink', 'hardlink']) {
  const { items, path } = input(kind);
  const journal = join(tmp, `${kind}.journal`);
  const other = join(tmp, `${kind}-other.journal`);
  writeFileSync(journal, '');
  if (kind === 'symlink') symlinkSync(journal, other);
  else linkSync(journal, other);
  const codes = await Promise.all([journal, other].map((j) => run(['submit', '--ndjson', '--concurrency', '8', '--journal', j, path])));
  console.log(`${kind}: ${N} items, two submitters at once: ${twice(items)} linked twice, ${linked(items)} linked; exit codes ${codes.map((c) => c.code).join(', ')}`);
}

{
  const { items, path } = input('salt');
  const journal = join(tmp, 'salt.journal');
  await run(['submit', '--ndjson', '--concurrency', '8', '--journal', journal, path]);
  const text = readFileSync(journal, 'utf8');
  const at = text.indexOf('"salt":"') + 10;
  writeFileSync(journal, `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`);
  const r = await run(['submit', '--ndjson', '--concurrency', '8', '--journal', journal, path]);
  console.log(`salt changed: ${N} acknowledged items rerun: ${twice(items)} sent again (linked twice); exit code ${r.code}`);
}

await mock.close();
rmSync(tmp, { recursive: true, force: true });
