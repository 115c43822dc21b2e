#!/usr/bin/env node
// The HTTP attacks of issue 20 on `abha-link serve`, measured against the local mock:
//   node scripts/serve-attacks.mjs [ROOT [ATTACK...]]   (ROOT: a built abha-link tree, default this one;
//   ATTACK: some of tokenBypass invalidUtf8 chromium lockOut browsers, default all)
// 1. token bypass: every operation of GET /openapi.json under encoded, doubled-slash, dot-segment, case and
//    trailing-slash spellings, without the token: the answers that were 2xx, and the links queued through /%761/;
// 2. browsers: a cross-origin text/plain POST (no token configured, loopback) and a DNS-rebinding Host;
// 3. lock-out: 70 connections that send a POST's headers and 1 byte of body, then nothing: the seconds of
//    the next 20 in which /healthz, and an authorised POST /v1/validate, were not answered 200;
// 4. a body with invalid UTF-8: its status (200 means it was taken with U+FFFD);
// 5. the Chromium child of a PDF request: how many of the secrets of serve's environment it holds.
// Servers listen on 127.0.0.1 only.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(process.argv[2] ?? '.');
const cli = join(root, 'dist/cli/main.js');
const { startMockServer } = await import(pathToFileURL(join(root, 'dist/mock/index.js')).href);
const TOKEN = 'attack-measure-token-0123456789abcdef';
const SECRETS = { ABHA_LINK_SERVE_TOKEN: TOKEN, ABHA_LINK_CALLBACK_SECRET: 'callback-secret-measure-42' };
const request = JSON.parse(readFileSync(join(root, 'examples/opd-prescription.request.json'), 'utf8'));
const input = readFileSync(join(root, 'examples/opd-prescription.input.json'), 'utf8');
const mock = await startMockServer();
const tmp = mkdtempSync(join(tmpdir(), 'abha-link-serve-attacks-'));

async function serve(env, args = []) {
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data', mkdtempSync(join(tmp, 'd-')), ...args], {
    env: Object.fromEntries(Object.entries({ ...process.env, ABHA_LINK_BASE_URL: mock.url, ABHA_LINK_API_KEY: mock.apiKey, ...env }).filter(([, v]) => v !== undefined)),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const end = Date.now() + 300_000;
  while (!out.includes('\n')) {
    if (Date.now() > end || child.exitCode !== null) throw new Error(`serve did not start: ${err.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const url = out.split('\n')[0].replace('listening on ', '');
  return { url, child, stop: () => new Promise((r) => (child.exitCode !== null ? r() : (child.on('close', r), child.kill('SIGTERM')))) };
}

const linksAtMock = () => mock.stats().requests['link-carecontext'] ?? 0;

/** Every spelling of a path that a router could take for it. */
function variants(path) {
  const rest = path.slice('/v1'.length);
  return [`/%761${rest}`, `/%76%31${rest}`, `/v%31${rest}`, `/V1${rest}`, `//v1${rest}`, `/v1/../v1${rest}`, `/./v1${rest}`, `${path}/`, `/v1%2F${rest.slice(1)}`, `/v1/.${rest}`];
}

async function tokenBypass(s) {
  const doc = await (await fetch(`${s.url}/openapi.json`)).json();
  let tried = 0;
  let admitted = 0;
  const before = linksAtMock();
  for (const [path, ops] of Object.entries(doc.paths)) {
    if (!path.startsWith('/v1')) continue;
    for (const method of Object.keys(ops)) {
      for (const v of variants(path.replace('{id}', 'x'))) {
        const body = method === 'post' ? JSON.stringify(path === '/v1/service/api/m1/abha/search/abha' ? { mobile: '9000000001' } : request) : undefined;
        const r = await fetch(`${s.url}${v}`, { method: method.toUpperCase(), headers: { 'content-type': 'application/json' }, body });
        tried++;
        if (r.status >= 200 && r.status < 300) admitted++;
        await r.arrayBuffer();
      }
    }
  }
  await fetch(`${s.url}/%761/submissions`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ ...request, visitId: 'ATK-BYPASS' }) });
  const end = Date.now() + 10_000;
  while (linksAtMock() === before && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  return { tried, admitted, linked: linksAtMock() - before };
}

