import { SCHEMA_MANIFEST } from '../../generated/manifest.js';
import { EXIT, writeOut } from '../io.js';

/** `abha-link schemas`: lists every schema. Returns the exit code. */
export async function runSchemas(json: boolean): Promise<number> {
  if (json) {
    await writeOut(`${JSON.stringify(SCHEMA_MANIFEST, null, 2)}\n`);
    return EXIT.ok;
  }
  const width = Math.max(...SCHEMA_MANIFEST.map((e) => e.name.length));
  let s = '';
  for (const e of SCHEMA_MANIFEST) {
    const what = 'endpoint' in e ? `${e.part} of ${e.endpoint}` : 'resource' in e ? `resource ${e.resource}` : 'builder input';
    s += `${e.name.padEnd(width)}  ${what}\n`;
  }
  await writeOut(s);
  return EXIT.ok;
}
