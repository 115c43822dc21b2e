/** Request bodies: JSON whatever the Content-Type, or a 400 that says where it breaks without quoting it. */
import { parseJson } from '../cli/io.js';
import { HttpProblem, issue } from './problems.js';

/** Parses a request body; throws an HttpProblem (400) naming the line and column of the first syntax error. */
export function parseJsonBody(text: string): unknown {
  // No body at all (a retry, a POST without content): the routes that need one say so.
  if (text === '') return undefined;
  const parsed = parseJson(text);
  if (parsed.ok) return parsed.value;
  const p = parsed.problem;
  throw new HttpProblem(400, [issue('', 'invalid-json', `the request body is not JSON: line ${p.line}, column ${p.column}: ${p.reason}`)]);
}

/** The parsed body of a request, or a 400 when there was none. */
export function requireBody(body: unknown): unknown {
  if (body === undefined) throw new HttpProblem(400, [issue('', 'empty-body', 'the request needs a JSON body')]);
  return body;
}
