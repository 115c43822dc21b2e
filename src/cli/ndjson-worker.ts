/**
 * A worker thread of `validate --ndjson --jobs N` (see ndjson-workers.ts):
 * gets batches of whole lines as bytes, answers with the output text and
 * counts. Each line goes through the same function as on the main thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ndjsonLineOutput, prepareChecks } from './validate-document.js';
import { ndjsonLine } from './io.js';
import { forEachLine, type NdjsonBatch, type NdjsonBatchResult, type NdjsonWorkerSetup } from './ndjson-workers.js';

const { args, name } = workerData as NdjsonWorkerSetup;
// Batches that arrive meanwhile wait in the port until the listener below is added.
await prepareChecks(args);

parentPort?.on('message', (batch: NdjsonBatch) => {
  let text = '';
  let docs = 0;
  let invalid = 0;
  let broken = 0;
  forEachLine(batch.bytes, batch.firstLine, (line, start, end) => {
    const o = ndjsonLineOutput(ndjsonLine(batch.bytes.subarray(start, end), line), batch.firstIndex + docs, args, name);
    docs++;
    if (o.result.syntax !== undefined) broken++;
    else if (!o.result.valid) invalid++;
    text += o.text;
  });
  const result: NdjsonBatchResult = { text, docs, invalid, broken };
  parentPort?.postMessage(result);
});
