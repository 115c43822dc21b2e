/** Request bodies: strict UTF-8 JSON, or a 400 that says where it breaks without quoting it. */
import { encodingProblem, looksLikeUtf16, parseJson } from '../json.js';
import { HttpProblem, issue } from './problems.js';

/** Refuses bytes that are not UTF-8 (never U+FFFD in their place); drops a byte-order mark. */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The text of a request body, decoded as strict UTF-8; throws an HttpProblem
 * (400 `invalid-utf8`) naming the byte offset, line and column of the first
 * byte that is not UTF-8 (or saying the body is UTF-16).
 *
 * @example
 * decodeBody(Buffer.from('{"a":1}')) //=> '{"a":1}'
 */
export function decodeBody(bytes: Uint8Array): string {
  if (!looksLikeUtf16(bytes)) {
    try {
      return STRICT_UTF8.decode(bytes);
    } catch {
      // Located below.
    }
  }
  const p = encodingProblem(bytes) ?? { line: 1, column: 1, reason: 'not UTF-8' };
  throw new HttpProblem(400, [issue('', 'invalid-utf8', `the request body is not UTF-8: line ${p.line}, column ${p.column}: ${p.reason}`)]);
}

/** Parses a request body; throws an HttpProblem (400) naming where the bytes are not UTF-8, or the line and column of the first syntax error. */
export function parseJsonBody(body: Uint8Array): unknown {
  // No body at all (a retry, a POST without content): the routes that need one say so.
  if (body.length === 0) return undefined;
  const parsed = parseJson(decodeBody(body));
  if (parsed.ok) return parsed.value;
  const p = parsed.problem;
  throw new HttpProblem(400, [issue('', 'invalid-json', `the request body is not JSON: line ${p.line}, column ${p.column}: ${p.reason}`)]);
}

/** The parsed body of a request, or a 400 when there was none. */
export function requireBody(body: unknown): unknown {
  if (body === undefined) throw new HttpProblem(400, [issue('', 'empty-body', 'the request needs a JSON body')]);
  return body;
}
