/**
 * Benchmark suite of abha-link. Run with `npm run bench` (builds first) or
 * `node bench/run.mjs` after a build. Imports the built library (dist/).
 *
 * Every figure is reported next to a baseline measured in the same run, as a
 * ratio, because the machines this runs on are shared and noisy: absolute
 * numbers are printed too, but only the ratios are comparable between runs.
 * Each measurement has a warm-up and several rounds; the median is reported,
 * with the spread (min..max) of the rounds.
 *
 *   1. validateLinkRequest of a typical request vs JSON.parse of its text
 *   2. buildLinkRequest(JSON.parse(input)) vs validateLinkRequest(built payload)
 *   3. `abha-link validate --ndjson --format json` MB/s vs a bare streaming
 *      single-threaded JSON.parse loop (bench/baseline-parse.mjs), both child
 *      processes, with peak RSS at two input sizes: with --jobs N (default:
 *      the number of cores, the CLI's default) and with --jobs 1
 *   4. `abha-link validate FILE` wall time vs `node -e 0`
 *   5. hostile documents (bench/hostile.mjs): validate of 80 KB / 160 KB of
 *      wrong-typed items vs JSON.parse; text vs json output of a 2.8 MB
 *      request with 40,000 warnings
 *
 * Environment:
 *   BENCH_NDJSON_MB       size of the generated NDJSON file in MB (10^6 bytes), default 100
 *   BENCH_NDJSON_ROUNDS   timed rounds of each NDJSON run, default 5
 *   BENCH_NDJSON_JOBS     --jobs of the parallel NDJSON runs, default os.availableParallelism()
 *   BENCH_MICRO_ROUNDS    timed rounds of each in-process measurement, default 7
 *   BENCH_MICRO_MS        duration of one in-process round in ms, default 300
 *   BENCH_STARTUP_RUNS    timed runs of each startup measurement, default 15
 *   BENCH_KEEP_DATA=0     delete the generated NDJSON files at the end (default: keep and reuse)
 *   BENCH_PROFILE=1|0     profile `validate --ndjson` on the full file with --cpu-prof and print
 *                         where the time goes; default: only when the 80% target is missed
 *
 * Generated data (synthetic only) lives in bench/.data/; the report is also
 * written to bench/.data/last-run.json.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GENERATOR_VERSION, INVALID_RATE, generateNdjson } from './gen-ndjson.mjs';
import { measureHostile } from './hostile.mjs';
import { formatSummary, summarizeProfile } from './profile-summary.mjs';
import { compare as compareRates, summary } from './lib.mjs';
import { TARGET_STARTUP, startup } from './startup.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BENCH = join(ROOT, 'bench');
const DATA = join(BENCH, '.data');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const BASELINE = join(BENCH, 'baseline-parse.mjs');
const EXAMPLES = join(ROOT, 'examples');

const envNum = (name, dflt) => {
  const v = process.env[name];
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!(n > 0)) throw new Error(`${name} must be a positive number, got "${v}"`);
  return n;
};
const CONFIG = {
  ndjsonMB: envNum('BENCH_NDJSON_MB', 100),
  ndjsonRounds: Math.round(envNum('BENCH_NDJSON_ROUNDS', 5)),
  ndjsonJobs: Math.round(envNum('BENCH_NDJSON_JOBS', os.availableParallelism())),
  microRounds: Math.round(envNum('BENCH_MICRO_ROUNDS', 7)),
  microMs: envNum('BENCH_MICRO_MS', 300),
  startupRuns: Math.round(envNum('BENCH_STARTUP_RUNS', 15)),
  keepData: process.env.BENCH_KEEP_DATA !== '0',
  profile: process.env.BENCH_PROFILE === '1' ? 'always' : process.env.BENCH_PROFILE === '0' ? 'never' : 'when-target-missed',
};

if (!existsSync(join(ROOT, 'dist', 'index.js')) || !existsSync(CLI)) {
  process.stderr.write('bench: dist/ is missing: run `npm run build` first (or `npm run bench`)\n');
  process.exit(2);
}
const lib = await import('../dist/index.js');
const { validateLinkRequest, buildLinkRequest, validate } = lib;

/** --jobs 1 against the bare single-threaded parse loop. */
const TARGET_NDJSON = 0.8;
/** --jobs N (N >= 2) against the same bare single-threaded loop. */
const TARGET_NDJSON_PARALLEL = 1.6;
const TARGET_RSS_GROWTH = 1.25;

