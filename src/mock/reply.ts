/** What the mock answers: a status, a body (JSON, or a string sent as HTML) and headers. */
import type { EnvelopeKind } from '../spec/definition.js';

export interface Reply {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A success in the standard envelope. */
export const ok = (message: string, data: unknown): Reply => ({ status: 200, body: { success: true, message, data } });

/** A failure in the standard envelope. */
export const fail = (status: number, message: string, data: unknown = null): Reply => ({ status, body: { success: false, message, data } });

/** A failure in the endpoint's envelope: `status: false` on the token endpoint, `success: false` elsewhere. */
export const failIn = (envelope: EnvelopeKind, status: number, message: string, data: unknown = null): Reply =>
  envelope === 'token' ? { status, body: { status: false, message, data } } : fail(status, message, data);
