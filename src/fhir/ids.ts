import { FHIR_ID_NAMESPACE } from './constants.js';

// The names as UTF-8 bytes and the namespaces as 16 bytes, made once.
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
  return uuidV5(NAMESPACE_BYTES, encoder.encode(JSON.stringify([hipId, visitId, referenceNumber, hiType])));
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
  return uuidV5(lastNamespace, encoder.encode(`${kind}/${index}`));
}

let lastDocument = '';
let lastNamespace: Uint8Array = new Uint8Array(16);

/** The 16 bytes of a UUID written as text (8-4-4-4-12 hex digits). */
function uuidBytes(uuid: string): Uint8Array {
  const hex = uuid.replaceAll('-', '');
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

const HEX: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * The name-based UUID, version 5 (RFC 9562 §5.5): SHA-1 of the namespace's 16
 * bytes followed by the name, its first 16 bytes with the version and variant
 * bits set, as lowercase text.
 */
function uuidV5(namespace: Uint8Array, name: Uint8Array): string {
  const message = new Uint8Array(16 + name.length);
  message.set(namespace);
  message.set(name, 16);
  const h = sha1(message);
  const b = (i: number): number => (h[i >> 2]! >>> (24 - 8 * (i & 3))) & 0xff;
  let s = '';
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) s += '-';
    s += HEX[i === 6 ? (b(6) & 0x0f) | 0x50 : i === 8 ? (b(8) & 0x3f) | 0x80 : b(i)];
  }
  return s;
}

const W = new Int32Array(80);

/**
 * SHA-1 (FIPS 180-4 §6.1) of a message, as its five 32-bit words. Used only
 * to derive stable ids, where SHA-1 is what RFC 9562 prescribes (no security
 * rests on it); written out because node:crypto costs microseconds per call
 * in setting up, several times the hashing of a name this short.
 */
function sha1(message: Uint8Array): Int32Array {
  const length = message.length;
  // The message, a 1 bit, zeros, and its length in bits (64-bit big-endian), in 64-byte blocks.
  const blocks = ((length + 8) >> 6) + 1;
  const padded = new Uint8Array(blocks * 64);
  padded.set(message);
  padded[length] = 0x80;
  const bits = length * 8;
  const end = padded.length;
  padded[end - 5] = Math.floor(bits / 2 ** 32) & 0xff;
  padded[end - 4] = (bits >>> 24) & 0xff;
  padded[end - 3] = (bits >>> 16) & 0xff;
  padded[end - 2] = (bits >>> 8) & 0xff;
  padded[end - 1] = bits & 0xff;
  let h0 = 0x67452301;
  let h1 = 0xefcdab89 | 0;
  let h2 = 0x98badcfe | 0;
  let h3 = 0x10325476;
  let h4 = 0xc3d2e1f0 | 0;
  for (let block = 0; block < blocks; block++) {
    const o = block * 64;
    for (let t = 0; t < 16; t++) W[t] = (padded[o + 4 * t]! << 24) | (padded[o + 4 * t + 1]! << 16) | (padded[o + 4 * t + 2]! << 8) | padded[o + 4 * t + 3]!;
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
  return Int32Array.of(h0, h1, h2, h3, h4);
}