// ---------------------------------------------------------------- helpers

const log = (s) => process.stderr.write(`${s}\n`);
const fmtInt = (n) => Math.round(n).toLocaleString('en-US');
const fmt = (n, d = 1) => (n === null || n === undefined || Number.isNaN(n) ? 'n/a' : n.toFixed(d));
const fmtRatio = (r) => `${fmt(r, 2)}x`;
const fmtSpread = (s, f) => `${f(s.min)}..${f(s.max)}`;
const MB = 1e6;

// -------------------------------------------------------- in-process timing

const compare = (subject, baseline) => compareRates(subject, baseline, { rounds: CONFIG.microRounds, ms: CONFIG.microMs });

// ------------------------------------------------------- child processes

function hasGnuTime() {
  if (!existsSync('/usr/bin/time')) return false;
  const out = join(DATA, 'time-probe.txt');
  const r = spawnSync('/usr/bin/time', ['-f', '%M', '-o', out, process.execPath, '-e', '0'], { stdio: 'ignore' });
  const ok = r.status === 0 && existsSync(out) && /^\d+\s*$/m.test(readFileSync(out, 'utf8'));
  rmSync(out, { force: true });
  return ok;
}

function readHwmKB(pid) {
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m === null ? null : Number(m[1]);
  } catch {
    return null;
  }
}

let useGnuTime = false;

/**
 * Runs `node ...args` with stdout to /dev/null. Returns the wall time seen
 * by this process, the exit code, stderr, and the child's peak RSS in KiB:
 * from GNU time (%M) when /usr/bin/time works, else the last VmHWM read from
 * /proc/PID/status, polled every 50 ms.
 */
function runNode(args) {
  return new Promise((resolve, reject) => {
    const rssFile = join(DATA, `rss-${process.pid}.txt`);
    const [cmd, argv] = useGnuTime ? ['/usr/bin/time', ['-f', '%M', '-o', rssFile, process.execPath, ...args]] : [process.execPath, args];
    let stderr = '';
    let hwm = null;
    const t0 = performance.now();
    const child = spawn(cmd, argv, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let poll;
    if (!useGnuTime) {
      poll = setInterval(() => {
        const v = readHwmKB(child.pid);
        if (v !== null) hwm = Math.max(hwm ?? 0, v);
      }, 50);
    }
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d) => {
      if (stderr.length < 64 * 1024) stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - t0;
      if (poll !== undefined) clearInterval(poll);
      let rssKB = hwm;
      if (useGnuTime) {
        const lines = existsSync(rssFile) ? readFileSync(rssFile, 'utf8').trim().split('\n') : [];
        rssKB = Number(lines[lines.length - 1]) || null;
        rmSync(rssFile, { force: true });
      }
      resolve({ ms, code, stderr, rssKB });
    });
  });
}

// ------------------------------------------------------------ NDJSON data

function ensureNdjson(megabytes) {
  const name = `links-${megabytes}MB`;
  const file = join(DATA, `${name}.ndjson`);
  const metaFile = join(DATA, `${name}.meta.json`);
  if (existsSync(file) && existsSync(metaFile)) {
    try {
      const meta = JSON.parse(readFileSync(metaFile, 'utf8'));
      if (meta.generatorVersion === GENERATOR_VERSION && statSync(file).size === meta.bytes) {
        log(`  reusing ${file} (${fmt(meta.bytes / MB)} MB, ${fmtInt(meta.docs)} docs)`);
        return { file, ...meta, reused: true };
      }
    } catch {
      // regenerate
    }
  }
  const t0 = performance.now();
  const meta = generateNdjson(file, megabytes, new URL('../examples/', import.meta.url));
  writeFileSync(metaFile, `${JSON.stringify(meta)}\n`);
  log(`  generated ${file} (${fmt(meta.bytes / MB)} MB, ${fmtInt(meta.docs)} docs, ${fmtInt(meta.invalid)} invalid) in ${fmt((performance.now() - t0) / 1000)} s`);
  return { file, ...meta, reused: false };
}

