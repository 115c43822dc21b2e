/**
 * A worker thread of `abha-link serve` (see work-pool.ts): loads the document
 * code once, then answers each task of work-tasks.ts with one reply.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { WORKER_READY } from './work-pool.js';
import { configureWork, runWork, type WorkSettings } from './work-tasks.js';
import type { WorkMessage } from './work-messages.js';

configureWork(workerData as WorkSettings | undefined);

parentPort?.on('message', (m: WorkMessage) => parentPort?.postMessage(runWork(m)));
parentPort?.postMessage(WORKER_READY);
