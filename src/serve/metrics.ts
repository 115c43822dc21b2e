/**
 * The service's Prometheus metrics (prom-client, one registry per server):
 * requests by route and status, their latencies, the queue's depth, the
 * submissions by status, and the embedded store's vacuums. prom-client is loaded by the first request, not
 * before the server listens; what is observed meanwhile is kept and counted
 * once it is in.
 */
import type { Counter, Histogram, Registry } from 'prom-client';
import { SUBMISSION_STATUSES, type Queue, type StoreMaintenance } from './queue-contract.js';

/** Records one answered request. `route` is the route pattern, never the URL (which could hold data). */
type Observe = (method: string, route: string, status: number, seconds: number) => void;

export interface ServeMetrics {
  readonly observe: Observe;
  /** The metrics in Prometheus' text format, and its content type. */
  exposition(): Promise<{ readonly contentType: string; readonly text: string }>;
}

/** Observations kept while prom-client loads, at most (a burst at start-up; beyond it they are not counted). */
const MAX_PENDING = 10_000;

/** The metrics of one server, prom-client loaded on the first observation or scrape. */
export function createMetrics(queue: Queue | undefined): ServeMetrics {
  let loaded: Promise<{ registry: Registry; observe: Observe }> | undefined;
  let observeNow: Observe | undefined;
  const pending: Parameters<Observe>[] = [];
  const load = (): Promise<{ registry: Registry; observe: Observe }> =>
    (loaded ??= import('prom-client').then((client) => {
      const made = promMetrics(client, queue);
      for (const o of pending.splice(0)) made.observe(...o);
      observeNow = made.observe;
      return made;
    }));
  return {
    observe(...o) {
      if (observeNow !== undefined) return observeNow(...o);
      if (pending.length < MAX_PENDING) pending.push(o);
      void load();
    },
    async exposition() {
      const { registry } = await load();
      return { contentType: registry.contentType, text: await registry.metrics() };
    },
  };
}

/**
 * The embedded store's vacuums and its table's dead rows and size (PGlite
 * has no autovacuum: the queue vacuums it, see queue/vacuum.ts). One read
 * of the statistics per scrape, shared by the four; nothing while the store
 * opens, or with PostgreSQL (no maintenance to report).
 */
function maintenanceMetrics(client: typeof import('prom-client'), registry: Registry, queue: Queue): void {
  let reading: Promise<StoreMaintenance | undefined> | undefined;
  const read = (): Promise<StoreMaintenance | undefined> =>
    queue.starting?.() === true || queue.maintenance === undefined ? Promise.resolve(undefined) : (reading ??= queue.maintenance().finally(() => (reading = undefined)));
  const gauge = (name: string, help: string, value: (m: StoreMaintenance) => number | undefined): void =>
    void new client.Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const m = await read();
        const v = m === undefined ? undefined : value(m);
        if (v !== undefined) this.set(v);
      },
    });
  gauge('abha_link_queue_dead_rows', "Dead row versions in the embedded store's submissions table (counted since the store opened)", (m) => m.activity.deadRows);
  gauge('abha_link_queue_table_bytes', "The embedded store's submissions table on disk, with its indexes, in bytes", (m) => m.activity.bytes);
  gauge('abha_link_queue_vacuums', 'Vacuums of the embedded store since it opened', (m) => m.vacuums);
  gauge('abha_link_queue_last_vacuum_seconds', "How long the embedded store's last vacuum took (0 before the first)", (m) => (m.lastVacuum === undefined ? undefined : m.lastVacuum.ms / 1000));
}

/** The registry and its recorder, made with prom-client once it is loaded. */
function promMetrics(client: typeof import('prom-client'), queue: Queue | undefined): { registry: Registry; observe: Observe } {
  const { Counter, Gauge, Histogram, Registry } = client;
  const registry = new Registry();
  const requests = new Counter({
    name: 'abha_link_http_requests_total',
    help: 'HTTP requests answered, by method, route and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'abha_link_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method and route',
    labelNames: ['method', 'route'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  if (queue !== undefined) {
    new Gauge({
      name: 'abha_link_queue_depth',
      help: 'Submissions waiting to be sent (status queued)',
      registers: [registry],
      async collect() {
        if (queue.starting?.() !== true) this.set((await queue.counts()).queued);
      },
    });
    new Gauge({
      name: 'abha_link_submissions',
      help: 'Submissions by status (acknowledged, already-linked, failed and unknown are outcomes)',
      labelNames: ['status'],
      registers: [registry],
      async collect() {
        // While the store opens there is nothing to count yet: a scrape is not held up.
        if (queue.starting?.() === true) return;
        const counts = await queue.counts();
        for (const s of SUBMISSION_STATUSES) this.set({ status: s }, counts[s]);
      },
    });
    maintenanceMetrics(client, registry, queue);
  }
  // The labelled children, made once per route and status (labelling costs more than counting).
  const counters = new Map<string, Counter.Internal>();
  const timers = new Map<string, Histogram.Internal<'method' | 'route'>>();
  return {
    registry,
    observe: (method, route, status, seconds) => {
      const key = `${method} ${route}`;
      const countKey = `${key} ${status}`;
      let counter = counters.get(countKey);
      if (counter === undefined) counters.set(countKey, (counter = requests.labels({ method, route, status: String(status) })));
      let timer = timers.get(key);
      if (timer === undefined) timers.set(key, (timer = latency.labels({ method, route })));
      counter.inc();
      timer.observe(seconds);
    },
  };
}
