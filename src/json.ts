/**
 * JSON text and bytes: parsing with the place of the first syntax error
 * (line, column, reason; never the text), the line of a JSON Pointer, and
 * whether bytes are UTF-8 at all. Pure, below both the CLI and `serve`,
 * which read documents the same way.
 */
import { isUtf8 } from 'node:buffer';
import { createRequire } from 'node:module';
import type { ParseError } from 'jsonc-parser';
import { parsePointer } from './errors.js';

type JsoncParser = typeof import('jsonc-parser');
let jsoncParser: JsoncParser | undefined;
/** jsonc-parser is needed only to locate problems: load it on the error path, not at start-up. */
function jsonc(): JsoncParser {
  jsoncParser ??= createRequire(import.meta.url)('jsonc-parser') as JsoncParser;
  return jsoncParser;
}

/**
 * Whether bytes look like UTF-16 text: a UTF-16 byte-order mark, or a NUL
 * byte in one of the first two (JSON in UTF-8 never holds a raw NUL).
 */
export function looksLikeUtf16(bytes: Uint8Array): boolean {
  const [a, b] = bytes;
  if ((a === 0xff && b === 0xfe) || (a === 0xfe && b === 0xff)) return true;
  return bytes.length >= 2 && (a === 0) !== (b === 0);
}

/** The offset of the first byte that is not part of valid UTF-8 (bytes that are not valid UTF-8). */
function firstInvalidUtf8Byte(bytes: Uint8Array): number {
  // Lossy decoding and encoding again gives back the same bytes up to the first invalid sequence.
  const again = Buffer.from(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'), 'utf8');
  let i = 0;
  while (i < bytes.length && bytes[i] === again[i]) i++;
  return i;
}

/** Where bytes stop being UTF-8: line and column (in characters, 1-based) and the byte offset. */
export function locateInvalidUtf8(bytes: Uint8Array): { line: number; column: number; offset: number } {
  const offset = firstInvalidUtf8Byte(bytes);
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (bytes[i] === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  const before = Buffer.from(bytes.buffer, bytes.byteOffset + lineStart, offset - lineStart).toString('utf8');
  let column = 1;
  for (const _ of before) column++;
  return { line, column, offset };
}

/**
 * Why bytes cannot be read as UTF-8 JSON, as a syntax problem (line, column,
 * reason): UTF-16 text, or bytes that are not UTF-8 (with where). Undefined
 * when they are fine. Fast when they are (one pass of node's isUtf8).
 */
export function encodingProblem(bytes: Uint8Array): JsonSyntaxProblem | undefined {
  if (looksLikeUtf16(bytes)) return { line: 1, column: 1, reason: 'UTF-16 text; save it as UTF-8', encoding: true };
  if (isUtf8(bytes)) return undefined;
  const at = locateInvalidUtf8(bytes);
  return { line: at.line, column: at.column, reason: `invalid UTF-8 (byte ${at.offset}); save it as UTF-8`, encoding: true };
}

/** Line (1-based) and column (1-based) of a character offset. */
export function lineColumnOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lastBreak = -1;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lastBreak = i;
    }
  }
  return { line, column: end - lastBreak };
}

const REASONS: Record<string, string> = {
  InvalidSymbol: 'unexpected character',
  InvalidNumberFormat: 'malformed number',
  PropertyNameExpected: 'expected a property name in double quotes',
  ValueExpected: 'expected a value',
  ColonExpected: 'expected a colon after the property name',
  CommaExpected: 'expected a comma',
  CloseBraceExpected: 'expected } to close the object',
  CloseBracketExpected: 'expected ] to close the array',
  EndOfFileExpected: 'unexpected content after the JSON value',
  InvalidCommentToken: 'comments are not allowed in JSON',
  UnexpectedEndOfComment: 'comments are not allowed in JSON',
  UnexpectedEndOfString: 'unterminated string',
  UnexpectedEndOfNumber: 'malformed number',
  InvalidUnicode: 'invalid \\u escape',
  InvalidEscapeCharacter: 'invalid escape character',
  InvalidCharacter: 'invalid character in string (control characters must be escaped)',
};

/** Where and why JSON text does not parse. Never quotes the text. */
export interface JsonSyntaxProblem {
  line: number;
  column: number;
  reason: string;
  /** True when the bytes are not UTF-8 text at all (UTF-16, invalid bytes), rather than broken JSON. */
  encoding?: true;
}

