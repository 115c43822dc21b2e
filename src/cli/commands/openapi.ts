import { buildOpenApiDocument } from '../../mock/openapi.js';
import type { Command } from '../command.js';
import { EXIT, UsageError, writeOut } from '../io.js';

export const command: Command = {
  usage: 'abha-link openapi [--server URL] [--compact]',
  help: `Prints the OpenAPI 3.1 document of the service (all 12 endpoints), generated
from the shipped JSON Schemas, the same ones the validators use. The mock serves
it too, at GET /openapi.json.

Options:
  --server URL   list URL as the document's server (default: none)
  --compact      one line instead of indented JSON
  -h, --help     show this help`,
  options: { server: { type: 'string' }, compact: { type: 'boolean' } },
  async run({ values, positionals }) {
    if (positionals.length > 0) throw new UsageError('abha-link openapi takes no FILE');
    const server = values.server as string | undefined;
    if (server !== undefined && !/^https?:\/\/[^\s]+$/.test(server)) throw new UsageError('--server must be an http(s) URL');
    const doc = buildOpenApiDocument(server === undefined ? {} : { serverUrl: server });
    await writeOut(`${JSON.stringify(doc, null, values.compact === true ? undefined : 2)}\n`);
    return EXIT.ok;
  },
};