async function browsers() {
  const s = await serve({ ...SECRETS, ABHA_LINK_SERVE_TOKEN: undefined });
  const crossOrigin = await fetch(`${s.url}/v1/submissions`, {
    method: 'POST',
    headers: { origin: 'https://attacker.example', 'content-type': 'text/plain;charset=UTF-8' },
    body: JSON.stringify({ ...request, visitId: 'ATK-CORS' }),
  });
  // fetch sends its own Host header whatever it is given: the rebinding page's request goes out through node:http.
  const { hostname, port } = new URL(s.url);
  const rebinding = await new Promise((done, fail) =>
    httpRequest({ host: hostname, port, path: '/v1/submissions', headers: { host: `attacker.example:${port}` } }, (res) => {
      res.resume();
      done({ status: res.statusCode });
    })
      .on('error', fail)
      .end(),
  );
  await s.stop();
  return { crossOriginPost: crossOrigin.status, rebindingRead: rebinding.status };
}

async function lockOut(s) {
  const { hostname, port } = new URL(s.url);
  const sockets = Array.from({ length: 70 }, () => {
    const socket = connect(Number(port), hostname);
    socket.on('error', () => undefined);
    socket.write(`POST /v1/validate HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`);
    return socket;
  });
  await Promise.all(sockets.map((socket) => new Promise((r) => (socket.readyState === 'open' ? r() : socket.once('connect', r)))));
  const start = Date.now();
  let probes = 0;
  let healthRefused = 0;
  let authorisedRefused = 0;
  while (Date.now() - start < 20_000) {
    const h = await fetch(`${s.url}/healthz`).catch(() => ({ status: 0 }));
    const a = await fetch(`${s.url}/v1/validate`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: '{}' }).catch(() => ({ status: 0 }));
    probes++;
    if (h.status !== 200) healthRefused++;
    if (a.status !== 200) authorisedRefused++;
    await new Promise((r) => setTimeout(r, 200));
  }
  for (const socket of sockets) socket.destroy();
  const seconds = (n) => Math.round((n / probes) * 200) / 10;
  return { healthzRefusedSecondsOf20: seconds(healthRefused), authorisedRefusedSecondsOf20: seconds(authorisedRefused) };
}

async function invalidUtf8(s) {
  const bytes = Buffer.concat([Buffer.from('{"abhaAddress":"ab'), Buffer.from([0xff, 0xfe]), Buffer.from('c@sbx"}')]);
  const r = await fetch(`${s.url}/v1/validate?schema=clinical-input`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: bytes });
  return { status: r.status };
}

function descendants(pid) {
  const children = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      if (ppid === pid) children.push(Number(name), ...descendants(Number(name)));
    } catch {
      // gone
    }
  }
  return children;
}

async function chromiumEnvironment(s) {
  const r = await fetch(`${s.url}/v1/render`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: 'application/pdf' }, body: input });
  await r.arrayBuffer();
  const values = [TOKEN, mock.apiKey, SECRETS.ABHA_LINK_CALLBACK_SECRET];
  const browsers = descendants(s.child.pid);
  let holding = 0;
  for (const pid of browsers) {
    try {
      const env = readFileSync(`/proc/${pid}/environ`, 'utf8');
      if (values.some((v) => env.includes(v))) holding++;
    } catch {
      // gone
    }
  }
  return { pdfStatus: r.status, browserProcesses: browsers.length, holdingASecret: holding };
}

// One server with the token for the attacks that need it (each start of the embedded store is slow), one without.
const chosen = process.argv.slice(3);
const wanted = (name) => chosen.length === 0 || chosen.includes(name);
const withToken = Object.entries({ tokenBypass, invalidUtf8, chromium: chromiumEnvironment, lockOut }).filter(([name]) => wanted(name));
if (withToken.length > 0) {
  const main = await serve(SECRETS);
  for (const [name, attack] of withToken) console.log(JSON.stringify({ [name]: await attack(main) }));
  await main.stop();
}
if (wanted('browsers')) console.log(JSON.stringify({ browsers: await browsers() }));
await mock.close();
rmSync(tmp, { recursive: true, force: true });
