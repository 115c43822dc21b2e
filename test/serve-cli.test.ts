/**
 * The command line of `abha-link serve`: its fixed contract in a real
 * process (first line, --port 0, SIGTERM ends it in order with the request in
 * flight answered), and its option errors in-process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../src/mock/server.js';
import { firstLine, startCli, until } from './support/cli-process.js';
import { runInProcess } from './support/run-cli.js';

const TOKEN = 'cli-serve-token-41';

describe('abha-link serve in a real process', () => {
  let mock: MockServer;
  const data = mkdtempSync(join(tmpdir(), 'abha-link-serve-cli-'));
  beforeAll(async () => {
    mock = await startMockServer();
  });
  afterAll(async () => {
    await mock.close();
    rmSync(data, { recursive: true, force: true });
    rmSync(`${data}.key`, { force: true });
  });

  it('prints "listening on http://HOST:PORT" first with --port 0, and on SIGTERM answers the request in flight, then exits 0', async () => {
    const serve = startCli(['serve', '--port', '0', '--data', data], {
      ABHA_LINK_SERVE_TOKEN: TOKEN,
      ABHA_LINK_BASE_URL: mock.url,
      ABHA_LINK_API_KEY: mock.apiKey,
    });
    const first = await firstLine(serve);
    expect(first, serve.err()).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
    const url = first.slice('listening on '.length);
    expect(Number(new URL(url).port)).toBeGreaterThan(0);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    expect((await fetch(`${url}/v1/validate`, { method: 'POST', headers: auth, body: '{}' })).status).toBe(200);

    // A search the mock holds: SIGTERM arrives while it is in flight.
    mock.faults.add({ endpoint: 'search-abha', times: 1, fault: { type: 'latency', ms: 1500 } });
    const inFlight = fetch(`${url}/v1/service/api/m1/abha/search/abha`, { method: 'POST', headers: auth, body: JSON.stringify({ mobile: '9000000001' }) });
    await until(() => (mock.stats().requests['search-abha'] ?? 0) >= 1);
    serve.child.kill('SIGTERM');
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    const run = await serve.done;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('abha-link serve: stopped');
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});

describe('abha-link serve options', () => {
  it('refuses to listen beyond loopback without a token (exit 2), naming the way to give one', async () => {
    const r = await runInProcess(['serve', '--host', '0.0.0.0', '--port', '0'], { env: { ABHA_LINK_SERVE_TOKEN: undefined, ABHA_LINK_BASE_URL: undefined } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('ABHA_LINK_SERVE_TOKEN');
    expect(r.stdout).toBe('');
  });

  it('refuses a bad port, a FILE argument, an API key without a base URL, and a base URL without an API key', async () => {
    const env = { ABHA_LINK_SERVE_TOKEN: TOKEN, ABHA_LINK_BASE_URL: undefined, ABHA_LINK_API_KEY: undefined };
    expect((await runInProcess(['serve', '--port', '70000'], { env })).stderr).toContain('--port must be a number from 0 to 65535');
    expect((await runInProcess(['serve', 'x.json'], { env })).code).toBe(2);
    expect((await runInProcess(['serve', '--api-key-file', 'package.json'], { env })).stderr).toContain('needs ABHA_LINK_BASE_URL');
    const noKey = await runInProcess(['serve', '--port', '0'], { env: { ...env, ABHA_LINK_BASE_URL: 'http://127.0.0.1:9' } });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('no API key');
  });

  it('refuses an --embedded-durability that is not full or relaxed (exit 2)', async () => {
    const env = { ABHA_LINK_SERVE_TOKEN: TOKEN, ABHA_LINK_BASE_URL: undefined };
    const r = await runInProcess(['serve', '--port', '0', '--embedded-durability', 'off'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--embedded-durability must be full or relaxed');
  });
});
