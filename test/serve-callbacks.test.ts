/**
 * Callbacks of `abha-link serve`: where a callbackUrl may point (refused at
 * acceptance with a 400 naming /callbackUrl, and again after DNS at delivery
 * with a stubbed resolver), and the signature of a real delivery, checked by
 * the verification code docs/serve.md gives for Node, Python and PHP: a fresh
 * delivery verifies, the same delivery again is a duplicate, a delivery
 * signed more than 5 minutes ago and a tampered body do not verify.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createServeApp } from '../src/serve/app.js';
import { checkCallbackUrl, forbiddenAddress, guardedLookup, parseCallbackAllow, type LookupFn } from '../src/serve/queue/callback-policy.js';
import { deliverCallback } from '../src/serve/queue/callback.js';
import type { Submission } from '../src/serve/queue/types.js';
import { fakeQueue } from './support/fake-queue.js';

const TOKEN = 'callbacks-test-token-0123456789abcdef';
const SECRET = 'callback-secret-0123456789abcdef';
const request = JSON.parse(readFileSync(new URL('../examples/opd-prescription.request.json', import.meta.url), 'utf8')) as Record<string, unknown>;

/** URLs refused without an allow-list, each with the words of its reason. */
const REFUSED: readonly (readonly [string, RegExp])[] = [
  ['http://hms.example/cb', /https/],
  ['http://127.0.0.1:9000/cb', /https/],
  ['https://169.254.169.254/latest/meta-data', /link-local/],
  ['https://10.0.0.1/cb', /private/],
  ['https://172.16.5.4/cb', /private/],
  ['https://192.168.1.10/cb', /private/],
  ['https://100.64.0.1/cb', /shared/],
  ['https://127.0.0.1/cb', /loopback/],
  ['https://localhost/cb', /loopback/],
  ['https://app.localhost/cb', /loopback/],
  ['https://0.0.0.0/cb', /unspecified/],
  ['https://224.0.0.1/cb', /multicast/],
  ['https://[::1]/cb', /loopback/],
  ['https://[::]/cb', /unspecified/],
  ['https://[fe80::1]/cb', /link-local/],
  ['https://[fd00::1]/cb', /private/],
  ['https://[ff02::1]/cb', /multicast/],
  ['https://[::ffff:127.0.0.1]/cb', /loopback/],
  ['https://[::ffff:a9fe:a9fe]/cb', /link-local/],
  ['https://[64:ff9b::a00:1]/cb', /private/],
  ['https://2130706433/cb', /loopback/], // decimal 127.0.0.1
  ['https://0177.0.0.1/cb', /loopback/], // octal
  ['https://0x7f.1/cb', /loopback/], // hex, short form
  ['https://0xa9.0xfe.0xa9.0xfe/cb', /link-local/],
  ['https://user:pw@hms.example/cb', /credentials/],
  ['ftp://hms.example/cb', /https/],
  ['not a url', /absolute URL/],
];

describe('callback URLs: refused when the submission is accepted', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await createServeApp({
      token: TOKEN,
      now: () => new Date(),
      queue: fakeQueue(),
      callbackAllow: [parseCallbackAllow('127.0.0.1:9000'), parseCallbackAllow('hms.lan'), parseCallbackAllow('[fd00::5]:8443')],
    });
  });
  afterAll(() => app.close());
  const submit = (callbackUrl: string, visitId: string) =>
    app.inject({ method: 'POST', url: `/v1/submissions?callbackUrl=${encodeURIComponent(callbackUrl)}`, headers: { authorization: `Bearer ${TOKEN}` }, payload: { ...request, visitId } });

  it.each(REFUSED.filter(([url]) => url !== 'http://127.0.0.1:9000/cb'))('400 naming /callbackUrl for %s', async (url, reason) => {
    const r = await submit(url, 'OPD-CB-REFUSED');
    expect(r.statusCode).toBe(400);
    const body = r.json() as { issues: { path: string; in: string; message: string }[] };
    expect(body.issues[0]).toMatchObject({ path: '/callbackUrl', in: 'query', code: 'invalid-parameter' });
    expect(body.issues[0]?.message).toMatch(reason);
  });

  it('accepts a public https URL, and what the operator allow-listed (http only to an allowed loopback port)', async () => {
    const accepted = ['https://hms.example/cb', 'https://93.184.216.34/cb', 'http://127.0.0.1:9000/cb', 'https://hms.lan/cb', 'https://hms.lan:8443/cb', 'https://[fd00::5]:8443/cb'];
    for (const [i, url] of accepted.entries()) expect((await submit(url, `OPD-CB-OK-${i}`)).statusCode, url).toBe(202);
    for (const url of ['http://127.0.0.1:9001/cb', 'http://hms.lan/cb', 'https://[fd00::5]/cb', 'https://10.0.0.9/cb']) {
      expect((await submit(url, 'OPD-CB-NO')).statusCode, url).toBe(400);
    }
  });

  it('reads --callback-allow values, and refuses malformed ones', () => {
    expect(parseCallbackAllow('HMS.lan:8443')).toEqual({ host: 'hms.lan', port: 8443 });
    expect(parseCallbackAllow('[::1]:9000')).toEqual({ host: '::1', port: 9000 });
    expect(parseCallbackAllow('10.1.2.3')).toEqual({ host: '10.1.2.3' });
    for (const bad of ['', 'host:0', 'host:70000', 'https://host', 'a b', '::1:80']) expect(() => parseCallbackAllow(bad), bad).toThrow(/HOST or HOST:PORT/);
  });
});

