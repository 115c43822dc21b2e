import { readFileSync } from 'node:fs';
import { parseBaseUrl } from '../../client/base-url.js';
import { createClient, type AbhaClient, type ClientOptions } from '../../client/index.js';
import { isLoopbackHost } from '../../serve/auth.js';
// Only modules without the server stack (fastify, pg, PGlite, prom-client) are imported here: startServe is loaded in run(),
// the API key file's and the ICD-10 table's readers (the submit command, CSV and XML parsers) only when their option is given.
import { DEFAULT_TIMEOUTS, type ServeTimeouts } from '../../serve/request-guard.js';
import { isQueueError, type QueueErrorCode } from '../../serve/queue/types.js';
import { parseCallbackAllow } from '../../serve/queue/callback-policy.js';
import { defineCommand, optionError } from '../command.js';
import { EXIT, cliIo, UsageError, decodeUtf8, nextStopSignal, readRegularFile } from '../io.js';

/**
 * The packages only `serve` needs: optional peer dependencies of abha-link
 * (package.json holds their versions), so that installing the library brings
 * no server stack. In the order of the install line.
 */
export const SERVE_PACKAGES = ['fastify', 'pg', '@electric-sql/pglite', 'prom-client'] as const;

/**
 * The serve packages that cannot be found from this module, in the order of
 * {@link SERVE_PACKAGES}. `resolve` is the seam a test replaces; by default
 * Node's own resolution, which finds a package without loading it.
 */
export function missingServePackages(resolve: (name: string) => string = (name) => import.meta.resolve(name)): string[] {
  return SERVE_PACKAGES.filter((name) => {
    try {
      resolve(name);
      return false;
    } catch {
      return true;
    }
  });
}

/**
 * The one line that says what to install when serve's packages are missing:
 * every serve package with the version range abha-link declares for it
 * (`peers` is package.json's peerDependencies).
 *
 * @example
 * serveInstallAdvice(['pg'], { fastify: '^5.12.8', pg: '^8.23.1', '@electric-sql/pglite': '^0.5.16', 'prom-client': '^15.1.3' })
 * //=> 'abha-link serve needs packages that are not installed (pg): npm install fastify@^5.12.8 pg@^8.23.1 @electric-sql/pglite@^0.5.16 prom-client@^15.1.3'
 */
export function serveInstallAdvice(missing: readonly string[], peers: Readonly<Record<string, string>>): string {
  const specs = SERVE_PACKAGES.map((name) => (peers[name] === undefined ? name : `${name}@${peers[name]}`));
  return `abha-link serve needs packages that are not installed (${missing.join(', ')}): npm install ${specs.join(' ')}`;
}

/** package.json's peerDependencies: the version ranges of the serve packages. */
function peerRanges(): Record<string, string> {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { peerDependencies?: Record<string, string> };
  return pkg.peerDependencies ?? {};
}

/** The serve token from --token-file or ABHA_LINK_SERVE_TOKEN; undefined when neither is given. */
async function readToken(file: string | undefined, env: string | undefined): Promise<string | undefined> {
  if (file !== undefined) {
    const { bytes, stats } = await readRegularFile(file, { maxBytes: 4096 });
    if ((stats.mode & 0o077) !== 0 && process.platform !== 'win32') cliIo().stderr.write(`abha-link: warning: ${file} can be read by other users; restrict it (chmod 600)\n`);
    const token = decodeUtf8(bytes, file).trim();
    if (token === '' || /\s/.test(token)) throw new UsageError(`${file} must hold the token on one line, without spaces`);
    return token;
  }
  const t = env?.trim();
  if (t === undefined || t === '') return undefined;
  if (/\s/.test(t)) throw new UsageError('ABHA_LINK_SERVE_TOKEN must not contain spaces');
  return t;
}

/** The shortest token accepted on a host beyond loopback: 32 characters (e.g. 24 random bytes in base64). */
export const MIN_REMOTE_TOKEN_LENGTH = 32;

/** A host name or address as --allowed-host takes it. */
const HOST_NAME = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$|^\[?[0-9a-f:.]+\]?$/i;

