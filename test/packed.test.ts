/**
 * The package as npm ships it: packed once into a tarball (from the built
 * dist/, `npm pack --ignore-scripts`), extracted into a scratch project whose
 * other dependencies are links to this repository's node_modules, then used
 * the ways users use it: Node ESM and CommonJS, Jest with its default
 * configuration, TypeScript under each moduleResolution, and a browser bundle
 * of the core made by esbuild and run without Node's globals.
 */
import { execFile as execFileCb } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { runInNewContext } from 'node:vm';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const execFile = promisify(execFileCb);
const root = fileURLToPath(new URL('..', import.meta.url));
let tmp = '';
let app = '';
let packed: string[] = [];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}
async function run(cmd: string, args: string[], cwd = app): Promise<Run> {
  try {
    const r = await execFile(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof err.code === 'number' ? err.code : 1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
  }
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'abha-link-packed-'));
  const r = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', tmp], root);
  expect(r.code, r.stderr).toBe(0);
  const [info] = JSON.parse(r.stdout.slice(r.stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  if (info === undefined) throw new Error('npm pack reported no package');
  packed = info.files.map((f) => f.path);
  app = join(tmp, 'app');
  const modules = join(app, 'node_modules');
  mkdirSync(modules, { recursive: true });
  for (const name of readdirSync(join(root, 'node_modules'))) {
    if (name.startsWith('.') || name === 'abha-link') continue;
    symlinkSync(join(root, 'node_modules', name), join(modules, name), 'dir');
  }
  const x = await run('tar', ['-xzf', join(tmp, info.filename), '-C', modules]);
  expect(x.code, x.stderr).toBe(0);
  renameSync(join(modules, 'package'), join(modules, 'abha-link'));
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, version: '1.0.0' }));
}, 60_000);

afterAll(() => {
  if (tmp !== '' && process.env['KEEP_PACKED'] === undefined) rmSync(tmp, { recursive: true, force: true });
});

/** Every entry point in one script: build, validate, render, FHIR, and a link through the client to the mock. */
const useEveryEntryPoint = `
  const input = JSON.parse(fs.readFileSync(path.join(path.dirname(require.resolve('abha-link/package.json')), 'examples/opd-prescription.input.json'), 'utf8'));
  const request = core.buildLinkRequest(input);
  const bad = core.validate('search-abha-request', { mobile: '1' });
  const [page] = render.renderDocuments(input);
  const fhirResult = fhir.toFhirBundles(request, { timestamp: '2026-11-21T10:00:00+05:30' });
  const server = await mock.startMockServer();
  try {
    const api = client.createClient({ baseUrl: server.url, apiKey: server.apiKey });
    const answer = await api.linkCareContexts(request);
    console.log(JSON.stringify({
      valid: core.validateLinkRequest(request).success,
      code: bad.success ? null : bad.issues[0].code,
      page: page.html.replace(/\\u00ad/g, '').includes('Metformin'),
      templates: fs.existsSync(path.join(render.bundledTemplateDirectory(), 'prescription.hbs')),
      openapiPaths: Object.keys(mock.buildOpenApiDocument().paths).length,
      bundles: fhirResult.success ? fhirResult.bundles.length : fhirResult.issues,
      linked: typeof answer === 'object' && answer !== null,
      core: require.resolve('abha-link'),
    }));
  } finally { await server.close(); }
`;
const expected = { valid: true, code: 'invalid-mobile', page: true, templates: true, openapiPaths: 12, bundles: 1, linked: true };