/**
 * Checks the CLI and the baseline see every document, the CLI finds the
 * planted invalid ones, and --jobs N writes exactly what --jobs 1 writes.
 */
function sanityCheck(data) {
  const cliOf = (jobs) => spawnSync(process.execPath, [CLI, 'validate', '--ndjson', '--jobs', String(jobs), '--format', 'json', data.file], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 30 });
  const cli = cliOf(1);
  const parallel = cliOf(CONFIG.ndjsonJobs);
  if (parallel.status !== cli.status || parallel.stdout !== cli.stdout) throw new Error(`sanity check failed: --jobs ${CONFIG.ndjsonJobs} and --jobs 1 differ on ${data.file}`);
  const lines = cli.stdout.split('\n').filter((l) => l !== '');
  const invalid = lines.filter((l) => l.includes('"valid":false')).length;
  const expectCode = data.invalid > 0 ? 1 : 0;
  if (cli.status !== expectCode || lines.length !== data.docs || invalid !== data.invalid) {
    throw new Error(
      `sanity check failed on ${data.file}: exit ${cli.status} (expected ${expectCode}), ${lines.length} results (expected ${data.docs}), ` +
        `${invalid} invalid (expected ${data.invalid})\n${cli.stderr}`,
    );
  }
  const base = spawnSync(process.execPath, [BASELINE, data.file], { cwd: ROOT, encoding: 'utf8' });
  const got = JSON.parse(base.stderr.trim().split('\n').pop() ?? '{}');
  if (base.status !== 0 || got.docs !== data.docs || got.notJson !== 0) {
    throw new Error(`sanity check of the baseline failed: exit ${base.status}, ${base.stderr}`);
  }
}

async function ndjsonRounds(data, rounds, jobs) {
  const cliArgs = [CLI, 'validate', '--ndjson', '--jobs', String(jobs), '--format', 'json', data.file];
  const baseArgs = [BASELINE, data.file];
  const cli = [];
  const base = [];
  const ratio = [];
  const check = (r, what, expectCode) => {
    if (r.code !== expectCode) throw new Error(`${what} exited with ${r.code} (expected ${expectCode}): ${r.stderr}`);
    return r;
  };
  const expectCli = data.invalid > 0 ? 1 : 0;
  for (let i = 0; i < rounds; i++) {
    let c;
    let b;
    if (i % 2 === 0) {
      b = check(await runNode(baseArgs), 'baseline', 0);
      c = check(await runNode(cliArgs), 'abha-link validate', expectCli);
    } else {
      c = check(await runNode(cliArgs), 'abha-link validate', expectCli);
      b = check(await runNode(baseArgs), 'baseline', 0);
    }
    cli.push(c);
    base.push(b);
    ratio.push(b.ms / c.ms);
    log(
      `    round ${i + 1}/${rounds}: validate --jobs ${jobs} ${fmt(data.bytes / MB / (c.ms / 1000))} MB/s (${fmtInt(c.rssKB / 1024)} MiB), bare parse ${fmt(data.bytes / MB / (b.ms / 1000))} MB/s (${fmtInt(b.rssKB / 1024)} MiB)`,
    );
  }
  const mbps = (rs) => summary(rs.map((r) => data.bytes / MB / (r.ms / 1000)));
  const rss = (rs) => summary(rs.map((r) => (r.rssKB ?? NaN) / 1024));
  return {
    file: data.file,
    bytes: data.bytes,
    docs: data.docs,
    invalid: data.invalid,
    cli: { mbPerS: mbps(cli), ms: summary(cli.map((r) => r.ms)), peakRssMiB: rss(cli) },
    baseline: { mbPerS: mbps(base), ms: summary(base.map((r) => r.ms)), peakRssMiB: rss(base) },
    ratio: summary(ratio),
  };
}

