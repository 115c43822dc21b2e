/**
 * Loads work-documents.ts (validate, build, and the validator and builder
 * code they need) on the first request that needs it, so that `serve` starts
 * listening without it. A module of its own: work-documents.ts imports
 * work-messages.ts, which must not import it back.
 */
let documents: Promise<typeof import('./work-documents.js')> | undefined;

/** work-documents.ts, loaded once, by the first call. */
export function loadWorkDocuments(): Promise<typeof import('./work-documents.js')> {
  return (documents ??= import('./work-documents.js'));
}