/** A resolver that answers every name with these addresses. */
const resolvesTo =
  (...addresses: string[]): LookupFn =>
  (_name, _options, callback) =>
    callback(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );

function lookupThrough(lookup: LookupFn, all: boolean): Promise<{ error?: string; addresses?: unknown }> {
  return new Promise((resolve) => {
    lookup('hooks.example', { all }, (err, address, family) => resolve(err === null ? { addresses: all ? address : [address, family] } : { error: (err as { code?: string }).code ?? '' }));
  });
}

describe('callback URLs: checked again after DNS, at delivery', () => {
  it.each(['127.0.0.1', '10.0.0.1', '172.31.255.255', '192.168.0.1', '169.254.169.254', '0.0.0.0', '100.100.100.200', '::1', 'fe80::1', 'fd12:3456::1', '::ffff:10.0.0.1', '::ffff:7f00:1', 'ff02::1'])(
    'refuses a name that resolves to %s',
    async (address) => {
      expect(forbiddenAddress(address)).toBeDefined();
      expect(await lookupThrough(guardedLookup(resolvesTo(address)), true)).toEqual({ error: 'ECALLBACKADDRESS' });
      expect(await lookupThrough(guardedLookup(resolvesTo(address)), false)).toEqual({ error: 'ECALLBACKADDRESS' });
    },
  );

  it('refuses a name when any of its addresses is refused, and hands on exactly the checked public ones', async () => {
    expect(await lookupThrough(guardedLookup(resolvesTo('93.184.216.34', '10.0.0.1')), true)).toEqual({ error: 'ECALLBACKADDRESS' });
    expect(await lookupThrough(guardedLookup(resolvesTo('93.184.216.34', '2606:2800:220:1::1')), true)).toEqual({
      addresses: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800:220:1::1', family: 6 },
      ],
    });
    expect(await lookupThrough(guardedLookup(resolvesTo('93.184.216.34')), false)).toEqual({ addresses: ['93.184.216.34', 4] });
  });

  it('does not connect when the name of an accepted https URL resolves to this machine (DNS rebinding)', async () => {
    let connections = 0;
    const receiver = createServer((_req, res) => res.end());
    receiver.on('connection', () => connections++);
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const port = (receiver.address() as AddressInfo).port;
    const url = `https://hooks.example:${port}/cb`;
    expect(checkCallbackUrl(url, [])).toMatchObject({ ok: true, allowListed: false });
    const outcome = await deliverCallback(url, submission, { secret: SECRET, lookup: resolvesTo('127.0.0.1') }, Date.now());
    expect(outcome).toEqual({ error: 'ECALLBACKADDRESS' });
    // A literal address is refused before any connection, too; so is a URL the allow-list no longer covers.
    expect(await deliverCallback(`https://127.0.0.1:${port}/cb`, submission, { secret: SECRET }, Date.now())).toMatchObject({ refused: expect.stringMatching(/loopback/) });
    expect(await deliverCallback(`http://127.0.0.1:${port}/cb`, submission, { secret: SECRET }, Date.now())).toMatchObject({ refused: expect.stringMatching(/https/) });
    await new Promise((r) => receiver.close(r));
    expect(connections).toBe(0);
  });
});

const submission: Submission = {
  id: '0b9e6a40-8d7e-4f7c-9f5e-6f7d1c1e2a3b',
  status: 'acknowledged',
  attempts: 1,
  createdAt: '2026-11-24T04:30:00.000Z',
  updatedAt: '2026-11-24T04:30:02.000Z',
  visitId: 'OPD-2026-0042',
  hipId: 'IN2910000123',
  careContextReferences: ['OPD-2026-0042-Prescription'],
  hiTypes: ['Prescription'],
};