// ------------------------------------------------------------------- main

const started = performance.now();
const startedAt = new Date();
const loadBefore = os.loadavg();
mkdirSync(DATA, { recursive: true });
useGnuTime = hasGnuTime();
const cpus = os.cpus();
log(`abha-link bench: node ${process.version}, ${cpus.length} CPU(s) (${cpus[0]?.model ?? 'unknown'}), load ${loadBefore.map((l) => l.toFixed(2)).join(' ')}`);
log(`config: ${JSON.stringify(CONFIG)}; peak RSS via ${useGnuTime ? '/usr/bin/time -f %M' : '/proc/PID/status VmHWM polling'}`);

// 1. validateLinkRequest vs JSON.parse
log('\n[1/4] validateLinkRequest vs JSON.parse (examples/opd-prescription.request.json)');
const requestText = readFileSync(join(EXAMPLES, 'opd-prescription.request.json'), 'utf8');
const requestDoc = JSON.parse(requestText);
if (!validateLinkRequest(requestDoc).success) throw new Error('examples/opd-prescription.request.json does not validate');
const m1 = compare(
  () => (validateLinkRequest(requestDoc).success ? 1 : 0),
  () => JSON.parse(requestText).careContexts.length,
);
log(`  validate ${fmtInt(m1.subject.median)} ops/s, JSON.parse ${fmtInt(m1.baseline.median)} ops/s, ratio ${fmtRatio(m1.ratio.median)}`);

// 2. buildLinkRequest vs validateLinkRequest of the built payload
log('\n[2/4] buildLinkRequest(JSON.parse(input)) vs validateLinkRequest(built) (examples/opd-prescription.input.json)');
const inputText = readFileSync(join(EXAMPLES, 'opd-prescription.input.json'), 'utf8');
const built = buildLinkRequest(JSON.parse(inputText));
if (!validateLinkRequest(built).success) throw new Error('the built request does not validate');
const builtMatchesExample = JSON.stringify(built) === JSON.stringify(requestDoc);
const m2 = compare(
  () => buildLinkRequest(JSON.parse(inputText)).careContexts.length,
  () => (validateLinkRequest(built).success ? 1 : 0),
);
log(`  build ${fmtInt(m2.subject.median)} ops/s, validate ${fmtInt(m2.baseline.median)} ops/s, ratio ${fmtRatio(m2.ratio.median)}`);

// 3. NDJSON throughput and memory
log(`\n[3/4] abha-link validate --ndjson --format json (--jobs ${CONFIG.ndjsonJobs}, then --jobs 1) vs bare single-threaded streaming JSON.parse (bench/baseline-parse.mjs)`);
const fullMB = CONFIG.ndjsonMB;
const smallMB = Math.max(0.25, Math.round((fullMB / 4) * 100) / 100);
const full = ensureNdjson(fullMB);
const small = ensureNdjson(smallMB);
log('  sanity check (outputs and counts) on the small file');
sanityCheck(small);
log('  warm-up');
await runNode([BASELINE, full.file]);
await runNode([CLI, 'validate', '--ndjson', '--jobs', String(CONFIG.ndjsonJobs), '--format', 'json', full.file]);
const targetParallel = CONFIG.ndjsonJobs >= 2 && cpus.length >= 2 ? TARGET_NDJSON_PARALLEL : TARGET_NDJSON;
log(`  full size (${fmt(full.bytes / MB)} MB), --jobs ${CONFIG.ndjsonJobs}:`);
const n3full = await ndjsonRounds(full, CONFIG.ndjsonRounds, CONFIG.ndjsonJobs);
log(`  quarter size (${fmt(small.bytes / MB)} MB), --jobs ${CONFIG.ndjsonJobs}:`);
const n3small = await ndjsonRounds(small, CONFIG.ndjsonRounds, CONFIG.ndjsonJobs);
log(`  full size (${fmt(full.bytes / MB)} MB), --jobs 1:`);
const n3one = CONFIG.ndjsonJobs === 1 ? n3full : await ndjsonRounds(full, CONFIG.ndjsonRounds, 1);
// Throughput without the fixed start-up cost: the extra bytes of the big file over the extra time.
const marginal = (side) => (full.bytes - small.bytes) / MB / ((n3full[side].ms.median - n3small[side].ms.median) / 1000);
const steady = { cli: marginal('cli'), baseline: marginal('baseline') };
steady.ratio = steady.cli / steady.baseline;

