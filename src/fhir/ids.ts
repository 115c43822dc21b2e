import { hash } from 'node:crypto';
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

/** The message being hashed (namespace, then name), reused: no buffer is made per id. */
let buffer = new Uint8Array(256);
/** The part of `buffer` after the namespace, where the name goes. */
let nameBytes = buffer.subarray(16);

/**
 * The name-based UUID, version 5 (RFC 9562 §5.5): SHA-1 of the namespace's 16
 * bytes followed by the name's UTF-8 bytes, its first 16 bytes with the
 * version and variant bits set, as lowercase text. SHA-1 is node:crypto's
 * (its one-shot `hash`, which costs less per call than a `Hash` object).
 */
function uuidV5(namespace: Uint8Array, name: string): string {
  // At most 3 bytes of UTF-8 per UTF-16 unit.
  const room = 16 + name.length * 3;
  if (room > buffer.length) {
    buffer = new Uint8Array(room * 2);
    nameBytes = buffer.subarray(16);
  }
  buffer.set(namespace);
  const { written } = encoder.encodeInto(name, nameBytes);
  const digest = hash('sha1', buffer.subarray(0, 16 + written), 'buffer');
  let s = '';
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) s += '-';
    s += HEX[i === 6 ? (digest[6]! & 0x0f) | 0x50 : i === 8 ? (digest[8]! & 0x3f) | 0x80 : digest[i]!];
  }
  return s;
}

const HEX: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
