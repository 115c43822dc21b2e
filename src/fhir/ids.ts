import { FHIR_ID_NAMESPACE } from './constants.js';

// The namespaces as 16 bytes, made once; names are written as UTF-8 into the hash's own buffer.
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

/** The message being hashed (namespace and name, then the padding), reused: most names fit in one or two blocks. */
let buffer = new Uint8Array(256);
/** The part of `buffer` after the namespace, where the name goes. */
let nameBytes = buffer.subarray(16);
/** The five words of the last hash. */
const H = new Int32Array(5);
const W = new Int32Array(80);

/**
 * The name-based UUID, version 5 (RFC 9562 §5.5): SHA-1 of the namespace's 16
 * bytes followed by the name's UTF-8 bytes, its first 16 bytes with the
 * version and variant bits set, as lowercase text.
 */
function uuidV5(namespace: Uint8Array, name: string): string {
  // At most 3 bytes of UTF-8 per UTF-16 unit, and 9 more of padding and length.
  const room = 16 + name.length * 3 + 9;
  if (room > buffer.length) {
    buffer = new Uint8Array(room * 2);
    nameBytes = buffer.subarray(16);
  }
  buffer.set(namespace);
  const { written } = encoder.encodeInto(name, nameBytes);
  sha1(buffer, 16 + written);
  const b = (i: number): number => (H[i >> 2]! >>> (24 - 8 * (i & 3))) & 0xff;
  let s = '';
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) s += '-';
    s += HEX[i === 6 ? (b(6) & 0x0f) | 0x50 : i === 8 ? (b(8) & 0x3f) | 0x80 : b(i)];
  }
  return s;
}

const HEX: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * SHA-1 (FIPS 180-4 §6.1) of the first `length` bytes of `data`, into `H`;
 * pads `data` in place (it must have room for the padding). Used only to
 * derive stable ids, where SHA-1 is what RFC 9562 prescribes (no security
 * rests on it); written out because node:crypto costs microseconds per call
 * in setting up, several times the hashing of a name this short.
 */
function sha1(data: Uint8Array, length: number): void {
  // The message, a 1 bit, zeros, and its length in bits (64-bit big-endian), in 64-byte blocks.
  const blocks = ((length + 8) >> 6) + 1;
  const end = blocks * 64;
  data.fill(0, length, end);
  data[length] = 0x80;
  const bits = length * 8;
  data[end - 5] = Math.floor(bits / 2 ** 32) & 0xff;
  data[end - 4] = (bits >>> 24) & 0xff;
  data[end - 3] = (bits >>> 16) & 0xff;
  data[end - 2] = (bits >>> 8) & 0xff;
  data[end - 1] = bits & 0xff;
  let h0 = 0x67452301;
  let h1 = 0xefcdab89 | 0;
  let h2 = 0x98badcfe | 0;
  let h3 = 0x10325476;
  let h4 = 0xc3d2e1f0 | 0;
  for (let o = 0; o < end; o += 64) {
    for (let t = 0; t < 16; t++) W[t] = (data[o + 4 * t]! << 24) | (data[o + 4 * t + 1]! << 16) | (data[o + 4 * t + 2]! << 8) | data[o + 4 * t + 3]!;
    for (let t = 16; t < 80; t++) {
      const x = W[t - 3]! ^ W[t - 8]! ^ W[t - 14]! ^ W[t - 16]!;
      W[t] = (x << 1) | (x >>> 31);
    }
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    for (let t = 0; t < 80; t++) {
      // Four rounds of 20 steps, each with its own function and constant.
      const f = t < 20 ? (b & c) | (~b & d) : t < 40 ? b ^ c ^ d : t < 60 ? (b & c) | (b & d) | (c & d) : b ^ c ^ d;
      const k = t < 20 ? 0x5a827999 : t < 40 ? 0x6ed9eba1 : t < 60 ? 0x8f1bbcdc | 0 : 0xca62c1d6 | 0;
      const temp = (((a << 5) | (a >>> 27)) + f + e + k + W[t]!) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = temp;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
  }
  H[0] = h0;
  H[1] = h1;
  H[2] = h2;
  H[3] = h3;
  H[4] = h4;
}
