/** The page sizes of printed documents, in a module of their own (the server's route schemas name them without loading the renderer). */

/**
 * Page sizes of the printed documents.
 *
 * @example
 * PAGE_SIZES //=> ['A4', 'A5']
 */
export const PAGE_SIZES = ['A4', 'A5'] as const;

/**
 * A page size: A4 (210 × 297 mm) or A5 (148 × 210 mm).
 *
 * @example
 * const size: PageSize = 'A5'
 */
export type PageSize = (typeof PAGE_SIZES)[number];
