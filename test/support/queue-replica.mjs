// One replica of the queue of `abha-link serve`, as a process of its own, for
// the tests that kill one with SIGKILL (test/serve-queue-replicas.test.ts).
// Opens the built queue (dist/) on QUEUE_DATA_DIR (and QUEUE_DATABASE_URL when
// set; QUEUE_DATA_KEY_FILE: the data key shared with the other replicas), sends to the mock at MOCK_URL, prints {"replicaId": …} once it
// sends (and with QUEUE_REPORT_IDLE=1 {"idle": true} once nothing is left to
// send), and closes on SIGTERM.
import { openQueue } from '../../dist/serve/queue/index.js';

const env = process.env;
const queue = await openQueue({
  dataDir: env.QUEUE_DATA_DIR,
  ...(env.QUEUE_DATABASE_URL ? { databaseUrl: env.QUEUE_DATABASE_URL } : {}),
  ...(env.QUEUE_DATA_KEY_FILE ? { dataKeyFile: env.QUEUE_DATA_KEY_FILE } : {}),
  client: { baseUrl: env.MOCK_URL, apiKey: env.MOCK_API_KEY, retry: { baseDelayMs: 1, maxDelayMs: 5 } },
  concurrency: Number(env.QUEUE_CONCURRENCY ?? 4),
  leaseMs: 60_000,
  pollMs: 20,
});
queue.start();
process.stdout.write(`${JSON.stringify({ replicaId: queue.replicaId })}\n`);
if (env.QUEUE_REPORT_IDLE === '1') {
  // Prints {"idle": true} once nothing is queued or in flight (polling the queue's state).
  const poll = async () => {
    const c = await queue.counts();
    if (c.queued + c.sending === 0) process.stdout.write(`${JSON.stringify({ idle: true })}\n`);
    else setTimeout(poll, 20);
  };
  void poll();
}
process.on('SIGTERM', () => {
  queue.close().then(() => process.exit(0));
});
