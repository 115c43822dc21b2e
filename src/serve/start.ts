/**
 * Starting and stopping the service: the app, the queue (src/serve/queue/,
 * when present), the PDF printer, listening, and an orderly stop (no new
 * connections, the requests in flight answered, the queue's sends drained).
 *
 * The server listens before the queue's database is open: the data
 * directory is locked and the data key read first (so that a second server
 * on the directory, or a bad key, is refused before anything listens), then
 * the database opens behind the listening server (starting-queue.ts).
 * Chromium starts on the first PDF request, never here.
 */
import { mkdir } from 'node:fs/promises';
import type { AbhaClient, ClientOptions } from '../client/client.js';
import type { PdfPrinter } from '../render/pdf.js';
import { createServeApp, type ServeTimeouts } from './app.js';
import type { Queue } from './queue-contract.js';
import { serveDataKeys } from './queue/data-key.js';
import { reserveQueue } from './queue/queue.js';
import { StartingQueue } from './starting-queue.js';
import { QueueError } from './queue/types.js';
import type { CallbackAllow } from './queue/callback-policy.js';
import type { EmbeddedDurability } from './queue/durable.js';

/** What {@link startServe} needs; the CLI reads these from options, files and the environment. */
export interface StartOptions {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly token: string | undefined;
  readonly client: AbhaClient | undefined;
  /** The options the client was made with: the queue's worker makes its own client from them. */
  readonly clientOptions?: ClientOptions | undefined;
  /** ABHA_LINK_CALLBACK_SECRET: the HMAC-SHA-256 key that signs submission callbacks; without it a callbackUrl is refused. */
  readonly callbackSecret?: string | undefined;
  /** --callback-allow: hosts a callback may go to whatever their address (http: loopback host and port only). */
  readonly callbackAllow?: readonly CallbackAllow[];
  /** --work-time-limit: milliseconds of work one document request may take (default 20,000). */
  readonly workTimeLimitMs?: number | undefined;
  /** ABHA_LINK_DATABASE_URL: the queue in PostgreSQL instead of the data folder. */
  readonly databaseUrl: string | undefined;
  /** --embedded-durability: `relaxed` answers 202 before the embedded store's write is on disk (default `full`). */
  readonly embeddedDurability?: EmbeddedDurability | undefined;
  /** ABHA_LINK_SERVE_DATA_KEY: the keys of the stored requests (base64, newest first). */
  readonly dataKey?: string | undefined;
  /** --data-key-file: the key file (default DIR.key beside the data directory, made when missing). */
  readonly dataKeyFile?: string | undefined;
  readonly chromium: string | undefined;
  /** --icd10-titles: the hospital's ICD-10 title table, for the codings of /v1/fhir. */
  readonly icd10Titles?: Readonly<Record<string, string>> | undefined;
  /** Host names the server answers to beside its address and loopback names (--allowed-host). */
  readonly allowedHosts?: readonly string[];
  /** The connection time limits; default DEFAULT_TIMEOUTS of app.ts. */
  readonly timeouts?: Partial<ServeTimeouts>;
  readonly now: () => Date;
  readonly logStream: { write(line: string): unknown };
  /** A warning for the operator (stderr), without data. */
  readonly warn: (message: string) => void;
}

export interface RunningServe {
  readonly url: string;
  /** Rejects when the queue's database, opening behind the listening server, cannot be opened (the server should stop then); never resolves. */
  readonly failed: Promise<never>;
  /** Stops accepting, answers the requests in flight, drains the queue's sends. */
  close(): Promise<void>;
}

/**
 * The queue, when an upstream is configured: the data directory locked and
 * the key read now, the database opening in the background.
 *
 * @throws QueueError `data-dir-in-use`, `data-dir-unsafe`, `invalid-data-key`, `invalid-options`
 */
