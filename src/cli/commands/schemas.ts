import { SCHEMA_MANIFEST } from '../../generated/manifest.js';
import { EXIT, writeOut } from '../io.js';
import { fileCountError, defineCommand } from '../command.js';

/** Lists every schema. */
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

export const command = defineCommand({
  usage: 'abha-link schemas [--json]',
  help: `Lists every schema shipped in schemas/. With --json, prints a JSON array of
{ "name", "title", "file", "resource"?, "endpoint"?, "part"? }.

Options:
  --json         print JSON instead of a table
  -h, --help     show this help
  -v, --version  print the version`,
  options: { json: { type: 'boolean' } },
  run({ values, positionals }) {
    if (positionals.length > 0) throw fileCountError('schemas', 0, positionals.length);
    return runSchemas(values.json);
  },
});