/** Locates the first syntax error of text that JSON.parse rejected. */
export function locateSyntaxError(text: string, parseError: unknown): JsonSyntaxProblem {
  if (text.trim() === '') return { line: 1, column: 1, reason: 'the input is empty' };
  const errors: ParseError[] = [];
  try {
    jsonc().parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  } catch {
    // jsonc-parser recurses: nesting deep enough to overflow the stack lands here.
    return { ...lineColumnOf(text, 0), reason: 'nested too deeply to read' };
  }
  const first = errors[0];
  if (first !== undefined) {
    const code = jsonc().printParseErrorCode(first.error);
    return { ...lineColumnOf(text, first.offset), reason: REASONS[code] ?? 'invalid JSON' };
  }
  // jsonc-parser accepted what JSON.parse did not (trailing commas are one case): use V8's position when it gives one.
  const m = /position (\d+)/.exec(parseError instanceof Error ? parseError.message : '');
  const trailingComma = /,\s*[}\]]/.exec(text);
  const offset = m !== null ? Number(m[1]) : trailingComma !== null ? trailingComma.index : 0;
  return { ...lineColumnOf(text, offset), reason: trailingComma !== null && m === null ? 'trailing comma' : 'invalid JSON' };
}

/** Parses JSON, or returns where it is broken. A leading byte-order mark is ignored. */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; problem: JsonSyntaxProblem } {
  const t = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return { ok: true, value: JSON.parse(t) as unknown };
  } catch (e) {
    return { ok: false, problem: locateSyntaxError(t, e) };
  }
}

type JsonNode = NonNullable<ReturnType<JsoncParser['parseTree']>>;

/** The offsets at which the lines of `text` start, in one pass. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** The 1-based line holding `offset`: a binary search of the line starts. */
function lineAt(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] ?? 0) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** True for a key that JavaScript lists before the others (an array index: 0 to 2^32-2, no leading zero). */
function isIndexKey(k: string): boolean {
  return /^(0|[1-9]\d{0,9})$/.test(k) && Number(k) < 4294967295;
}

/** The members of one object node: by key (the last of duplicates wins, as in JSON.parse) and in JavaScript key order. */
interface Members {
  readonly byKey: Map<string, JsonNode>;
  readonly order: readonly string[];
}

function membersOf(node: JsonNode): Members {
  const byKey = new Map<string, JsonNode>();
  for (const prop of node.children ?? []) {
    const [keyNode, valueNode] = prop.children ?? [];
    if (keyNode === undefined || typeof keyNode.value !== 'string') continue;
    byKey.set(keyNode.value, valueNode ?? keyNode);
  }
  // Object.keys / for-in order: integer-like keys ascending, then the others in first-seen order.
  const keys = [...byKey.keys()];
  const order = [...keys.filter(isIndexKey).sort((a, b) => Number(a) - Number(b)), ...keys.filter((k) => !isIndexKey(k))];
  return { byKey, order };
}

/**
 * A function giving the 1-based line of a JSON Pointer in `text`, or of its
 * nearest ancestor that exists (a missing required field points at its
 * parent object). A last token `#N` is an unknown key given by position (see
 * `validate`): the Nth key of its object in JavaScript order. The parse tree
 * and a table of line starts are built once, on first use; each lookup then
 * costs the depth of the pointer (members of an object are indexed the first
 * time a pointer goes through it), so locating every issue of a large file
 * stays linear.
 */
export function pointerLocator(text: string): (pointer: string) => number {
  let tree: JsonNode | undefined;
  let starts: number[] | undefined;
  let failed = false;
  const members = new Map<JsonNode, Members>();
  const membersAt = (node: JsonNode): Members => {
    let m = members.get(node);
    if (m === undefined) members.set(node, (m = membersOf(node)));
    return m;
  };
  const child = (node: JsonNode, token: string, last: boolean): JsonNode | undefined => {
    if (node.type === 'array') return /^(0|[1-9]\d*)$/.test(token) ? node.children?.[Number(token)] : undefined;
    if (node.type !== 'object') return undefined;
    const m = membersAt(node);
    const position = last ? /^#(\d+)$/.exec(token) : null;
    if (position !== null) {
      const key = m.order[Number(position[1])];
      return key === undefined ? undefined : m.byKey.get(key);
    }
    return m.byKey.get(token);
  };
  return (ptr: string): number => {
    if (failed) return 1;
    if (tree === undefined) {
      try {
        tree = jsonc().parseTree(text, [], { disallowComments: true }) ?? undefined;
      } catch {
        // Nested deeper than the parser's recursion allows: give the first line rather than fail.
        tree = undefined;
      }
      if (tree === undefined) {
        failed = true;
        return 1;
      }
      starts = lineStarts(text);
    }
    const tokens = parsePointer(ptr);
    let node: JsonNode = tree;
    for (let i = 0; i < tokens.length; i++) {
      const next = child(node, tokens[i] ?? '', i === tokens.length - 1);
      if (next === undefined) break;
      node = next;
    }
    // For a property, point at its key's line.
    const at = node.parent?.type === 'property' ? node.parent.offset : node.offset;
    return lineAt(starts ?? [0], at);
  };
}
