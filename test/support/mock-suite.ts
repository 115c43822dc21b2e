/**
 * A test file's shared mock service and scratch folder: one mock started
 * before the file's tests with a planted API key, its faults cleared before
 * each test, and both removed after the last.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { linkRequestKey } from '../../src/client/index.js';
import type { LinkCareContextRequest } from '../../src/index.js';
import { startMockServer, type MockServer, type MockServerOptions } from '../../src/mock/index.js';
import { root } from './cli-process.js';

export interface MockSuite {
  /** The scratch folder, removed after the file's tests. */
  readonly tmp: string;
  /** Writes `content` to `name` in the scratch folder and returns its path. */
  file(name: string, content: string): string;
}

/**
 * Registers the hooks of a file that runs against one mock: `onStart`
 * receives the mock once it listens (assign it to the file's `mock`).
 */
export function mockSuite(apiKey: string, tmpPrefix: string, onStart: (mock: MockServer) => void, options: Omit<MockServerOptions, 'apiKey'> = {}): MockSuite {
  const tmp = mkdtempSync(join(tmpdir(), tmpPrefix));
  let mock: MockServer | undefined;
  beforeAll(async () => {
    mock = await startMockServer({ ...options, apiKey });
    onStart(mock);
  });
  afterAll(async () => {
    await mock?.close();
    rmSync(tmp, { recursive: true, force: true });
  });
  beforeEach(() => mock?.faults.clear());
  return {
    tmp,
    file(name: string, content: string): string {
      const p = join(tmp, name);
      writeFileSync(p, content);
      return p;
    },
  };
}

/** The example link request of the repository. */
export const exampleRequest = JSON.parse(readFileSync(join(root, 'examples/opd-prescription.request.json'), 'utf8')) as LinkCareContextRequest;

/** Distinct valid link requests, told apart by a tag in their visit id (`OPD-<prefix>-<tag>`), and the mock's key of each. */
export function taggedItems(prefix: string): { item: (tag: string) => LinkCareContextRequest; keyOf: (tag: string) => string } {
  const item = (tag: string): LinkCareContextRequest => ({ ...exampleRequest, visitId: `OPD-${prefix}-${tag}` });
  return { item, keyOf: (tag) => linkRequestKey(item(tag)) };
}

/** NDJSON of `values`; a string stands as it is (a broken line, say). */
export const ndjson = (values: unknown[]): string => values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join('\n') + '\n';
