import { parseSeed, type MockSeed } from '../../mock/accounts.js';
import { startMockServer, type MockEvent } from '../../mock/server.js';
import { fileCountError, optionError, defineCommand } from '../command.js';
import { EXIT, cliIo, UsageError, decodeUtf8, parseJson, problemLine, nextStopSignal, readRegularFile } from '../io.js';

async function loadSeed(file: string): Promise<MockSeed> {
  const text = decodeUtf8((await readRegularFile(file)).bytes, file);
  const parsed = parseJson(text);
  if (!parsed.ok) throw new UsageError(problemLine(file, parsed.problem));
  const seed = parseSeed(parsed.value);
  if (!seed.success) {
    const lines = seed.issues.slice(0, 10).map((i) => `  ${i.path || '/'} ${i.message} (${i.code})`);
    const more = seed.issues.length > 10 ? `\n  and ${seed.issues.length - 10} more` : '';
    throw new UsageError(`${file}: not a valid seed file:\n${lines.join('\n')}${more}`);
  }
  return seed.seed;
}

function logLine(e: MockEvent): string {
  if (e.type === 'otp') return `otp ${e.otp} for txn ${e.txnId} (mobile ending ${e.mobileLast4})`;
  const fault = e.fault === undefined ? '' : ` [fault: ${e.fault}]`;
  const id = e.requestId === undefined ? '' : ` request ${e.requestId}`;
  return `${e.method} ${e.endpoint} ${e.status} ${e.ms} ms${fault}${id}`;
}

export const command = defineCommand({
  usage: 'abha-link mock [--port N] [--seed FILE] [--otp CODE] [--already-linked]',
  help: `Runs a local mock of the ABHA identity and care-context linking service on
127.0.0.1: all 12 endpoints of the spec, requests checked with the same schemas
as the client, synthetic accounts. Its first line on stdout is
"listening on http://127.0.0.1:PORT"; it runs until Ctrl-C (or SIGTERM).

The token endpoint accepts the API key in the environment variable
ABHA_LINK_API_KEY, or else a development key printed at start as
"export ABHA_LINK_API_KEY=dev-...", followed by
"export ABHA_LINK_BASE_URL=http://127.0.0.1:PORT": paste both into a shell.
Without --seed, every valid 10-digit mobile has one to three deterministic
synthetic accounts. OTPs are printed on stderr as they are "sent" (or are CODE
with --otp). stderr gets one line per request (method, endpoint id, status,
time: never a body or a path).

Also served: GET /openapi.json (the OpenAPI 3.1 document), GET /__mock/stats,
POST /__mock/faults (a fault rule: {"endpoint":"link-carecontext","times":1,
"fault":{"type":"status","status":429,"retryAfter":1}}; types: latency, status,
envelope-failure, drop, hang, garbage, expire-token), DELETE /__mock/faults,
POST /__mock/expire-tokens.

Options:
  --port N       port to listen on (default 0: a free port)
  --seed FILE    accounts to serve instead of synthetic ones (a regular file):
                 {"accounts":[{"mobile":"9000000001",
                 "abhaAddress":"test.one@sbx", "firstName":"Test",
                 "lastName"?, "gender"?, "dob"?, "ABHANumber"?, ...}]}
  --otp CODE     use this 6-digit OTP for every flow
  --already-linked
                 answer a link request with the ABHA address, hipId, visitId
                 and referenceNumbers of one already linked with success:
                 false, data.code ALREADY_LINKED (default: link it again)
  -h, --help     show this help
  -v, --version  print the version

Ctrl-C stops the mock with exit code 130; SIGTERM with 0.`,
  options: { port: { type: 'string' }, seed: { type: 'string' }, otp: { type: 'string' }, 'already-linked': { type: 'boolean' } },
  async run({ values, positionals }) {
    if (positionals.length > 0) throw new UsageError(`${fileCountError('mock', 0, positionals.length).message}; use --seed FILE for accounts`);
    const portText = values.port ?? '0';
    if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) throw optionError('port', 'a number from 0 to 65535');
    const otp = values.otp;
    if (otp !== undefined && !/^[0-9]{6}$/.test(otp)) throw optionError('otp', 'exactly 6 digits');
    const seedFile = values.seed;
    const seed = seedFile === undefined ? undefined : await loadSeed(seedFile);
    const envKey = cliIo().env.ABHA_LINK_API_KEY;
    const apiKey = envKey !== undefined && envKey.trim() !== '' ? envKey.trim() : undefined;
    let mock;
    try {
      mock = await startMockServer({
        port: Number(portText),
        ...(apiKey === undefined ? {} : { apiKey }),
        ...(otp === undefined ? {} : { otp }),
        ...(seed === undefined ? {} : { seed }),
        ...(values['already-linked'] ? { linkRepeats: 'already-linked' as const } : {}),
        onEvent: (e) => cliIo().stderr.write(`${logLine(e)}\n`),
      });
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === 'EADDRINUSE') throw new UsageError(`port ${portText} is already in use; choose another or use --port 0`);
      if (code === 'EACCES') throw new UsageError(`port ${portText} needs privileges; choose a port above 1023`);
      throw e;
    }
    cliIo().stdout.write(`listening on ${mock.url}\n`);
    // Lines a shell can run as pasted. A development key is dev-<uuid>: nothing to quote. A key from the environment is never printed.
    cliIo().stdout.write(apiKey === undefined ? `export ABHA_LINK_API_KEY=${mock.apiKey}\n` : '# API key: the value of ABHA_LINK_API_KEY in your environment\n');
    cliIo().stdout.write(`export ABHA_LINK_BASE_URL=${mock.url}\n`);
    if (seed !== undefined) cliIo().stdout.write(`accounts: ${seed.accounts.length} from ${seedFile ?? ''}\n`);
    const signal = await nextStopSignal();
    await mock.close();
    cliIo().stderr.write('mock stopped\n');
    // Ctrl-C exits 130 as for every command; SIGTERM is the orderly stop of a service manager.
    return signal === 'SIGINT' ? EXIT.interrupted : EXIT.ok;
  },
});