/** The allowed Host names of --allowed-host (repeatable) and ABHA_LINK_ALLOWED_HOSTS (comma-separated). */
function readAllowedHosts(given: readonly string[], env: string | undefined): string[] {
  const names = [...given, ...(env ?? '').split(',')].map((h) => h.trim()).filter((h) => h !== '');
  for (const name of names) {
    if (!HOST_NAME.test(name)) throw optionError('allowed-host', `a host name or address without scheme, port or path (such as abha.hospital.internal), not "${name.slice(0, 60)}"`);
  }
  return names.map((h) => h.replace(/^\[|\]$/g, ''));
}

/** The connection time limits of --headers-timeout, --request-timeout and --keep-alive-timeout (seconds). */
function readTimeouts(values: { readonly 'headers-timeout'?: string | undefined; readonly 'request-timeout'?: string | undefined; readonly 'keep-alive-timeout'?: string | undefined }): ServeTimeouts {
  const seconds = (name: 'headers-timeout' | 'request-timeout' | 'keep-alive-timeout', fallback: number): number => {
    const text = values[name];
    if (text === undefined) return fallback;
    const n = Number(text);
    if (!/^\d+(\.\d+)?$/.test(text) || n < 0.1 || n > 3600) throw optionError(name, 'a number of seconds from 0.1 to 3600');
    return Math.round(n * 1000);
  };
  const t = {
    headersMs: seconds('headers-timeout', DEFAULT_TIMEOUTS.headersMs),
    requestMs: seconds('request-timeout', DEFAULT_TIMEOUTS.requestMs),
    keepAliveMs: seconds('keep-alive-timeout', DEFAULT_TIMEOUTS.keepAliveMs),
  };
  if (t.headersMs > t.requestMs) throw optionError('headers-timeout', 'at most --request-timeout (the whole request includes its headers)');
  return t;
}

/** A token is required beyond loopback, and must be long enough there not to be guessed. */
function checkTokenForHost(token: string | undefined, host: string): void {
  if (isLoopbackHost(host)) return;
  if (token === undefined) {
    throw new UsageError(`--host ${host} listens beyond this machine: set ABHA_LINK_SERVE_TOKEN or give --token-file FILE, so that only your systems can call the service`);
  }
  if (token.length < MIN_REMOTE_TOKEN_LENGTH) {
    throw new UsageError(
      `--host ${host} listens beyond this machine, and the serve token has ${token.length} characters: it needs at least ${MIN_REMOTE_TOKEN_LENGTH} (make one with: head -c 24 /dev/urandom | base64)`,
    );
  }
}

/** The upstream client from ABHA_LINK_BASE_URL and the API key, as submit reads them; undefined without a base URL. */
async function readUpstream(keyFile: string | undefined): Promise<{ client: AbhaClient; options: ClientOptions } | undefined> {
  const raw = cliIo().env.ABHA_LINK_BASE_URL;
  if (raw === undefined || raw.trim() === '') {
    if (keyFile !== undefined) throw new UsageError('--api-key-file needs ABHA_LINK_BASE_URL, the service to send to');
    return undefined;
  }
  let baseUrl: string;
  try {
    baseUrl = parseBaseUrl(raw.trim());
  } catch (e) {
    throw new UsageError(`ABHA_LINK_BASE_URL: ${(e as Error).message.replace(/^baseUrl /, '')}`);
  }
  const envKey = cliIo().env.ABHA_LINK_API_KEY?.trim();
  const apiKey = keyFile !== undefined ? await (await import('./submit.js')).readApiKeyFile(keyFile) : envKey !== undefined && envKey !== '' ? envKey : undefined;
  if (apiKey === undefined) throw new UsageError('no API key for ABHA_LINK_BASE_URL: set ABHA_LINK_API_KEY, or give --api-key-file FILE');
  const options: ClientOptions = { baseUrl, apiKey };
  return { client: createClient(options), options };
}

/** The queue's refusals at start that the operator fixes (exit 2): another server on the data directory, its permissions, the data key, an option. */
const START_USAGE: ReadonlySet<QueueErrorCode> = new Set(['data-dir-in-use', 'data-dir-unsafe', 'invalid-data-key', 'invalid-options']);

