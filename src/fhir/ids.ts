import { parse as parseUuid, v5 as uuidv5 } from 'uuid';
import { FHIR_ID_NAMESPACE } from './constants.js';

// The names as UTF-8 bytes and the namespaces as 16 bytes: what uuid would make of the strings, made once.
const encoder = new TextEncoder();
const NAMESPACE_BYTES = parseUuid(FHIR_ID_NAMESPACE);

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
  // JSON.stringify escapes lone surrogates, so the name is well-formed and its UTF-8 bytes are the ones uuid would make.
  return uuidv5(encoder.encode(JSON.stringify([hipId, visitId, referenceNumber, hiType])), NAMESPACE_BYTES);
}

/**
 * The id of the `index`th resource of a kind inside a document.
 *
 * @example
 * resourceUuid(documentUuid('IN1', 'V1', 'R1', 'Prescription'), 'MedicationRequest', 0)
 */
export function resourceUuid(document: string, kind: string, index: number): string {
  // Every id of a document derives from the same namespace: parse it once per document, not once per id.
  if (document !== lastDocument) {
    lastNamespace = parseUuid(document);
    lastDocument = document;
  }
  return uuidv5(encoder.encode(`${kind}/${index}`), lastNamespace);
}

let lastDocument = '';
let lastNamespace: Uint8Array = new Uint8Array(16);
