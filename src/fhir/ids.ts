import { FHIR_ID_NAMESPACE } from './constants.js';

// The namespace as 16 bytes, made once; names are written as UTF-8 into the hash's own buffer.
const encoder = new TextEncoder();
const NAMESPACE_BYTES = uuidBytes(FHIR_ID_NAMESPACE);

/**
 * The name-based (v5) UUID of one care-context document, from the hip id,
 * visit id, care-context reference number and hiType: the same care
 * context always gets the same bundle id, and every resource id in the
 * bundle derives from it. No patient data (ABHA address, name) enters the
 * name, so ids cannot be matched back to a person.
 *
 * @example
 * documentUuid('IN2910000123', 'OPD-2026-0042', 'OPD-2026-0042-Prescription', 'Prescription')
 * //=> a fixed UUID such as '3f0c…' (always the same for these four values)
 */
export function documentUuid(hipId: string, visitId: string, referenceNumber: string, hiType: string): string {
  // JSON.stringify escapes lone surrogates, so the name is well-formed UTF-8.
  return uuidV5(NAMESPACE_BYTES, JSON.stringify([hipId, visitId, referenceNumber, hiType]));
}

/**
 * The id of the `index`th resource of a kind inside a document.
 *
 * @example
 * resourceUuid(documentUuid('IN1', 'V1', 'R1', 'Prescription'), 'MedicationRequest', 0)
 */
export function resourceUuid(document: string, kind: string, index: number): string {
  // Every id of a document derives from the same namespace: read it once per document, not once per id.
  if (document !== lastDocument) {
    lastNamespace = uuidBytes(document);
    lastDocument = document;
  }
  return uuidV5(lastNamespace, `${kind}/${index}`);
}

let lastDocument = '';
let lastNamespace: Uint8Array = new Uint8Array(16);

/** The 16 bytes of a UUID written as text (8-4-4-4-12 hex digits). */
function uuidBytes(uuid: string): Uint8Array {
  const out = new Uint8Array(16);
  let n = 0;
  for (let i = 0; i < uuid.length && n < 32; i++) {
    const c = uuid.charCodeAt(i);
    if (c === 45) continue; // '-'
    // '0'-'9' → 0-9, 'a'-'f' and 'A'-'F' → 10-15.
    const digit = c <= 57 ? c - 48 : (c | 32) - 87;
    out[n >> 1] = (out[n >> 1]! << 4) | digit;
    n++;
  }
  return out;
}

/** The message being hashed (namespace, then name, then SHA-1 padding), reused: no buffer is made per id. */
let buffer = new Uint8Array(256);
/** The 80 words of SHA-1's message schedule, reused. */
const schedule = new Int32Array(80);
/** The five words of a digest, reused. */
const digest = new Int32Array(5);
/** The 36 character codes of a UUID as text, reused. */
const chars: number[] = Array.from({ length: 36 }, () => 45);
/** '0'-'9', 'a'-'f' as character codes. */
const HEX_CODES: readonly number[] = Array.from('0123456789abcdef', (c) => c.charCodeAt(0));

/**
 * The name-based UUID, version 5 (RFC 9562 §5.5): SHA-1 of the namespace's 16
 * bytes followed by the name's UTF-8 bytes, its first 16 bytes with the
 * version and variant bits set, as lowercase text (one flat string).
 *
 * SHA-1 is computed here rather than by node:crypto: a call into node:crypto
 * costs about 2 µs for the one or two blocks an id hashes, a quarter of a
 * bundle's build; the ids are checked against the `uuid` package's (SHA-1
 * of node:crypto) in test/fhir.test.ts, for every name length around the
 * block boundaries and for random names, non-ASCII ones included. SHA-1
 * serves here as the RFC's derivation of a stable id, not as a protection.
 */
