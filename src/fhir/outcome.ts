/**
 * Validation issues as a FHIR `OperationOutcome`, the answer other FHIR tools
 * expect from `$validate` (issue 23 item 5): each issue's severity, an
 * IssueType code, its location as a FHIRPath `expression`, and our own code
 * and message in `details`. Pure.
 */
import type { Issue } from '../errors.js';
import { ownValue } from './own.js';
import type { OperationOutcome, OperationOutcomeIssue } from './r4.js';

/** The code system of abha-link's issue codes in `OperationOutcome.issue.details.coding`. */
export const ISSUE_CODE_SYSTEM = 'https://github.com/abha-link/abha-link/blob/main/docs/fhir.md#issue-codes';

/** FHIR's IssueType codes (http://hl7.org/fhir/issue-type, a required binding) used here. */
type IssueType = OperationOutcomeIssue['code'];

/** Our issue codes → FHIR IssueType; a code not listed is `invalid`, FHIR's "content invalid against the specification or a profile". */
const ISSUE_TYPES: Readonly<Record<string, IssueType>> = {
  required: 'required',
  'slice-cardinality': 'required',
  cardinality: 'structure',
  'unknown-element': 'structure',
  'unknown-field': 'structure',
  'closed-slice': 'structure',
  'slice-order': 'structure',
  type: 'value',
  'fixed-value': 'value',
  pattern: 'value',
  'not-allowed': 'value',
  'control-characters': 'value',
  'invalid-full-url': 'value',
  'relative-full-url': 'value',
  'id-mismatch': 'value',
  binding: 'code-invalid',
  invariant: 'invariant',
  'unresolved-reference': 'not-found',
  'unknown-profile': 'not-supported',
  unevaluated: 'not-supported',
  'too-deep': 'too-costly',
  'too-many-issues': 'too-costly',
  truncated: 'too-costly',
};

/** The severity of an issue in FHIR's words (error, warning, information). */
function severityOf(issue: Issue): OperationOutcomeIssue['severity'] {
  const s: string = issue.severity;
  return s === 'error' ? 'error' : s === 'warning' ? 'warning' : 'information';
}

/**
 * The OperationOutcome of a validation: one issue per issue found, or, when
 * there is none, the one `information` issue FHIR requires (OperationOutcome
 * has at least one issue) saying the resource is valid.
 *
 * @example
 * toOperationOutcome(validateFhirBundle(bundle).issues)
 * //=> { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'required',
 * //     expression: ['Bundle.entry[0].resource.title'], details: { coding: [{ system: ISSUE_CODE_SYSTEM,
 * //     code: 'required' }], text: 'title is required …' } }] }
 */
export function toOperationOutcome(issues: readonly Issue[]): OperationOutcome {
  if (issues.length === 0) {
    return {
      resourceType: 'OperationOutcome',
      issue: [{ severity: 'information', code: 'informational', details: { text: 'no issues: the resource is valid against base R4 and the NRCeS profiles it declares' } }],
    };
  }
  return {
    resourceType: 'OperationOutcome',
    issue: issues.map((i) => ({
      severity: severityOf(i),
      code: ownValue(ISSUE_TYPES, i.code) ?? 'invalid',
      ...(i.path !== '' ? { expression: [i.path] } : {}),
      details: { coding: [{ system: ISSUE_CODE_SYSTEM, code: i.code }], text: i.message },
    })),
  };
}
