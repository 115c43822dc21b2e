/**
 * The built package as its users load it: plain Node, outside vitest, from
 * ESM and from CommonJS (require of ESM, Node >= 20.19), and the promise that
 * the core entry point loads no templates and no network code.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const schemaCount = (JSON.parse(readFileSync(join(root, 'schemas/index.json'), 'utf8')) as unknown[]).length;

function node(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const script = `
  const req = JSON.parse(require('node:fs').readFileSync('examples/lab-order.input.json', 'utf8'));
  const built = m.buildLinkRequest(req);
  const ok = m.validateLinkRequest(built).success;
  const bad = m.validate('search-abha-request', { mobile: '1' });
  console.log(JSON.stringify({ ok, visitDate: built.visitDate, code: bad.success ? null : bad.issues[0].code, schemas: m.SCHEMA_NAMES.length }));
`;

describe('the built package', () => {
  it('imports by name from ESM in plain Node', () => {
    const r = node(['--input-type=module', '-e', `import * as m from 'abha-link'; import { createRequire } from 'node:module'; const require = createRequire(import.meta.url); ${script}`]);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ ok: true, visitDate: '2026-11-21', code: 'invalid-mobile', schemas: schemaCount });
  });

  it('loads with require() from CommonJS', () => {
    const r = node(['--no-warnings', '-e', `const m = require('abha-link'); ${script}`]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ ok: true, visitDate: '2026-11-21', code: 'invalid-mobile', schemas: schemaCount });
  });

  it('ships its schemas under abha-link/schemas/*', () => {
    const r = node(['--input-type=module', '-e', `import s from 'abha-link/schemas/link-carecontext-request.schema.json' with { type: 'json' }; console.log(s.$id)`]);
    expect(r.stdout.trim()).toBe('https://abha-link.dev/schemas/v1/link-carecontext-request.schema.json');
  });

  it('keeps the core entry point free of handlebars and network code', () => {
    const seen = new Set<string>();
    const bare = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      const code = readFileSync(file, 'utf8');
      expect(code, `${file} calls fetch`).not.toMatch(/\bfetch\(|globalThis\.fetch/);
      for (const m of code.matchAll(/(?:import|export)[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)) {
        const spec = m[1] ?? m[2] ?? '';
        if (spec.startsWith('.')) visit(resolve(dirname(file), spec));
        else bare.add(spec);
      }
    };
    visit(join(root, 'dist/index.js'));
    expect(seen.size).toBeGreaterThan(10);
    for (const b of bare) expect(b).not.toMatch(/^(handlebars|node:(http|https|net|tls|dgram|child_process)|http|https|undici)/);
    expect([...bare].sort()).toEqual(['ajv-formats/dist/formats.js', 'ajv/dist/runtime/ucs2length.js', 'date-fns/isValid', 'date-fns/parseISO', 'fastest-levenshtein']);
  });
});