describe('the packed package', () => {
  it('runs abha-link serve without its optional peers (fastify, pg, PGlite, prom-client) to one line naming them, exit 2, no stack', async () => {
    const lib = join(tmp, 'library-only');
    const modules = join(lib, 'node_modules');
    mkdirSync(modules, { recursive: true });
    const serveOnly = new Set(['fastify', 'pg', '@electric-sql', 'prom-client']);
    for (const name of readdirSync(join(root, 'node_modules'))) {
      if (name.startsWith('.') || name === 'abha-link' || serveOnly.has(name)) continue;
      symlinkSync(join(root, 'node_modules', name), join(modules, name), 'dir');
    }
    // A copy, not a link: Node resolves a package's imports from its real path.
    cpSync(join(app, 'node_modules', 'abha-link'), join(modules, 'abha-link'), { recursive: true });
    const r = await run(process.execPath, [join(modules, 'abha-link/dist/cli/main.js'), 'serve', '--port', '0'], lib);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^abha-link: abha-link serve needs packages that are not installed \(fastify, pg, @electric-sql\/pglite, prom-client\): npm install fastify@\^[\d.]+ pg@\^[\d.]+ @electric-sql\/pglite@\^[\d.]+ prom-client@\^[\d.]+\n$/,
    );
    const help = await run(process.execPath, [join(modules, 'abha-link/dist/cli/main.js'), 'serve', '--help'], lib);
    expect(help.code).toBe(0);
  }, 60_000);

  it('works from plain Node ESM through every entry point', async () => {
    const script = `
      import * as core from 'abha-link'; import * as render from 'abha-link/render'; import * as client from 'abha-link/client';
      import * as mock from 'abha-link/mock'; import * as fhir from 'abha-link/fhir';
      import fs from 'node:fs'; import path from 'node:path'; import { createRequire } from 'node:module';
      const require = createRequire(import.meta.url);
      ${useEveryEntryPoint}`;
    writeFileSync(join(app, 'esm.mjs'), script);
    const r = await run(process.execPath, ['esm.mjs']);
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(out).toMatchObject(expected);
  });

  it('works from plain Node CommonJS through every entry point, loading the CommonJS build', async () => {
    const script = `
      const core = require('abha-link'), render = require('abha-link/render'), client = require('abha-link/client');
      const mock = require('abha-link/mock'), fhir = require('abha-link/fhir'), fs = require('node:fs'), path = require('node:path');
      (async () => { ${useEveryEntryPoint} })().catch((e) => { console.error(e); process.exitCode = 1; });`;
    writeFileSync(join(app, 'cjs.cjs'), script);
    const r = await run(process.execPath, ['cjs.cjs']);
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(out).toMatchObject(expected);
    expect(out['core']).toMatch(/node_modules[\\/]abha-link[\\/]dist[\\/]cjs[\\/]index\.js$/);
  });

  it('loads in Jest with its default configuration', async () => {
    mkdirSync(join(app, 'test'), { recursive: true });
    writeFileSync(
      join(app, 'test', 'abha.test.js'),
      `const core = require('abha-link'), render = require('abha-link/render'), client = require('abha-link/client');
       const mock = require('abha-link/mock'), fhir = require('abha-link/fhir'), fs = require('node:fs'), path = require('node:path');
       test('every entry point works under Jest', async () => {
         const lines = [];
         const console = { log: (s) => lines.push(s) };
         ${useEveryEntryPoint}
         const out = JSON.parse(lines[0]);
         expect(out).toMatchObject(${JSON.stringify(expected)});
       });`,
    );
    const r = await run(process.execPath, [join(root, 'node_modules/jest/bin/jest.js'), '--ci']);
    expect(r.stderr, r.stderr).toMatch(/Tests:\s+1 passed, 1 total/);
    expect(r.code).toBe(0);
  }, 60_000);

  const consumer = (req: string): string => `
    ${req}
    const input: core.ClinicalInput = {
      hospital: { name: 'Sanjeevani Family Clinic', id: 'IN2910000123' },
      doctor: { name: 'Dr. Meera Iyer', licNumber: 'KMC-45678' },
      patient: { abhaAddress: 'asha.verma@sbx' },
      visit: { id: 'OPD-2026-0042', at: '2026-11-21T10:00:00+05:30' },
      medications: [{ drugName: 'Metformin 500 mg tablet', frequency: '1-0-1' }],
    };
    const request: core.LinkCareContextRequest = core.buildLinkRequest(input);
    const html: string = render.renderDocuments(input)[0]!.html;
    const api: client.AbhaClient = client.createClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'k' });
    const started: Promise<mock.MockServer> = mock.startMockServer();
    const result: fhir.ToFhirResult = fhir.toFhirBundles(request);
    // @ts-expect-error: the types are real, not any: a link request is not a number
    const wrong: number = request;
    export { html, api, started, result, wrong };
  `;
  const esmImports = `import * as core from 'abha-link'; import * as render from 'abha-link/render'; import * as client from 'abha-link/client';
    import * as mock from 'abha-link/mock'; import * as fhir from 'abha-link/fhir';`;
  const cjsImports = `import core = require('abha-link'); import render = require('abha-link/render'); import client = require('abha-link/client');
    import mock = require('abha-link/mock'); import fhir = require('abha-link/fhir');`;

  it('type-checks under TypeScript moduleResolution node16, nodenext, bundler and node10, with the types of the build each loads', async () => {
    const modes: { name: string; module: string; resolution: string; files: Record<string, string>; types: string[] }[] = [
      {
        name: 'node16',
        module: 'node16',
        resolution: 'node16',
        files: { 'esm.mts': esmImports, 'cjs.cts': cjsImports },
        types: ['dist/index.d.ts', 'dist/cjs/index.d.ts', 'dist/render/index.d.ts', 'dist/cjs/fhir/index.d.ts'],
      },
      {
        name: 'nodenext',
        module: 'nodenext',
        resolution: 'nodenext',
        files: { 'esm.mts': esmImports, 'cjs.cts': cjsImports },
        types: ['dist/index.d.ts', 'dist/cjs/index.d.ts', 'dist/mock/index.d.ts', 'dist/cjs/client/index.d.ts'],
      },
      { name: 'bundler', module: 'esnext', resolution: 'bundler', files: { 'index.ts': esmImports }, types: ['dist/index.d.ts', 'dist/render/index.d.ts'] },
      {
        name: 'node10',
        module: 'commonjs',
        resolution: 'node10',
        files: { 'index.ts': esmImports },
        types: ['dist/cjs/index.d.ts', 'dist/cjs/render/index.d.ts', 'dist/cjs/client/index.d.ts', 'dist/cjs/mock/index.d.ts', 'dist/cjs/fhir/index.d.ts'],
      },
    ];
    const results = await Promise.all(
      modes.map(async (m) => {
        const dir = join(app, `ts-${m.name}`);
        mkdirSync(dir, { recursive: true });
        for (const [file, imports] of Object.entries(m.files)) writeFileSync(join(dir, file), consumer(imports));
        const compilerOptions = {
          module: m.module,
          moduleResolution: m.resolution,
          target: 'es2022',
          strict: true,
          noEmit: true,
          // skipLibCheck as most projects set it (NestJS's default); checking @types/node too would take 4x longer.
          exactOptionalPropertyTypes: true,
          esModuleInterop: true,
          skipLibCheck: true,
          types: ['node'],
        };
        writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['*.ts', '*.mts', '*.cts'] }));
        const r = await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', dir, '--listFiles']);
        return { m, r };
      }),
    );
    for (const { m, r } of results) {
      const errors = r.stdout.split('\n').filter((l) => l.includes('error TS'));
      expect(errors, `${m.name}`).toEqual([]);
      expect(r.code, `${m.name}: ${r.stdout.slice(0, 2000)}`).toBe(0);
      const loaded = r.stdout.split('\n').map((l) => l.replaceAll('\\', '/'));
      for (const t of m.types)
        expect(
          loaded.some((l) => l.endsWith(`node_modules/abha-link/${t}`)),
          `${m.name} loads ${t}`,
        ).toBe(true);
    }
  }, 60_000);

  it('bundles the core for a browser with esbuild, and the bundle validates, builds and lints without Node globals', async () => {
    const bundle = await build({
      stdin: {
        contents: `
          import { validate, buildLinkRequest, lintLinkRequest } from 'abha-link';
          const request = buildLinkRequest({
            hospital: { name: 'Sanjeevani Family Clinic', id: 'IN2910000123' },
            doctor: { name: 'Dr. Meera Iyer', licNumber: 'KMC-45678' },
            patient: { abhaAddress: 'asha.verma@sbx' },
            visit: { id: 'OPD-2026-0042', at: '2026-11-21T10:00:00+05:30' },
            medications: [{ drugName: 'Metformin 500 mg tablet', dosage: '1 tablet', frequency: '1-0-1' }],
          });
          const good = validate('link-carecontext-request', request);
          const bad = validate('link-carecontext-request', { ...request, hipId: 7, visitDate: '2026-02-30', careContexts: [{ ...request.careContexts[0], display: 'x'.repeat(5000) }] });
          const findings = lintLinkRequest({ ...request, careContexts: [] }, { now: new Date('2026-11-22T00:00:00Z') });
          globalThis.result = JSON.stringify({
            good: good.success, badPaths: bad.success ? [] : bad.issues.map((i) => i.path),
            lint: findings.map((f) => f.code), visitDate: request.visitDate,
            frequency: request.careContexts[0].bundleData.medications[0].frequency,
            nodeGlobals: [typeof globalThis.process, typeof globalThis.require, typeof globalThis.Buffer, typeof globalThis.module],
          });`,
        resolveDir: app,
        loader: 'js',
      },
      bundle: true,
      platform: 'browser',
      format: 'iife',
      write: false,
      logLevel: 'silent',
    });
    const code = bundle.outputFiles[0]?.text ?? '';
    expect(code).not.toMatch(/\brequire\(["']node:/);
    const sandbox: { result?: string } = {};
    runInNewContext(code, sandbox);
    expect(JSON.parse(sandbox.result ?? 'null')).toEqual({
      good: true,
      badPaths: expect.arrayContaining(['/hipId', '/visitDate', '/careContexts/0/display']) as unknown,
      lint: ['empty-care-contexts'],
      visitDate: '2026-11-21',
      frequency: '1-0-1 (twice a day: morning and night)',
      nodeGlobals: ['undefined', 'undefined', 'undefined', 'undefined'],
    });
  });

  it('ships the examples the CLI help points to, the LICENSE and both builds, and nothing of the sources or tests', () => {
    expect(packed).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json', 'dist/cjs/package.json', 'dist/cjs/index.js', 'dist/cjs/index.d.ts', 'dist/index.js', 'dist/cli/main.js']));
    const help = ['build', 'render'].map((c) => readFileSync(join(root, 'src/cli/commands', `${c}.ts`), 'utf8')).join('\n');
    expect(help).toMatch(/examples\//);
    const examples = readdirSync(join(root, 'examples')).map((f) => `examples/${f}`);
    expect(examples.length).toBeGreaterThan(0);
    expect(packed).toEqual(expect.arrayContaining(examples));
    expect(packed.filter((f) => /^(src|test|scripts|bench|\.ci)\//.test(f))).toEqual([]);
    expect(readFileSync(join(app, 'node_modules/abha-link/LICENSE'), 'utf8')).toMatch(/^MIT License/);
  });

  it('has README links and images that work on the npm registry page: absolute, to files the repository holds', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const targets = [...readme.matchAll(/!?\[[^\]]*\]\(([^)\s]+)[^)]*\)|<(?:a|img)\b[^>]*?(?:href|src)="([^"]+)"/g)].map((m) => m[1] ?? m[2] ?? '');
    expect(targets.length).toBeGreaterThan(0);
    const repo = /^https:\/\/(?:github\.com\/abha-link\/abha-link\/blob\/main|raw\.githubusercontent\.com\/abha-link\/abha-link\/main)\/([^#?]+)/;
    for (const t of targets) {
      if (t.startsWith('#')) continue;
      if (!/^https?:\/\//.test(t)) {
        expect(packed, `relative link ${t} must be a shipped file`).toContain(t.split('#')[0]);
        continue;
      }
      const inRepo = repo.exec(t);
      if (inRepo?.[1] !== undefined) expect(existsSync(join(root, inRepo[1])), `${t} names a file of the repository`).toBe(true);
    }
    // No pointer to files that are not part of the repository.
    expect(readme).not.toMatch(/shared\/(reference|spec)\//);
  });

  it('states in the README as many entry points as package.json exports', () => {
    const pkg = JSON.parse(readFileSync(join(app, 'node_modules/abha-link/package.json'), 'utf8')) as { exports: Record<string, unknown> };
    const entries = Object.entries(pkg.exports).filter(([, v]) => typeof v === 'object' && v !== null && 'import' in v && 'require' in v);
    const words = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven'];
    const stated = /\b(\w+) entry points\b/i.exec(readFileSync(join(root, 'README.md'), 'utf8'))?.[1]?.toLowerCase() ?? '';
    expect(words.indexOf(stated)).toBe(entries.length);
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    for (const [sub] of entries) expect(readme).toContain(`\`${sub === '.' ? 'abha-link' : `abha-link/${sub.slice(2)}`}\``);
  });
});
