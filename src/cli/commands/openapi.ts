import { buildOpenApiDocument } from '../../mock/openapi.js';
import { fileCountError, optionError, defineCommand } from '../command.js';
import { EXIT, writeOut } from '../io.js';

export const command = defineCommand({
  usage: 'abha-link openapi [--server URL] [--compact]',
  help: `Prints the OpenAPI 3.1 document of the service (all 12 endpoints), generated
from the shipped JSON Schemas, the same ones the validators use. The mock serves
it too, at GET /openapi.json.

Options:
  --server URL   list URL as the document's server (default: none)
  --compact      one line instead of indented JSON
  -h, --help     show this help
  -v, --version  print the version`,
  options: { server: { type: 'string' }, compact: { type: 'boolean' } },
  async run({ values, positionals }) {
    if (positionals.length > 0) throw fileCountError('openapi', 0, positionals.length);
    const server = values.server;
    if (server !== undefined && !/^https?:\/\/[^\s]+$/.test(server)) throw optionError('server', 'an http(s) URL');
    const doc = buildOpenApiDocument(server === undefined ? {} : { serverUrl: server });
    await writeOut(`${JSON.stringify(doc, null, values.compact ? undefined : 2)}\n`);
    return EXIT.ok;
  },
});
