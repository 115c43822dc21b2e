/**
 * Callbacks: when a submission with a `callbackUrl` reaches a final status
 * (`acknowledged`, `failed`, `unknown`), that URL gets a POST of the
 * submission as JSON (the same object as `GET /v1/submissions/{id}`),
 * signed: `X-Abha-Link-Signature: sha256=<hex of HMAC-SHA-256(secret, body)>`.
 * Delivered at least once: a delivery that fails is tried again on a later
 * tick (by any replica), up to `maxAttempts`; the receiver deduplicates by
 * `id` and `updatedAt`.
 */
import { createHmac } from 'node:crypto';
import type { Database } from './sql.js';
import { callbackDone, claimCallbacks, toSubmission } from './store.js';
import type { CallbackOptions } from './types.js';

/** The header of the signature. */
export const SIGNATURE_HEADER = 'X-Abha-Link-Signature';

/**
 * The signature header's value of a body.
 *
 * @example
 * signCallback('{"id":"…"}', 'a-secret-of-16-chars') //=> 'sha256=5d41…'
 */
export function signCallback(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

type Log = (level: 'info' | 'warn' | 'error', fields: Record<string, unknown>, message: string) => void;

/** Delivers the callbacks that are due (a few per tick). */
export async function deliverCallbacks(db: Database, options: CallbackOptions, ctx: { now: () => number; leaseMs: number; log: Log }): Promise<void> {
  const now = ctx.now();
  const due = await claimCallbacks(db, 16, new Date(now), new Date(now + Math.max(ctx.leaseMs, options.timeoutMs ?? 5000)));
  const fetchFn = options.fetch ?? ((input: string, init: RequestInit) => globalThis.fetch(input, init));
  const maxAttempts = options.maxAttempts ?? 5;
  await Promise.all(
    due.map(async (row) => {
      const submission = toSubmission(row);
      const body = JSON.stringify(submission);
      let ok = false;
      try {
        const res = await fetchFn(row.callback_url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signCallback(body, options.secret) },
          body,
          redirect: 'manual',
          signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
        });
        await res.body?.cancel().catch(() => undefined);
        ok = res.status >= 200 && res.status < 300;
        if (!ok) ctx.log('warn', { submission: submission.id, httpStatus: res.status }, 'callback refused');
      } catch (e) {
        ctx.log('warn', { submission: submission.id, error: (e as { name?: unknown }).name }, 'callback not delivered');
      }
      const attempts = Number(row.callback_attempts);
      if (!ok && attempts >= maxAttempts) ctx.log('warn', { submission: submission.id, attempts }, 'callback given up');
      if (ok || attempts >= maxAttempts) await callbackDone(db, submission.id, submission.updatedAt);
    }),
  );
}