function uuidV5(namespace: Uint8Array, name: string): string {
  // At most 3 bytes of UTF-8 per UTF-16 unit, and up to 72 bytes of padding.
  const room = 16 + name.length * 3 + 72;
  if (room > buffer.length) buffer = new Uint8Array(room * 2);
  buffer.set(namespace);
  const length = 16 + writeUtf8(name, buffer, 16);
  sha1(buffer, length);
  return uuidText();
}

/** Writes `name` as UTF-8 at `at` in `out`; the number of bytes written. ASCII byte by byte, anything else by TextEncoder. */
function writeUtf8(name: string, out: Uint8Array, at: number): number {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c >= 0x80) return encoder.encodeInto(name, out.subarray(at)).written;
    out[at + i] = c;
  }
  return name.length;
}

/**
 * SHA-1 (FIPS 180-4 §6.1) of the first `length` bytes of `message` into
 * `digest`. Pads `message` in place after them: it must have room for up
 * to 72 more bytes.
 */
function sha1(message: Uint8Array, length: number): void {
  const blocks = ((length + 8) >>> 6) + 1;
  const end = blocks * 64;
  message[length] = 0x80;
  message.fill(0, length + 1, end - 4);
  // The length in bits, big-endian, in the last 8 bytes (the upper 4 stay 0: names are short).
  const bits = length * 8;
  message[end - 4] = bits >>> 24;
  message[end - 3] = (bits >>> 16) & 0xff;
  message[end - 2] = (bits >>> 8) & 0xff;
  message[end - 1] = bits & 0xff;
  let h0 = 0x67452301;
  let h1 = 0xefcdab89 | 0;
  let h2 = 0x98badcfe | 0;
  let h3 = 0x10325476;
  let h4 = 0xc3d2e1f0 | 0;
  const w = schedule;
  for (let offset = 0; offset < end; offset += 64) {
    for (let t = 0; t < 16; t++) {
      const j = offset + t * 4;
      w[t] = (message[j]! << 24) | (message[j + 1]! << 16) | (message[j + 2]! << 8) | message[j + 3]!;
    }
    for (let t = 16; t < 80; t++) {
      const x = w[t - 3]! ^ w[t - 8]! ^ w[t - 14]! ^ w[t - 16]!;
      w[t] = (x << 1) | (x >>> 31);
    }
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    // The four rounds of twenty steps (f and K of §4.1.1, §4.2.1).
    for (let t = 0; t < 20; t++) {
      const next = (((a << 5) | (a >>> 27)) + ((b & c) | (~b & d)) + 0x5a827999 + e + w[t]!) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = next;
    }
    for (let t = 20; t < 40; t++) {
      const next = (((a << 5) | (a >>> 27)) + (b ^ c ^ d) + 0x6ed9eba1 + e + w[t]!) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = next;
    }
    for (let t = 40; t < 60; t++) {
      const next = (((a << 5) | (a >>> 27)) + ((b & c) | (b & d) | (c & d)) + 0x8f1bbcdc + e + w[t]!) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = next;
    }
    for (let t = 60; t < 80; t++) {
      const next = (((a << 5) | (a >>> 27)) + (b ^ c ^ d) + 0xca62c1d6 + e + w[t]!) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = next;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
  }
  digest[0] = h0;
  digest[1] = h1;
  digest[2] = h2;
  digest[3] = h3;
  digest[4] = h4;
}

/** The first 16 bytes of `digest` as a UUID's text, with the version (5) and variant (RFC) bits set. */
function uuidText(): string {
  let at = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) at++; // the '-' already there
    let byte = (digest[i >>> 2]! >>> (24 - (i & 3) * 8)) & 0xff;
    if (i === 6) byte = (byte & 0x0f) | 0x50;
    else if (i === 8) byte = (byte & 0x3f) | 0x80;
    chars[at++] = HEX_CODES[byte >>> 4]!;
    chars[at++] = HEX_CODES[byte & 0x0f]!;
  }
  return String.fromCharCode.apply(null, chars);
}