let profile = null;
if (CONFIG.profile === 'always' || (CONFIG.profile === 'when-target-missed' && n3one.ratio.median < TARGET_NDJSON)) {
  const dir = join(DATA, 'profile');
  rmSync(dir, { recursive: true, force: true });
  log(`  profiling validate --ndjson --jobs 1 on the full file (node --cpu-prof, output in ${dir})`);
  const r = spawnSync(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, CLI, 'validate', '--ndjson', '--jobs', '1', '--format', 'json', full.file], { cwd: ROOT, stdio: 'ignore' });
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')) : [];
  if (files.length === 0) log(`  profiling failed (exit ${r.status})`);
  else {
    profile = { file: join(dir, files[0]), ...summarizeProfile(join(dir, files[0]), 12) };
    log(formatSummary(profile).replace(/^/gm, '  '));
  }
}

// 4. startup
log(`\n[4/4] abha-link validate examples/opd-prescription.request.json vs node -e 0 (${CONFIG.startupRuns} runs each)`);
const m4 = startup(CONFIG.startupRuns);
log(`  validate ${fmt(m4.cli.median)} ms, node -e 0 ${fmt(m4.node.median)} ms, ratio ${fmtRatio(m4.ratio)}`);

// 5. hostile documents
log('\n[5] hostile documents: wrong-typed items vs JSON.parse; text vs json output with 40,000 warnings');
const m5 = measureHostile({ validate, compare, cli: CLI, root: ROOT, dataDir: DATA, runs: 3, log });

if (!CONFIG.keepData) {
  for (const d of [full, small]) {
    rmSync(d.file, { force: true });
    rmSync(d.file.replace(/\.ndjson$/, '.meta.json'), { force: true });
  }
}

// ----------------------------------------------------------------- report

const pass = (ok) => (ok ? 'PASS' : 'MISS');
const rssFull = n3full.cli.peakRssMiB.median;
const rssSmall = n3small.cli.peakRssMiB.median;
const elapsed = (performance.now() - started) / 1000;