export const command = defineCommand({
  usage:
    'abha-link serve [--host H] [--port N] [--data DIR] [--data-key-file FILE] [--api-key-file FILE] [--token-file FILE] [--allowed-host NAME]... [--callback-allow HOST[:PORT]]... [--work-time-limit S] [--icd10-titles FILE] [--embedded-durability full|relaxed]',
  help: `Runs the abha-link HTTP service: validate, build, render and FHIR over HTTP,
a submissions queue that stores each link request before answering 202 and
sends it with the client's guarantees, and the identity endpoints of the spec
passed through with this server's API key. The first line on stdout is
"listening on http://HOST:PORT"; logs are JSON lines on stderr (route, status,
time: never a body, header or URL). docs/serve.md has the routes and examples.

Every route but /healthz, /readyz, /openapi.json and the playground page (/)
needs "Authorization: Bearer TOKEN", TOKEN from the environment variable
ABHA_LINK_SERVE_TOKEN or --token-file. Without a token the server listens
only on a loopback host; beyond it the token needs 32 characters or more.
Requests must name this server in Host (its address, a loopback name or an
--allowed-host name), come from no other web page (Origin), and send JSON
bodies as application/json. docs/security.md says what else to do.

The upstream service: ABHA_LINK_BASE_URL and ABHA_LINK_API_KEY (or
--api-key-file), as for submit; abha-link mock prints both. Without
ABHA_LINK_BASE_URL the service runs without submissions and pass-through.
ABHA_LINK_DATABASE_URL=postgres://... shares the queue between servers.
Queued requests are stored encrypted with the data key: ABHA_LINK_SERVE_DATA_KEY
(base64 of 32 bytes) or --data-key-file, made on first start (0600).

Options:
  --host H              address to listen on (default 127.0.0.1)
  --port N              port (default 8080; 0 picks a free port)
  --data DIR            the queue's folder (default ./abha-link-data; 0700)
  --data-key-file FILE  the key of the stored requests (default DIR.key
                        beside DIR, made when missing; one base64 key a
                        line, newest first)
  --api-key-file FILE   read the API key from FILE (default: $ABHA_LINK_API_KEY)
  --token-file FILE     read the serve token from FILE (default:
                        $ABHA_LINK_SERVE_TOKEN)
  --icd10-titles FILE   the hospital's ICD-10 title table (CSV or TSV of code
                        and title, or WHO ClaML XML) for /v1/fhir: an icdCode
                        with a title becomes an ICD-10 coding
  --allowed-host NAME   also answer to Host NAME, e.g. the name a reverse proxy
                        forwards (repeatable; $ABHA_LINK_ALLOWED_HOSTS, commas)
  --headers-timeout S   a request's headers must arrive within S seconds (10)
  --request-timeout S   a whole request, body included, within S seconds (30)
  --keep-alive-timeout S  an idle connection is closed after S seconds (5)
  --callback-allow HOST[:PORT]
                        let callbackUrl name this host whatever its address
                        (a private or loopback one); plain http only to a
                        loopback HOST:PORT given here (repeatable)
  --work-time-limit S   seconds one validate/build/render/FHIR request may
                        work before it is stopped with 503 (default 20)
  --embedded-durability full|relaxed
                        the queue in DIR (not PostgreSQL): full (default)
                        answers 202 once the request is on disk; relaxed
                        once the system has it, which is faster but may lose
                        the last requests accepted to a power cut
  -h, --help            show this help
  -v, --version         print the version

SIGTERM stops the server in order (no new requests, those in flight answered,
the queue's sends finished) with exit code 0; Ctrl-C the same with 130.`,
  options: {
    host: { type: 'string' },
    port: { type: 'string' },
    data: { type: 'string' },
    'api-key-file': { type: 'string' },
    'token-file': { type: 'string' },
    'allowed-host': { type: 'string', multiple: true },
    'headers-timeout': { type: 'string' },
    'request-timeout': { type: 'string' },
    'keep-alive-timeout': { type: 'string' },
    'icd10-titles': { type: 'string' },
    'callback-allow': { type: 'string', multiple: true },
    'work-time-limit': { type: 'string' },
    'data-key-file': { type: 'string' },
    'embedded-durability': { type: 'string' },
  },
  async run({ values, positionals }) {
    if (positionals.length > 0) throw new UsageError('abha-link serve takes no FILE');
    const missing = missingServePackages();
    if (missing.length > 0) throw new UsageError(serveInstallAdvice(missing, peerRanges()));
    const host = values.host ?? '127.0.0.1';
    if (host.trim() === '') throw optionError('host', 'an address such as 127.0.0.1 or 0.0.0.0');
    const portText = values.port ?? '8080';
    if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) throw optionError('port', 'a number from 0 to 65535');
    const token = await readToken(values['token-file'], cliIo().env.ABHA_LINK_SERVE_TOKEN);
    checkTokenForHost(token, host);
    const allowedHosts = readAllowedHosts(values['allowed-host'], cliIo().env.ABHA_LINK_ALLOWED_HOSTS);
    const timeouts = readTimeouts(values);
    const upstream = await readUpstream(values['api-key-file']);
    const titlesFile = values['icd10-titles'];
    const icd10Titles = titlesFile === undefined ? undefined : (await (await import('../icd10-titles.js')).readIcd10TitlesFile(titlesFile)).titles;
    const secret = cliIo().env.ABHA_LINK_CALLBACK_SECRET?.trim();
    if (secret !== undefined && secret !== '' && secret.length < 16) throw new UsageError('ABHA_LINK_CALLBACK_SECRET must be at least 16 characters');
    const warn = (m: string): void => void cliIo().stderr.write(`abha-link serve: warning: ${m}\n`);
    if (token === undefined) warn('no token (ABHA_LINK_SERVE_TOKEN): any program or user on this machine can call /v1 and queue links with the API key; set a token');
    const databaseUrl = cliIo().env.ABHA_LINK_DATABASE_URL?.trim();
    const callbackAllow = (values['callback-allow'] ?? []).map((v) => {
      try {
        return parseCallbackAllow(v);
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
    });
    const limitText = values['work-time-limit'];
    if (limitText !== undefined && !(/^\d{1,3}(\.\d+)?$/.test(limitText) && Number(limitText) >= 0.1 && Number(limitText) <= 600))
      throw optionError('work-time-limit', 'a number of seconds from 0.1 to 600');
    const durability = values['embedded-durability'];
    if (durability !== undefined && durability !== 'full' && durability !== 'relaxed') throw optionError('embedded-durability', 'full or relaxed');
    // Loaded here, not at the top: `abha-link serve --help` and the other commands never load the server stack.
    const { startServe } = await import('../../serve/start.js');
    let running;
    try {
      running = await startServe({
        host,
        port: Number(portText),
        dataDir: values.data ?? 'abha-link-data',
        token,
        client: upstream?.client,
        clientOptions: upstream?.options,
        callbackSecret: secret === '' ? undefined : secret,
        callbackAllow,
        workTimeLimitMs: limitText === undefined ? undefined : Math.round(Number(limitText) * 1000),
        databaseUrl: databaseUrl === '' ? undefined : databaseUrl,
        dataKey: cliIo().env.ABHA_LINK_SERVE_DATA_KEY,
        dataKeyFile: values['data-key-file'],
        embeddedDurability: durability,
        chromium: cliIo().env.ABHA_LINK_CHROMIUM || undefined,
        icd10Titles,
        allowedHosts,
        timeouts,
        now: () => cliIo().now(),
        logStream: { write: (line: string) => cliIo().stderr.write(line) },
        warn,
      });
    } catch (e) {
      if (isQueueError(e) && START_USAGE.has(e.code)) throw new UsageError(e.message);
      const code = (e as { code?: string }).code;
      if (code === 'EADDRINUSE') throw new UsageError(`port ${portText} is already in use; choose another or use --port 0`);
      if (code === 'EACCES') throw new UsageError(`port ${portText} needs privileges; choose a port above 1023`);
      if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new UsageError(`--host ${host} is not an address of this machine`);
      throw e;
    }
    cliIo().stdout.write(`listening on ${running.url}\n`);
    let signal: NodeJS.Signals;
    try {
      signal = await Promise.race([nextStopSignal(), running.failed]);
    } catch (e) {
      // The queue's database did not open behind the listening server: stop, saying why (the message holds no data).
      cliIo().stderr.write(`abha-link serve: the queue could not be opened${isQueueError(e) ? `: ${e.message}` : ''}; stopping\n`);
      await running.close();
      throw e;
    }
    cliIo().stderr.write("abha-link serve: stopping: no new requests; finishing those in flight and the queue's sends\n");
    await running.close();
    cliIo().stderr.write('abha-link serve: stopped\n');
    return signal === 'SIGINT' ? EXIT.interrupted : EXIT.ok;
  },
});
