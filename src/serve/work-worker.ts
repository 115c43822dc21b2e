/**
 * A worker thread of `abha-link serve` (see work-pool.ts): loads the document
 * code once, then answers each task of work-tasks.ts with one reply.
 */
import { parentPort } from 'node:worker_threads';
import { WORKER_READY } from './work-pool.js';
import { runWork, type WorkMessage } from './work-tasks.js';

parentPort?.on('message', (m: WorkMessage) => parentPort?.postMessage(runWork(m)));
parentPort?.postMessage(WORKER_READY);
