/**
 * The examples of docs/serve.md (docs/examples/serve.sh, serve.py,
 * Example.java) run against a live server with the mock as its upstream:
 * each builds, validates, renders, makes FHIR, searches through the server
 * and follows a submission to "acknowledged".
 *
 * The server is `abha-link serve` in its own process, with its embedded queue.
 * Each example is skipped, saying so, when its runtime (curl, python3, java)
 * is not installed.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../src/mock/server.js';
import { firstLine, spawnCollect, startCli, type Started } from './support/cli-process.js';

const TOKEN = 'examples-token-5521';
const has = (cmd: string, arg = '--version'): boolean => spawnSync(cmd, [arg], { encoding: 'utf8' }).error === undefined;
const skip = (cmd: string): string => ` [skipped: ${cmd} is not installed]`;

describe('the examples of docs/serve.md against a live server and the mock', () => {
  let mock: MockServer;
  let url = '';
  let serve: Started | undefined;
  const data = mkdtempSync(join(tmpdir(), 'abha-link-serve-examples-'));

  beforeAll(async () => {
    mock = await startMockServer();
    serve = startCli(['serve', '--port', '0', '--data', data], { ABHA_LINK_SERVE_TOKEN: TOKEN, ABHA_LINK_BASE_URL: mock.url, ABHA_LINK_API_KEY: mock.apiKey });
    url = (await firstLine(serve)).replace('listening on ', '');
  });
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
