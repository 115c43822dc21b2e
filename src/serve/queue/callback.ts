/**
 * Callbacks: when a submission with a `callbackUrl` reaches a final status
 * (`acknowledged`, `failed`, `unknown`), that URL gets a POST of the
 * submission as JSON (the same object as `GET /v1/submissions/{id}`), signed
 * over a timestamp and a delivery id:
 *
 *     X-Abha-Link-Timestamp: 1764300000             (Unix seconds)
 *     X-Abha-Link-Delivery: 3f0c…                   (the same for every try of one event)
 *     X-Abha-Link-Signature: v1=<hex of HMAC-SHA-256(secret, timestamp + "." + delivery + "." + body)>
 *
 * The receiver checks the signature in constant time, refuses a timestamp
 * more than 5 minutes away from its clock, and remembers delivery ids it has
 * processed (docs/serve.md has the code for Node, Python and PHP). Delivered
 * at least once: a delivery that fails is tried again on a later tick (by
 * any replica), up to `maxAttempts`. Where a callback may go:
 * callback-policy.ts; the URL is checked again at each delivery, and a name
 * is resolved and its addresses checked right before connecting.
 */
import { createHash, createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Database } from './sql.js';
import { callbackDone, claimCallbacks, toSubmission } from './store.js';
import { checkCallbackUrl, guardedLookup, type LookupFn } from './callback-policy.js';
import type { CallbackOptions, Submission } from './types.js';

/** The header of the signature. */
export const SIGNATURE_HEADER = 'X-Abha-Link-Signature';
/** The header of the delivery's time, in Unix seconds. */
export const TIMESTAMP_HEADER = 'X-Abha-Link-Timestamp';
/** The header of the delivery's id. */
export const DELIVERY_HEADER = 'X-Abha-Link-Delivery';
/** How far a receiver lets a delivery's timestamp be from its clock. */
export const CALLBACK_TOLERANCE_SECONDS = 300;

/**
 * The signature header's value of a delivery.
 *
 * @example
 * signCallback('{"id":"…"}', 'a-secret-of-16-chars', 1764300000, '3f0c…') //=> 'v1=5d41…'
 */
export function signCallback(body: string, secret: string, timestamp: number, deliveryId: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${deliveryId}.${body}`).digest('hex')}`;
}

/** The id of the delivery of one final status: the same for every try, another for the next final status (after a retry). */
export function deliveryId(submission: Submission): string {
  return createHash('sha256').update(`${submission.id}\n${submission.status}\n${submission.updatedAt}`).digest('hex').slice(0, 32);
}

type Log = (level: 'info' | 'warn' | 'error', fields: Record<string, unknown>, message: string) => void;

/** How one delivery ended: the receiver's HTTP status, or why nothing was sent. */
export type DeliveryOutcome = { readonly status: number } | { readonly refused: string } | { readonly error: string };

/**
 * Sends one delivery of a submission: checks the URL, signs with `now`, and
 * connects only to checked addresses. Never throws.
 */
export async function deliverCallback(url: string, submission: Submission, options: CallbackOptions, now: number): Promise<DeliveryOutcome> {
  const verdict = checkCallbackUrl(url, options.allow ?? []);
  if (!verdict.ok) return { refused: verdict.reason };
  const body = JSON.stringify(submission);
  const timestamp = Math.floor(now / 1000);
  const id = deliveryId(submission);
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'abha-link-callback',
    [TIMESTAMP_HEADER]: String(timestamp),
    [DELIVERY_HEADER]: id,
    [SIGNATURE_HEADER]: signCallback(body, options.secret, timestamp, id),
  };
  const lookup: LookupFn | undefined = verdict.allowListed ? options.lookup : guardedLookup(options.lookup);
  const send = verdict.url.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve) => {
    const request = send(verdict.url, { method: 'POST', headers, agent: false, timeout: options.timeoutMs ?? 5000, ...(lookup === undefined ? {} : { lookup }) }, (response) => {
      response.resume();
      resolve({ status: response.statusCode ?? 0 });
    });
    request.on('timeout', () => request.destroy(Object.assign(new Error('callback timed out'), { code: 'ETIMEDOUT' })));
    request.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.name }));
    request.end(body);
  });
}

/** Delivers the callbacks that are due (a few per tick). */
export async function deliverCallbacks(db: Database, options: CallbackOptions, ctx: { now: () => number; leaseMs: number; log: Log }): Promise<void> {
  const now = ctx.now();
  const due = await claimCallbacks(db, 16, new Date(now), new Date(now + Math.max(ctx.leaseMs, options.timeoutMs ?? 5000)));
  const maxAttempts = options.maxAttempts ?? 5;
  await Promise.all(
    due.map(async (row) => {
      const submission = toSubmission(row);
      const outcome = await deliverCallback(row.callback_url, submission, options, ctx.now());
      const ok = 'status' in outcome && outcome.status >= 200 && outcome.status < 300;
      if ('status' in outcome && !ok) ctx.log('warn', { submission: submission.id, httpStatus: outcome.status }, 'callback refused');
      if ('error' in outcome) ctx.log('warn', { submission: submission.id, error: outcome.error }, 'callback not delivered');
      // A URL the rules refuse now (the allow-list changed, the name resolves to a private address) is not tried again.
      if ('refused' in outcome) ctx.log('warn', { submission: submission.id, reason: outcome.refused }, 'callback not sent: its address is not allowed');
      const attempts = Number(row.callback_attempts);
      const gaveUp = !ok && (attempts >= maxAttempts || 'refused' in outcome);
      if (gaveUp) ctx.log('warn', { submission: submission.id, attempts }, 'callback given up');
      if (ok || gaveUp) await callbackDone(db, submission.id, submission.updatedAt);
    }),
  );
}
