/**
 * Every TypeScript block of README.md and docs/*.md, as a user would paste it:
 * one module per block, in a scratch project where `abha-link` is the built
 * package (a link to this repository, resolved through its `exports`),
 * type-checked by tsc under strict settings, then run with Node in a folder
 * holding a copy of examples/. A block preceded by the line
 * `<!-- doc-test: compile-only (REASON) -->` is only compiled (it needs a
 * live service or a browser); every other block must also run without error.
 */
import { execFile as execFileCb } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const execFile = promisify(execFileCb);
const root = fileURLToPath(new URL('..', import.meta.url));

interface Block {
  /** e.g. `docs/client.md:22` */
  readonly where: string;
  /** Module file name in the scratch project, without extension. */
  readonly name: string;
  readonly code: string;
  readonly runs: boolean;
}

const COMPILE_ONLY = /^<!-- doc-test: compile-only \([^)]+\) -->$/;

function blocksOf(file: string): Block[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(ts|typescript)\s*$/.test(lines[i] ?? '')) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith('```'));
    if (end < 0) throw new Error(`${file}:${i + 1}: unclosed code block`);
    const marker = (lines[i - 1] ?? '').trim();
    if (marker.startsWith('<!-- doc-test') && !COMPILE_ONLY.test(marker)) throw new Error(`${file}:${i}: unknown doc-test marker`);
    blocks.push({
      where: `${file}:${i + 1}`,
      name: `${file.replace(/\.md$/, '').replace(/[^A-Za-z0-9]+/g, '-')}-${i + 1}`,
      code: lines.slice(i + 1, end).join('\n'),
      runs: !COMPILE_ONLY.test(marker),
    });
    i = end;
  }
  return blocks;
}

const files = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const blocks = files.flatMap(blocksOf);
const quickStart = blocks.find((b) => b.where.startsWith('README.md:'));
let tmp = '';
let compiled: { code: number; output: string } = { code: -1, output: '' };

async function run(cmd: string, args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await execFile(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof err.code === 'number' ? err.code : 1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
  }
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'abha-link-docs-'));
  const modules = join(tmp, 'node_modules');
  mkdirSync(modules);
  symlinkSync(root, join(modules, 'abha-link'), 'dir');
  symlinkSync(join(root, 'node_modules', '@types'), join(modules, '@types'), 'dir');
  cpSync(join(root, 'examples'), join(tmp, 'examples'), { recursive: true });
  writeFileSync(join(tmp, 'package.json'), JSON.stringify({ name: 'docs-blocks', private: true, type: 'module' }));
  for (const b of blocks) {
    // The quick start's text states values of the request it builds: print it, so that they can be compared.
    const tail = b.where === quickStart?.where ? '\nconsole.log(JSON.stringify(request));\n' : '\n';
    writeFileSync(join(tmp, `${b.name}.mts`), `${b.code}${tail}export {};\n`);
  }
  const compilerOptions = {
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: true,
    types: ['node'],
    outDir: 'out',
    rootDir: '.',
  };
  writeFileSync(join(tmp, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['*.mts'] }));
  const r = await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', tmp], tmp);
  compiled = { code: r.code, output: r.stdout + r.stderr };
}, 60_000);

afterAll(() => {
  if (tmp !== '') rmSync(tmp, { recursive: true, force: true });
});

describe('the TypeScript blocks of the README and docs', () => {
  it('are found: the README quick start and the examples of every guide', () => {
    expect(quickStart?.runs).toBe(true);
    for (const f of ['docs/client.md', 'docs/fhir.md', 'docs/render.md'])
      expect(
        blocks.some((b) => b.where.startsWith(`${f}:`)),
        f,
      ).toBe(true);
  });

  it('compile under strict TypeScript against the built package', () => {
    // Map "README-37.mts(5,3): error" back to the markdown file and line.
    const errors = compiled.output
      .split('\n')
      .filter((l) => l.includes('error TS'))
      .map((l) => {
        const m = /^(.+?)\.mts\((\d+),\d+\): (.*)$/.exec(l.trim());
        const b = m === null ? undefined : blocks.find((x) => x.name === m[1]);
        return b === undefined || m === null ? l : `${b.where.split(':')[0]}:${Number(b.where.split(':')[1]) + Number(m[2])}: ${m[3]}`;
      });
    expect(errors).toEqual([]);
    expect(compiled.code).toBe(0);
  });

  it.each(blocks.filter((b) => b.runs).map((b) => [b.where, b] as const))('%s runs without error', async (_, b) => {
    const r = await run(process.execPath, [join(tmp, 'out', `${b.name}.mjs`)], tmp);
    // Blocks may print warnings on stderr as part of the example; a throw or rejection fails them.
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.code, r.stderr).toBe(0);
  });

  it('the README quick start builds the values its text states', async () => {
    if (quickStart === undefined) throw new Error('no quick start');
    const r = await run(process.execPath, [join(tmp, 'out', `${quickStart.name}.mjs`)], tmp);
    const request = JSON.parse(r.stdout.trim().split('\n').pop() ?? 'null') as {
      careContexts: { hiType: string; referenceNumber: string; display: string; bundleData: { medications: { frequency: string }[] } }[];
    };
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const sentence = readme.slice(readme.indexOf('`request.careContexts[0]` gets'), readme.indexOf('\n', readme.indexOf('`request.careContexts[0]` gets')));
    const cc = request.careContexts[0];
    const stated = [...sentence.matchAll(/`([^`]+)`/g)].map((m) => m[1]).slice(1);
    expect(stated).toEqual([cc?.hiType, cc?.referenceNumber, cc?.display, cc?.bundleData.medications[0]?.frequency]);
  });
});
