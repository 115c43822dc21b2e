/**
 * runCli, the CLI as a function (src/cli/run.ts, built): each run reads and
 * writes through the io it is given (streams, stdin, environment, clock),
 * and what one run learns (its stdout went away) stays with that run.
 */
import { Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runInProcess } from './support/run-cli.js';

// The built CLI, loaded by path so that type-checking does not depend on dist/ (its types are those of src/).
const built = new URL('../dist/cli/run.js', import.meta.url).href;
const { runCli } = (await import(built)) as typeof import('../src/cli/run.js');

/** A stdout whose reader has gone: every write fails with EPIPE, as a pipe into `head` does. */
function brokenPipe(): Writable {
  return new Writable({
    write(_chunk, _encoding, done) {
      done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    },
  });
}

function collector(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

const ioWith = (over: { stdout?: Writable; env?: Record<string, string>; now?: () => Date } = {}) => {
  const err = collector();
  const out = collector();
  return {
    io: { stdout: over.stdout ?? out.stream, stderr: err.stream, stdin: Readable.from([]), env: over.env ?? {}, now: over.now ?? (() => new Date()) },
    stdout: out.text,
    stderr: err.text,
  };
};

describe('runCli', () => {
  it('keeps the output of two runs at the same time apart', async () => {
    const [good, broken] = await Promise.all([runInProcess(['validate', 'examples/lab-order.request.json']), runInProcess(['validate', '-'], { stdin: '{"a": ' })]);
    expect(good).toEqual({ code: 0, stdout: '', stderr: 'examples/lab-order.request.json: 1 document, 1 valid, 0 invalid\n' });
    expect(broken).toEqual({ code: 2, stdout: '<stdin>:1:7 invalid JSON: expected a value\n', stderr: '<stdin>: 1 document, 0 valid, 0 invalid, 1 not JSON\n' });
  });

  it('stops a run whose stdout went away with exit 1, and the next run is not affected', async () => {
    const closed = ioWith({ stdout: brokenPipe() });
    const lines = `${JSON.stringify({ a: 1 })}\n`.repeat(5000);
    const bad = await runCli(['validate', '--ndjson', '--jobs', '1', '-'], { ...closed.io, stdin: Readable.from([Buffer.from(lines)]) });
    expect(bad).toBe(1);
    expect(closed.stderr()).toMatch(/\nabha-link: standard output was closed before the end; stopped early\n$/);
    const next = ioWith();
    expect(await runCli(['validate', 'examples/lab-order.request.json'], next.io)).toBe(0);
    expect(next.stderr()).toBe('examples/lab-order.request.json: 1 document, 1 valid, 0 invalid\n');
  });

  it('exits 0 quietly when the reader goes away after the output it wanted (abha-link openapi | head -c 50)', async () => {
    const closed = ioWith({ stdout: brokenPipe() });
    expect(await runCli(['openapi'], closed.io)).toBe(0);
    expect(closed.stderr()).toBe('');
  });

  it("reads the clock it is given: a visit date is in the future only after the run's today", async () => {
    const before = ioWith({ now: () => new Date('2020-01-01T00:00:00Z') });
    expect(await runCli(['validate', '--lint', 'examples/lab-order.request.json'], before.io)).toBe(1);
    expect(before.stdout()).toContain('(visit-date-in-future)');
    const after = ioWith({ now: () => new Date('2099-01-01T00:00:00Z') });
    expect(await runCli(['validate', '--lint', 'examples/lab-order.request.json'], after.io)).toBe(0);
  });

  it("reads the environment it is given, not the process's", async () => {
    const run = ioWith({ env: { ABHA_LINK_BASE_URL: 'nope' } });
    expect(await runCli(['submit', 'examples/lab-order.request.json'], run.io)).toBe(2);
    expect(run.stderr()).toBe('abha-link: ABHA_LINK_BASE_URL: is not a valid absolute URL (expected e.g. https://abha.example.org)\n');
  });
});