async function reserveQueueIfAny(options: StartOptions): Promise<{ queue: Queue; opened: Promise<unknown>; listening: (yes: boolean) => void } | undefined> {
  if (options.client === undefined || options.clientOptions === undefined) {
    options.warn('no upstream service (ABHA_LINK_BASE_URL): /v1/submissions and /v1/service answer 503');
    return undefined;
  }
  const dataKeys = await serveDataKeys({ env: options.dataKey, file: options.dataKeyFile, dataDir: options.dataDir, warn: options.warn });
  const reserved = await reserveQueue({
    dataDir: options.dataDir,
    dataKeys,
    client: options.clientOptions,
    now: () => options.now().getTime(),
    ...(options.databaseUrl === undefined ? {} : { databaseUrl: options.databaseUrl }),
    ...(options.embeddedDurability === undefined ? {} : { embeddedDurability: options.embeddedDurability }),
    ...(options.callbackSecret === undefined ? {} : { callback: { secret: options.callbackSecret, allow: options.callbackAllow ?? [] } }),
  });
  // Opened once the server listens (the database's start does not compete with the server's own); released when it cannot.
  let listening: (yes: boolean) => void = () => undefined;
  const opening = new Promise<boolean>((resolve) => (listening = resolve)).then(async (yes) => {
    if (yes) return reserved.open();
    await reserved.release();
    throw new QueueError('closed', 'the server did not start');
  });
  const queue = new StartingQueue(opening);
  queue.start();
  return { queue, opened: opening, listening };
}

/** A HEAD request to the service's base URL: any HTTP answer means it is reachable. */
function upstreamProbe(client: AbhaClient | undefined): (() => Promise<boolean>) | undefined {
  if (client === undefined) return undefined;
  return () =>
    fetch(client.baseUrl, { method: 'HEAD', signal: AbortSignal.timeout(1500) }).then(
      async (r) => {
        await r.body?.cancel();
        return true;
      },
      () => false,
    );
}

/** One Chromium, started on the first PDF request and kept for the next ones. */
function printerOpener(chromium: string | undefined): { open: () => Promise<PdfPrinter>; close: () => Promise<void> } {
  let printer: Promise<PdfPrinter> | undefined;
  return {
    open: () => {
      const p = (printer ??= import('../render/pdf.js').then((m) => m.createPdfPrinter(chromium === undefined ? {} : { executablePath: chromium })));
      // A failed start is not kept: Chromium may be installed later.
      p.catch(() => {
        if (printer === p) printer = undefined;
      });
      return p;
    },
    close: async () => {
      const p = printer;
      printer = undefined;
      if (p !== undefined) await p.then((x) => x.close()).catch(() => undefined);
    },
  };
}

/**
 * Log lines written in batches: every line logged in one turn of the event
 * loop goes out in one write (at most 64 KiB waits), instead of one write
 * (a system call on a file or pipe) per request.
 */
function batchedLines(out: { write(text: string): unknown }): { stream: { write(line: string): void }; flush: () => void } {
  let pending = '';
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    if (pending === '') return;
    const text = pending;
    pending = '';
    out.write(text);
  };
  return {
    stream: {
      write(line) {
        pending += line;
        if (pending.length >= 64 * 1024) flush();
        else if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      },
    },
    flush,
  };
}

/** Starts the service; resolves once it listens. */
export async function startServe(options: StartOptions): Promise<RunningServe> {
  await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
  const reserved = await reserveQueueIfAny(options);
  const queue = reserved?.queue;
  const printer = printerOpener(options.chromium);
  const probe = upstreamProbe(options.client);
  const logs = batchedLines(options.logStream);
  let app: Awaited<ReturnType<typeof createServeApp>>;
  try {
    app = await createServeApp({
      now: options.now,
      logStream: logs.stream,
      openPrinter: printer.open,
      listenHost: options.host,
      ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts }),
      ...(options.timeouts === undefined ? {} : { timeouts: options.timeouts }),
      callbackAllow: options.callbackAllow ?? [],
      ...(options.workTimeLimitMs === undefined ? {} : { work: { timeLimitMs: options.workTimeLimitMs } }),
      ...(options.token === undefined ? {} : { token: options.token }),
      ...(options.client === undefined ? {} : { client: options.client }),
      ...(queue === undefined ? {} : { queue }),
      ...(probe === undefined ? {} : { probeUpstream: probe }),
      ...(options.icd10Titles === undefined ? {} : { icd10Titles: options.icd10Titles }),
    });
    await app.listen({ host: options.host, port: options.port });
  } catch (e) {
    reserved?.listening(false);
    await queue?.close();
    logs.flush();
    throw e;
  }
  // The database opens on the next turn of the event loop, once the caller has announced the server (the CLI's
  // "listening on" line): its first steps (the files made private, PGlite loaded) hold the thread for a while.
  if (reserved !== undefined) setImmediate(() => reserved.listening(true));
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const failed = (reserved?.opened ?? new Promise<never>(() => undefined)).then(() => new Promise<never>(() => undefined));
  return {
    url: `http://${host}:${port}`,
    failed,
    close: async () => {
      await app.close();
      await queue?.close();
      await printer.close();
      logs.flush();
    },
  };
}