/** A delivery as the receiver got it. */
interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** The code block of docs/serve.md that follows `<!-- callback-verify:LANG -->`. */
function documented(lang: 'node' | 'python' | 'php'): string {
  const doc = readFileSync(new URL('../docs/serve.md', import.meta.url), 'utf8');
  const m = new RegExp(`<!-- callback-verify:${lang} -->\\n\`\`\`\\w+\\n([\\s\\S]*?)\\n\`\`\``).exec(doc);
  if (m?.[1] === undefined) throw new Error(`docs/serve.md has no callback-verify:${lang} block`);
  return m[1];
}

/**
 * Programs around each documented function: read deliveries as JSON lines on
 * stdin (headers with lower-case names, body as text), verify each in turn
 * with the same memory of delivery ids, print one verdict a line.
 */
const HARNESS = {
  node: (code: string) =>
    `${code}\nimport { readFileSync } from 'node:fs';\nfor (const line of readFileSync(0, 'utf8').trim().split('\\n')) { const d = JSON.parse(line); console.log(verifyAbhaLinkCallback(d.secret, d.headers, Buffer.from(d.body))); }\n`,
  python: (code: string) => `${code}\n\nimport json, sys\nfor line in sys.stdin:\n    d = json.loads(line)\n    print(verify_abha_link_callback(d["secret"], d["headers"], d["body"].encode()))\n`,
  php: (code: string) =>
    `<?php\n${code}\n$seen = [];\nforeach (explode("\\n", trim(stream_get_contents(STDIN))) as $line) { $d = json_decode($line, true); echo verify_abha_link_callback($d['secret'], $d['headers'], $d['body'], $seen), "\\n"; }\n`,
} as const;

const RUN = { node: [process.execPath], python: ['python3'], php: ['php'] } as const;
const FILE = { node: 'verify.mjs', python: 'verify.py', php: 'verify.php' } as const;

function runDocumented(lang: keyof typeof HARNESS, deliveries: readonly Received[], secret = SECRET): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'abha-link-verify-'));
  try {
    const file = join(dir, FILE[lang]);
    writeFileSync(file, HARNESS[lang](documented(lang)));
    const input = deliveries.map((d) => JSON.stringify({ secret, headers: d.headers, body: d.body })).join('\n');
    const [cmd, ...args] = RUN[lang];
    return execFileSync(cmd, [...args, file], { input, encoding: 'utf8' })
      .trim()
      .split('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Whether a command runs here; in CI (CI=true) every language must be there. */
function available(cmd: string): boolean {
  const ok = spawnSync(cmd, ['--version'], { encoding: 'utf8' }).status === 0;
  if (!ok && process.env.CI === 'true') throw new Error(`${cmd} is not installed, and CI=true needs it to test the documented verification code (.ci/run installs php-cli and python3)`);
  return ok;
}

describe('a delivery is signed over its timestamp and id, and the documented verification code checks it', () => {
  let receiver: Server;
  let port = 0;
  const received: Received[] = [];
  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (d: string) => (body += d));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    port = (receiver.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((r) => receiver.close(r)));

  /** Delivers the submission now, or signed `ageSeconds` ago (a recorded delivery replayed later), and returns what arrived. */
  async function deliver(ageSeconds = 0): Promise<Received> {
    const options = { secret: SECRET, allow: [{ host: '127.0.0.1', port }] };
    expect(await deliverCallback(`http://127.0.0.1:${port}/hook`, submission, options, Date.now() - ageSeconds * 1000)).toEqual({ status: 204 });
    const last = received.at(-1);
    if (last === undefined) throw new Error('nothing was delivered');
    return last;
  }

  /** new, then duplicate for the same delivery, invalid for an old one, a tampered body and another secret. */
  async function scenario(lang: keyof typeof HARNESS): Promise<void> {
    const fresh = await deliver();
    expect(JSON.parse(fresh.body)).toEqual(submission);
    expect(fresh.headers['x-abha-link-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(fresh.headers['x-abha-link-delivery']).toMatch(/^[0-9a-f]{32}$/);
    const old = await deliver(6 * 60);
    expect(old.headers['x-abha-link-delivery']).toBe(fresh.headers['x-abha-link-delivery']);
    const tampered = { ...fresh, body: fresh.body.replace('acknowledged', 'failed') };
    expect(runDocumented(lang, [fresh, fresh, old, tampered])).toEqual(['new', 'duplicate', 'invalid', 'invalid']);
    expect(runDocumented(lang, [fresh], 'another-secret-0123456789')).toEqual(['invalid']);
  }

  it('Node', () => scenario('node'));

  it.skipIf(!available('python3'))('Python (skipped outside CI when python3 is not installed)', () => scenario('python'));

  it.skipIf(!available('php'))('PHP (skipped outside CI when php-cli is not installed)', () => scenario('php'));
});
