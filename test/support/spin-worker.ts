/**
 * A worker script for the tests of src/serve/work-pool.ts: `{ spin: true }`
 * never answers (a busy loop), `{ crash: true }` throws, anything else is
 * echoed back with the thread's id.
 */
import { parentPort, threadId } from 'node:worker_threads';
import { WORKER_READY } from '../../src/serve/work-pool.js';

parentPort?.on('message', (m: { spin?: boolean; crash?: boolean }) => {
  if (m.crash === true) throw new Error('crash asked for');
  // eslint-disable-next-line no-empty -- the point is to never yield
  while (m.spin === true) {}
  parentPort?.postMessage({ echo: m, threadId });
});
parentPort?.postMessage(WORKER_READY);
