/**
 * What can be rendered: a clinical input (built into a link request first,
 * exactly as `buildLinkRequest` does), a link request (the spec's 4.12
 * body), or one care context. The core resolver (`resolve.ts`, shared with
 * the FHIR layer) validates and lints it; the result is one
 * {@link DocumentSource} per care context.
 */
import type { Issue } from '../errors.js';
import type { InputKind } from '../input-kind.js';
import type { CareContext, ClinicalInput, LinkCareContextRequest } from '../generated/types.js';
import { resolveCareContexts, type VisitContext } from '../resolve.js';
import type { LintOptions } from '../validation/lint.js';
import type { DocumentSource } from './model.js';

/**
 * The kinds of input the render functions accept.
 *
 * @example
 * const kind: RenderInputKind = detectInputKind(value) ?? 'clinical-input'
 */
export type RenderInputKind = InputKind;

/**
 * Anything the render functions accept: a clinical input, a link request or a care context.
 *
 * @example
 * const input: RenderInput = buildLinkRequest(clinicalInput)
 */
export type RenderInput = ClinicalInput | LinkCareContextRequest | CareContext;

/**
 * Details a link request or a care context cannot carry but a printed page
 * shows. Used only for those two kinds of input; a clinical input carries
 * its own. (`visitId` and `visitDate` apply to a care context only: a link
 * request has its own.)
 *
 * @example
 * renderDocuments(request, { context: { patient: { name: 'Asha Verma', gender: 'F', age: 48 }, followUp: 'Review after 2 weeks' } })
 */
export type RenderContext = VisitContext;

/**
 * The result of reading an input: one source per care context, or every issue.
 *
 * @example
 * const r: ResolvedInput = resolveInput(value)
 * if (r.success) console.log(r.kind, r.sources.length)
 */
export type ResolvedInput =
  | { readonly success: true; readonly kind: RenderInputKind; readonly sources: readonly DocumentSource[]; readonly warnings: readonly Issue[] }
  | { readonly success: false; readonly issues: readonly Issue[] };

/** Where a care context's content is in the input: `''` or `/careContexts/1` of a clinical input, the bundleData of a link request or care context. */
function contentPath(kind: RenderInputKind, many: boolean, i: number): string {
  if (kind === 'clinical-input') return many ? `/careContexts/${i}` : '';
  return kind === 'link-request' ? `/careContexts/${i}/bundleData` : '/bundleData';
}

/**
 * Validates an input with the core validators and lint rules and returns one
 * {@link DocumentSource} per care context, or every issue (paths into the
 * input). Never throws for any input.
 *
 * @example
 * resolveInput(JSON.parse(text), { lint: { now: new Date() } })
 * //=> { success: true, kind: 'clinical-input', sources: [{ careContext, patient, visitId, visitDate, followUp }], warnings: [] }
 */
export function resolveInput(input: unknown, options: { readonly lint?: LintOptions | false; readonly context?: RenderContext } = {}): ResolvedInput {
  const r = resolveCareContexts(input, options);
  if (!r.success) return r;
  const { patient, visitId, visitDate, followUp, hospitalAddress, hospitalGstin } = r.visit;
  const many = r.contents !== undefined && (input as ClinicalInput).careContexts !== undefined;
  const sources = r.careContexts.map((careContext, i): DocumentSource => ({
    careContext,
    patient,
    visitId,
    visitDate,
    followUp,
    hospitalAddress,
    hospitalGstin,
    ...(r.details[i] === undefined ? {} : { details: r.details[i] }),
    content: r.contents?.[i],
    contentPath: contentPath(r.kind, many, i),
  }));
  return { success: true, kind: r.kind, warnings: r.warnings, sources };
}
