/**
 * The examples of docs/serve.md (docs/examples/serve.sh, serve.py,
 * Example.java) run against a live server with the mock as its upstream:
 * each builds, validates, renders, makes FHIR, searches through the server
 * and follows a submission to "acknowledged". Then the programs written in
 * docs/serve.md itself (marked `<!-- example: NAME -->`): the identity flow
 * and a submission in curl, Python and PHP, and the callback signature
 * check of each language, run against signed, tampered and stale deliveries.
 *
 * The server is `abha-link serve` in its own process, with its embedded queue.
 * Each example is skipped, saying so, when its runtime (curl, python3, java,
 * php) is not installed; with CI=true a missing php fails instead (CI
 * installs php-cli and php-curl).
 */
import { spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../src/mock/server.js';
import { firstLine, spawnCollect, startCli, type Started } from './support/cli-process.js';

const TOKEN = 'examples-token-5521';
const has = (cmd: string, arg = '--version'): boolean => spawnSync(cmd, [arg], { encoding: 'utf8' }).error === undefined;
const skip = (cmd: string): string => ` [skipped: ${cmd} is not installed]`;
const hasPhp = has('php') && spawnSync('php', ['-r', 'exit(function_exists("curl_init") ? 0 : 1);']).status === 0;
/** PHP runs in CI whatever this machine has: there a missing php (or its curl extension) fails the test. */
const runPhp = hasPhp || process.env.CI === 'true';

/** The programs of docs/serve.md marked `<!-- example: NAME -->`, by name. */
function docExamples(): Map<string, string> {
  const text = readFileSync(new URL('../docs/serve.md', import.meta.url), 'utf8');
  const out = new Map<string, string>();
  for (const m of text.matchAll(/<!-- example: ([\w.-]+) -->\n```\w+\n([\s\S]*?)\n```/g)) out.set(m[1] ?? '', `${m[2] ?? ''}\n`);
  return out;
}
const EXAMPLES = docExamples();
const MOBILE = '9000000001';
const OTP = '123456';

/** Polls `url`/readyz until its storage check is `ok` (not `starting`); rejects after `ms`. */
async function untilStorageOpen(url: string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const body = (await fetch(`${url}/readyz`, { headers: { authorization: `Bearer ${TOKEN}` } })
      .then((r) => r.json())
      .catch(() => undefined)) as { checks?: { storage?: string } } | undefined;
    if (body?.checks?.storage === 'ok') return;
    if (Date.now() > until) throw new Error(`the server's store did not open within ${ms} ms (/readyz: ${JSON.stringify(body)})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the examples of docs/serve.md against a live server and the mock', () => {
  let mock: MockServer;
  let url = '';
  let serve: Started | undefined;
  const data = mkdtempSync(join(tmpdir(), 'abha-link-serve-examples-'));

  beforeAll(async () => {
    mock = await startMockServer({ otp: OTP });
    serve = startCli(['serve', '--port', '0', '--data', data], { ABHA_LINK_SERVE_TOKEN: TOKEN, ABHA_LINK_BASE_URL: mock.url, ABHA_LINK_API_KEY: mock.apiKey });
    // The embedded store's first start is slow on a loaded machine (issue 21, item 6): wait up to 2 minutes.
    url = (await firstLine(serve, 120_000)).replace('listening on ', '');
    // The server listens before its store is open (a submission meanwhile waits 20 s, then 503 with Retry-After);
    // the examples are written for a running service, so they start once /readyz says the store is open.
    await untilStorageOpen(url, 120_000);
  }, 260_000);
  afterAll(async () => {
    serve?.child.kill('SIGTERM');
    await serve?.done;
    await mock.close();
    rmSync(data, { recursive: true, force: true });
  });

  const env = (): Record<string, string> => ({ ABHA_LINK_SERVE_URL: url, ABHA_LINK_SERVE_TOKEN: TOKEN });
  const expectFlow = (r: { code: number | null; stdout: string; stderr: string }): void => {
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    for (const step of ['build: ', 'validate: valid', 'render: ', 'fhir: a', 'search: ']) expect(r.stdout).toContain(step);
    expect(r.stdout).toMatch(/submission \S+: acknowledged/);
  };

  const writeExample = (name: string): string => {
    const body = EXAMPLES.get(name);
    if (body === undefined) throw new Error(`docs/serve.md has no example ${name}`);
    const path = join(data, name);
    writeFileSync(path, body);
    return path;
  };
  const expectIdentityFlow = (r: { code: number | null; stdout: string; stderr: string }): void => {
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stderr).toContain('otp: sent');
    expect(r.stdout).toContain('verify: session token received\nprofile: fetched\n');
    expect(r.stdout).toMatch(/submission \S+: acknowledged\n$/);
    // The profile's ABHA address went into the request: the mock linked it under that address.
    expect(r.stdout).not.toContain(OTP);
  };
  const request = 'examples/opd-prescription.request.json';
  const flowEnv = (): Record<string, string> => ({ ...env(), ABHA_MOBILE: MOBILE });

  it('finds every program docs/serve.md promises', () => {
    expect([...EXAMPLES.keys()].sort()).toEqual(['flow.php', 'flow.py', 'flow.sh', 'verify.php', 'verify.py', 'verify.sh']);
  });

  it.skipIf(!has('curl'))(`runs the identity flow and a submission in curl (docs/serve.md)${has('curl') ? '' : skip('curl')}`, async () => {
    const before = mock.stats().linked;
    expectIdentityFlow(await spawnCollect('sh', [writeExample('flow.sh'), request], flowEnv(), `${OTP}\n`));
    expect(mock.stats().linked).toBe(before + 1);
  });

  it.skipIf(!has('python3'))(`runs the identity flow and a submission in Python (docs/serve.md)${has('python3') ? '' : skip('python3')}`, async () => {
    expectIdentityFlow(await spawnCollect('python3', [writeExample('flow.py'), 'examples/lab-order.request.json'], flowEnv(), `${OTP}\n`));
  });

  it.skipIf(!runPhp)(`runs the identity flow and a submission in PHP (docs/serve.md)${runPhp ? '' : skip('php-cli with php-curl')}`, async () => {
    expectIdentityFlow(await spawnCollect('php', [writeExample('flow.php'), 'examples/multi-care-context.request.json'], flowEnv(), `${OTP}\n`));
  });

  /** Signed deliveries under the callback scheme (v1: timestamp.delivery.body): the genuine one, then four that must be refused. */
  const deliveries = (): { secret: string; cases: { ts: string; delivery: string; sig: string; body: string }[] } => {
    const secret = 'callback-secret-of-the-hms-42';
    const body = '{"id":"0b6c1c2e-5d43-4f7e-9a51-3f0f0e2b7a10","status":"acknowledged","attempts":1}';
    const now = String(Math.floor(Date.now() / 1000));
    const sign = (ts: string, delivery: string, b: string): string => `v1=${createHmac('sha256', secret).update(`${ts}.${delivery}.${b}`).digest('hex')}`;
    const stale = String(Number(now) - 600);
    return {
      secret,
      cases: [
        { ts: now, delivery: 'd-1', sig: sign(now, 'd-1', body), body },
        { ts: now, delivery: 'd-1', sig: sign(now, 'd-1', body), body: body.replace('acknowledged', 'failed') },
        { ts: now, delivery: 'd-2', sig: sign(now, 'd-1', body), body },
        { ts: stale, delivery: 'd-1', sig: sign(stale, 'd-1', body), body },
        { ts: now, delivery: 'd-1', sig: 'v1=00', body },
      ],
    };
  };
  const expectVerdicts = (r: { code: number | null; stdout: string; stderr: string }): void => {
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split(/\s+/)).toEqual(['1', '0', '0', '0', '0']);
  };

  it('verifies a callback signature in Python, refusing a tampered body, another delivery, a stale timestamp', async (ctx) => {
    if (!has('python3')) ctx.skip();
    const { secret, cases } = deliveries();
    const harness = `${EXAMPLES.get('verify.py') ?? ''}\nimport json, os\nfor c in json.loads(os.environ["CASES"]):\n    print(1 if verify_callback(os.environ["SECRET"], c["ts"], c["delivery"], c["sig"], c["body"].encode()) else 0)\n`;
    writeFileSync(join(data, 'verify-harness.py'), harness);
    expectVerdicts(await spawnCollect('python3', [join(data, 'verify-harness.py')], { SECRET: secret, CASES: JSON.stringify(cases) }));
  });

  it.skipIf(!runPhp)('verifies a callback signature in PHP, refusing a tampered body, another delivery, a stale timestamp', async () => {
    const { secret, cases } = deliveries();
    const harness = `require '${writeExample('verify.php')}';\nforeach (json_decode(getenv('CASES'), true) as $c) { echo verify_callback(getenv('SECRET'), $c['ts'], $c['delivery'], $c['sig'], $c['body']) ? "1\\n" : "0\\n"; }\n`;
    writeFileSync(join(data, 'verify-harness.php'), `<?php\n${harness}`);
    expectVerdicts(await spawnCollect('php', [join(data, 'verify-harness.php')], { SECRET: secret, CASES: JSON.stringify(cases) }));
  });

  it('verifies a callback signature in the shell (openssl), refusing a tampered body, another delivery, a stale timestamp', async (ctx) => {
    if (!has('openssl', 'version')) ctx.skip();
    const { secret, cases } = deliveries();
    const lines = cases.map((c, i) => {
      writeFileSync(join(data, `body-${i}`), c.body);
      return `if verify_callback "$SECRET" '${c.ts}' '${c.delivery}' '${c.sig}' '${join(data, `body-${i}`)}'; then echo 1; else echo 0; fi`;
    });
    writeFileSync(join(data, 'verify-harness.sh'), `. '${writeExample('verify.sh')}'\n${lines.join('\n')}\n`);
    expectVerdicts(await spawnCollect('sh', [join(data, 'verify-harness.sh')], { SECRET: secret }));
  });

  it.skipIf(!has('curl'))(`runs the curl example (docs/examples/serve.sh)${has('curl') ? '' : skip('curl')}`, async () => {
    expectFlow(await spawnCollect('sh', ['docs/examples/serve.sh', 'examples/opd-prescription.input.json'], env()));
  });

  it.skipIf(!has('python3'))(`runs the Python example (docs/examples/serve.py)${has('python3') ? '' : skip('python3')}`, async () => {
    expectFlow(await spawnCollect('python3', ['docs/examples/serve.py', 'examples/lab-order.input.json'], env()));
  });

  it.skipIf(!has('java', '-version'))(
    `runs the Java example (java docs/examples/Example.java)${has('java', '-version') ? '' : skip('java')}`,
    async () => {
      expectFlow(await spawnCollect('java', ['docs/examples/Example.java', 'examples/opd-prescription.input.json'], env()));
    },
    120_000,
  );
});
