/**
 * An in-memory queue with the contract of src/serve/queue-contract.ts, for
 * the HTTP tests of `serve` (the real queue has its own tests). With a
 * `send` function it sends each item at once and records the outcome.
 */
import { createHash } from 'node:crypto';
import type { LinkCareContextRequest } from '../../src/generated/types.js';
import type { Queue, Submission, SubmissionStatus } from '../../src/serve/queue-contract.js';
import { ledgerRange, listFilter, visitFields } from '../../src/serve/queue/listing.js';

export interface FakeQueue extends Queue {
  readonly items: Map<string, { submission: Submission; request: LinkCareContextRequest; callbackUrl?: string }>;
  set(id: string, status: SubmissionStatus): void;
  readyValue: boolean;
}

export function fakeQueue(send?: (r: LinkCareContextRequest) => Promise<void>): FakeQueue {
  const items: FakeQueue['items'] = new Map();
  const at = '2026-11-24T10:00:00.000Z';
  const update = (id: string, patch: Partial<Submission>): void => {
    const item = items.get(id);
    if (item !== undefined) item.submission = { ...item.submission, ...patch };
  };
  const deliver = async (id: string, request: LinkCareContextRequest): Promise<void> => {
    if (send === undefined) return;
    const attempts = (items.get(id)?.submission.attempts ?? 0) + 1;
    update(id, { status: 'sending', attempts });
    await send(request).then(
      () => update(id, { status: 'acknowledged' }),
      (e: unknown) => update(id, { status: 'failed', error: { code: 'error', message: (e as Error).name } }),
    );
  };
  const queue: FakeQueue = {
    items,
    readyValue: true,
    set: (id, status) => update(id, { status }),
    async enqueue(request, options) {
      const id = createHash('sha256').update(JSON.stringify(request)).digest('hex').slice(0, 32);
      const known = items.get(id);
      if (known !== undefined) return { submission: known.submission, created: false };
      const { visitId, hipId, careContextReferences, hiTypes } = visitFields(request);
      const submission: Submission = { id, status: 'queued', attempts: 0, createdAt: at, updatedAt: at, visitId, hipId, careContextReferences, hiTypes: [...new Set(hiTypes)] };
      items.set(id, { submission, request, ...(options.callbackUrl === undefined ? {} : { callbackUrl: options.callbackUrl }) });
      await deliver(id, request);
      return { submission, created: true };
    },
    get: async (id) => items.get(id)?.submission,
    // Filters by status and visitId only; the real queue's listing and ledger have their own tests. The options are checked as the real queue checks them.
    async list(options) {
      const { status, visitId, limit } = listFilter(options);
      const submissions = [...items.values()].map((i) => i.submission).filter((s) => (status === undefined || s.status === status) && (visitId === undefined || s.visitId === visitId));
      return { submissions: submissions.slice(0, limit) };
    },
    async ledger(options) {
      ledgerRange(options);
      return { days: [], total: 0, submissions: 0 };
    },
    async retry(id) {
      const item = items.get(id);
      if (item === undefined) return 'not-found';
      if (item.submission.status !== 'failed' && item.submission.status !== 'unknown') return 'not-retryable';
      update(id, { status: 'queued' });
      await deliver(id, item.request);
      return items.get(id)?.submission ?? 'not-found';
    },
    async replace(id, request) {
      const item = items.get(id);
      if (item === undefined) return 'not-found';
      item.request = request;
      update(id, { status: 'queued' });
      await deliver(id, request);
      return items.get(id)?.submission ?? 'not-found';
    },
    async counts() {
      const c = { queued: 0, sending: 0, acknowledged: 0, 'already-linked': 0, failed: 0, unknown: 0 };
      for (const i of items.values()) c[i.submission.status]++;
      return c;
    },
    ready: async () => queue.readyValue,
    start: () => undefined,
    close: async () => undefined,
  };
  return queue;
}
