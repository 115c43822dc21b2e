/**
 * What the transport, and the retry decision before it, need to know about an
 * endpoint (a type of its own, so that retry-decision.ts need not import the
 * transport that imports it).
 */
/** What the transport needs to know about an endpoint. */
export interface EndpointInfo {
  /** The endpoint id of the spec definition, e.g. `link-carecontext`; `<id>-response` is its response schema. */
  readonly id: string;
  readonly path: string;
  readonly auth: 'none' | 'bearer';
  /** True when repeating the call changes nothing the first call did not (the token, reads). */
  readonly idempotent: boolean;
  /** `token` for the token endpoint's `status` envelope, `standard` for `success`. */
  readonly envelope: 'standard' | 'token';
  /**
   * True when the spec shows a `data` payload for the endpoint: a `success: true`
   * answer without one (or with `null`) is then off the spec. False for the link
   * call (its response shape is not shown).
   */
  readonly dataRequired: boolean;
}