const rows = [
  [
    '1',
    'validateLinkRequest (opd request)',
    `${fmtInt(m1.subject.median)} ops/s`,
    `JSON.parse same text: ${fmtInt(m1.baseline.median)} ops/s`,
    fmtRatio(m1.ratio.median),
    fmtSpread(m1.ratio, (x) => fmt(x, 2)),
    '',
  ],
  [
    '2',
    'buildLinkRequest(JSON.parse(input)) (opd input)',
    `${fmtInt(m2.subject.median)} ops/s`,
    `validateLinkRequest(built): ${fmtInt(m2.baseline.median)} ops/s`,
    fmtRatio(m2.ratio.median),
    fmtSpread(m2.ratio, (x) => fmt(x, 2)),
    '',
  ],
  [
    '3a',
    `validate --ndjson --jobs ${CONFIG.ndjsonJobs} --format json, ${fmt(full.bytes / MB)} MB, ${fmtInt(full.docs)} docs`,
    `${fmt(n3full.cli.mbPerS.median)} MB/s`,
    `bare single-threaded parse: ${fmt(n3full.baseline.mbPerS.median)} MB/s`,
    fmtRatio(n3full.ratio.median),
    fmtSpread(n3full.ratio, (x) => fmt(x, 2)),
    `>= ${targetParallel}x ${pass(n3full.ratio.median >= targetParallel)}`,
  ],
  [
    '3a1',
    `same with --jobs 1 (single-threaded), ${fmt(full.bytes / MB)} MB`,
    `${fmt(n3one.cli.mbPerS.median)} MB/s`,
    `bare parse: ${fmt(n3one.baseline.mbPerS.median)} MB/s`,
    fmtRatio(n3one.ratio.median),
    fmtSpread(n3one.ratio, (x) => fmt(x, 2)),
    `>= ${TARGET_NDJSON}x ${pass(n3one.ratio.median >= TARGET_NDJSON)}`,
  ],
  [
    '3b',
    `same, ${fmt(small.bytes / MB)} MB (quarter size), ${fmtInt(small.docs)} docs`,
    `${fmt(n3small.cli.mbPerS.median)} MB/s`,
    `bare parse: ${fmt(n3small.baseline.mbPerS.median)} MB/s`,
    fmtRatio(n3small.ratio.median),
    fmtSpread(n3small.ratio, (x) => fmt(x, 2)),
    '',
  ],
  [
    '3c',
    `--jobs ${CONFIG.ndjsonJobs}, steady state (full minus quarter: no start-up)`,
    `${fmt(steady.cli)} MB/s`,
    `bare parse: ${fmt(steady.baseline)} MB/s`,
    fmtRatio(steady.ratio),
    '',
    `>= ${targetParallel}x ${pass(steady.ratio >= targetParallel)}`,
  ],
  [
    '3d',
    `peak RSS of validate --ndjson --jobs ${CONFIG.ndjsonJobs}: full vs quarter size`,
    `${fmt(rssFull)} MiB`,
    `quarter: ${fmt(rssSmall)} MiB`,
    fmtRatio(rssFull / rssSmall),
    fmtSpread(n3full.cli.peakRssMiB, (x) => fmt(x, 0)),
    `< ${TARGET_RSS_GROWTH}x (input ${fmt(full.bytes / small.bytes)}x) ${pass(rssFull / rssSmall < TARGET_RSS_GROWTH)}`,
  ],
  [
    '3e',
    'peak RSS of bare parse: full vs quarter size',
    `${fmt(n3full.baseline.peakRssMiB.median)} MiB`,
    `quarter: ${fmt(n3small.baseline.peakRssMiB.median)} MiB`,
    fmtRatio(n3full.baseline.peakRssMiB.median / n3small.baseline.peakRssMiB.median),
    fmtSpread(n3full.baseline.peakRssMiB, (x) => fmt(x, 0)),
    '',
  ],
  [
    '3f',
    'peak RSS, full size: validate vs bare parse',
    `${fmt(rssFull)} MiB`,
    `bare parse: ${fmt(n3full.baseline.peakRssMiB.median)} MiB`,
    fmtRatio(rssFull / n3full.baseline.peakRssMiB.median),
    '',
    '',
  ],
  [
    '4',
    'abha-link validate FILE (one request), wall time',
    `${fmt(m4.cli.median)} ms`,
    `node -e 0: ${fmt(m4.node.median)} ms`,
    fmtRatio(m4.ratio),
    fmtSpread(m4.pairRatios, (x) => fmt(x, 2)),
    `<= ${TARGET_STARTUP}x ${pass(m4.ratio <= TARGET_STARTUP)}`,
  ],
  ...[80_000, 160_000].map((b, i) => {
    const m = m5.wrongTyped[b];
    return [
      `5${'ab'[i]}`,
      `validate, link request of ${fmtInt(m.bytes)} bytes of wrong-typed items (${fmt(m.secondsPerValidate, 3)} s each)`,
      `${fmt(m.subject.median)} ops/s`,
      `JSON.parse same text: ${fmt(m.baseline.median)} ops/s`,
      `${fmt(m.ratio.median, 4)}x`,
      fmtSpread(m.ratio, (x) => fmt(x, 4)),
      '',
    ];
  }),
  [
    '5c',
    'validate --lint, 2.8 MB request with 40,000 warnings, text format, wall time',
    `${fmt(m5.located.textMs.median, 0)} ms`,
    `--format json: ${fmt(m5.located.jsonMs.median, 0)} ms`,
    fmtRatio(m5.located.ratio.median),
    fmtSpread(m5.located.ratio, (x) => fmt(x, 2)),
    '',
  ],
];
const header = ['#', 'Measurement', 'Subject (median)', 'Baseline (median)', 'Ratio', 'Ratio spread (min..max)', 'Target'];
const table = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');

