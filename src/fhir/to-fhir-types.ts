/**
 * The options and results of `toFhirBundles` (to-fhir.ts): types of their
 * own, so that the assembly modules (assembly.ts, assemble.ts, printed.ts)
 * need not import to-fhir.ts, which imports them.
 */
import type { Issue } from '../errors.js';
import type { LintOptions } from '../validation/lint.js';
import type { FhirHiType, IdentifierSystems } from './constants.js';
import type { Bundle } from './r4.js';

/** The printed document of one care context, as {@link ToFhirOptions.printedDocuments} takes it. */
export interface FhirPrintedDocument {
  /** The document's bytes (a PDF from `abha-link/render`), or base64 text. */
  readonly data: Uint8Array | string;
  /** MIME type; default `application/pdf`. */
  readonly contentType?: string;
  /** The title a PHR app shows; default the record title and "(printed)", e.g. `Prescription record (printed)`. */
  readonly title?: string;
  /** When the page was printed (`attachment.creation`); default the bundle's timestamp. */
  readonly creation?: Date | string;
  /** Base64 SHA-1 of the bytes (`attachment.hash`), when the caller computed it (the CLI does). */
  readonly sha1?: string;
}

/** The bytes of a document named by a `documentUrl`, to embed in the bundle. */
export interface FhirAttachmentInput {
  /** MIME type, e.g. `application/pdf`. */
  readonly contentType: string;
  /** The document itself: bytes, or base64 text. */
  readonly data: Uint8Array | string;
  /** A title for the document, shown to the patient. */
  readonly title?: string;
}

/** Options of `toFhirBundles` (to-fhir.ts). */
export interface ToFhirOptions {
  /**
   * When the bundles were assembled: `Bundle.timestamp` and `meta.lastUpdated`
   * (a Date, or ISO text with an offset). The library never reads the clock;
   * by default the visit time is used, so the output depends on the input only.
   */
  readonly timestamp?: Date | string;
  /** Emit every care context as this hiType (overrides the input's). */
  readonly hiType?: string;
  /**
   * The documents named by `documentUrl`, keyed by the URL. NRCeS
   * DocumentReference and Binary need the bytes (`data`); a URL alone is
   * never embedded.
   */
  readonly attachments?: Readonly<Record<string, FhirAttachmentInput>>;
  /**
   * The printed page of each care context (e.g. the PDF `abha-link/render`
   * prints), keyed by its referenceNumber, carried in the bundle where the
   * record profile has a place for a document (PrescriptionRecord: a
   * Binary; OPConsultRecord: a DocumentReference in the document section;
   * HealthDocumentRecord: a DocumentReference), so that a PHR app shows
   * the page the clinic handed over. Elsewhere a warning
   * `printed-document-not-embedded`. The library never prints: the CLI's
   * `fhir --embed-pdf` renders the pages with Chromium and passes them here.
   */
  readonly printedDocuments?: Readonly<Record<string, FhirPrintedDocument>>;
  /** Identifier systems (namespaces) to write; default {@link DEFAULT_IDENTIFIER_SYSTEMS}. */
  readonly identifierSystems?: Partial<IdentifierSystems>;
  /**
   * `Bundle.identifier.system`. When given, the identifier value is the
   * care-context referenceNumber; by default the identifier is the bundle's
   * own UUID (`urn:ietf:rfc:3986` / `urn:uuid:…`).
   */
  readonly bundleIdentifierSystem?: string;
  /**
   * ICD-10 titles by code (WHO ICD-10), from a table you are licensed to
   * use. An ICD-10 `icdCode` becomes a Condition coding only when its title
   * is here: the NRCeS profile requires the coding's display, and it must
   * be the code's title, not the diagnosis as written. Otherwise the code is
   * kept in `Condition.code.text` with a warning (`icd10-title-unknown`).
   */
  readonly icd10Titles?: Readonly<Record<string, string>>;
  /** The OPConsultRecord section for diagnoses: `ChiefComplaints` (default) or `MedicalHistory`. */
  readonly opConsultDiagnosisSection?: 'ChiefComplaints' | 'MedicalHistory';
  /** Facility time zone for link requests, whose visit has a date only. Default Asia/Kolkata. */
  readonly timeZone?: string;
  /**
   * Lint the input as `buildLinkRequest` does (lint errors stop the
   * conversion, lint warnings are returned as warnings). Default: on, with
   * default lint options; `false` skips lint (the schema checks always run).
   * The "visit date in the future" rule runs only when `lint.now` is given:
   * the library never reads the clock, the CLI passes it.
   */
  readonly lint?: LintOptions | false;
}

/** One document: the bundle of one care context. */
export interface FhirDocument {
  readonly referenceNumber: string;
  readonly hiType: FhirHiType;
  /** The record profile URL of its Composition. */
  readonly profile: string;
  readonly bundle: Bundle;
}

/** What `toFhirBundles` (to-fhir.ts) returns. */
export type ToFhirResult = { readonly success: true; readonly bundles: readonly FhirDocument[]; readonly warnings: readonly Issue[] } | { readonly success: false; readonly issues: readonly Issue[] };