function profileReport(p) {
  const item = (r) => `- ${r.fn}: ${fmt(r.ms, 0)} ms (${fmt(r.pct)}%)`;
  return [
    `Where validate --ndjson spends its time (node --cpu-prof of one full-size run, ${fmt(p.totalMs, 0)} ms sampled; ${p.file}).`,
    '',
    'Top self time:',
    ...p.self.slice(0, 8).map(item),
    '',
    'Top inclusive time of library functions (dist/ and ajv):',
    ...p.libraryInclusive.slice(0, 8).map(item),
    '',
    '',
  ].join('\n');
}

const loadAfter = os.loadavg();
const report = `
## abha-link benchmark

- Node ${process.version} on ${os.platform()} ${os.arch()}, ${cpus.length} CPU(s): ${cpus[0]?.model ?? 'unknown'}
- Load average before / after: ${loadBefore.map((l) => l.toFixed(2)).join(' ')} / ${loadAfter.map((l) => l.toFixed(2)).join(' ')}
- Rounds: in-process ${CONFIG.microRounds} x ${CONFIG.microMs} ms, NDJSON ${CONFIG.ndjsonRounds} per size, start-up ${CONFIG.startupRuns} runs; medians shown
- NDJSON: synthetic link requests (${Math.round(INVALID_RATE * 100)}% invalid by design), ${fmt(full.bytes / MB)} MB = ${fmtInt(full.docs)} docs (${fmtInt(full.invalid)} invalid); MB = 10^6 bytes; throughput = file size / child wall time (includes process start-up, except 3c)
- Peak RSS measured with ${useGnuTime ? '/usr/bin/time -f %M' : 'VmHWM polling of /proc/PID/status'}
- Ratios are subject / baseline (ops/s or MB/s, higher is better) except 3d-3f (RSS) and 4 (wall time), where lower is better
- Built request equals examples/opd-prescription.request.json: ${builtMatchesExample ? 'yes' : 'no'}

${table}

${profile === null ? '' : profileReport(profile)}Total bench time: ${fmt(elapsed)} s
`;
process.stdout.write(report);

const json = {
  startedAt: startedAt.toISOString(),
  elapsedSeconds: elapsed,
  env: {
    node: process.version,
    platform: os.platform(),
    arch: os.arch(),
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? null,
    totalMemMiB: Math.round(os.totalmem() / 2 ** 20),
    loadBefore,
    loadAfter,
    peakRssMethod: useGnuTime ? 'gnu-time' : 'proc-vmhwm',
  },
  config: CONFIG,
  validateVsParse: { subjectOpsPerS: m1.subject, baselineOpsPerS: m1.baseline, ratio: m1.ratio },
  buildVsValidate: { subjectOpsPerS: m2.subject, baselineOpsPerS: m2.baseline, ratio: m2.ratio, builtMatchesExample },
  ndjson: {
    jobs: CONFIG.ndjsonJobs,
    full: n3full,
    quarter: n3small,
    singleThreaded: n3one,
    targetParallel,
    meetsParallelTarget: n3full.ratio.median >= targetParallel,
    steadyStateMBPerS: steady,
    target: TARGET_NDJSON,
    meetsTarget: n3one.ratio.median >= TARGET_NDJSON,
    rssGrowthFullVsQuarter: rssFull / rssSmall,
    profile,
  },
  hostile: m5,
  startup: { cliMs: m4.cli, nodeMs: m4.node, ratio: m4.ratio, pairRatios: m4.pairRatios, target: TARGET_STARTUP, meetsTarget: m4.ratio <= TARGET_STARTUP },
  table,
};
writeFileSync(join(DATA, 'last-run.json'), `${JSON.stringify(json, null, 2)}\n`);
log(`report written to ${join(DATA, 'last-run.json')}`);
