/**
 * What `abha-link submit` prints, as pure functions of the batch's results
 * and counts: the line(s) of each item (text or JSON), the lines of input
 * that are not link requests, the progress and the summary. No I/O here.
 */
import type { Issue } from '../errors.js';
import { type ItemResult, type SkipReason, type SubmitSummary, type TransportError } from '../client/index.js';
import { plural } from '../util.js';

/** How the item lines are printed. */
export interface ItemFormat {
  readonly format: 'text' | 'json';
  /** Show the service's (redacted) message of failures: it may contain health data. */
  readonly showServiceMessages: boolean;
}

/** Where an item is in the input. */
export interface ItemPlace {
  /** The input's name and the item's line, `orders.ndjson:3` (the input's name alone for one JSON document). */
  readonly at: string;
  /** The item's line in an NDJSON input. */
  readonly line: number | undefined;
  /** The line of a JSON Pointer in a one-document input, for its issues. */
  readonly locate?: ((path: string) => number) | undefined;
}

/** What an input that is a clinical input (not a link request) is told. */
export const CLINICAL_INPUT = 'this is a clinical input: run `abha-link build` first';

/** Why a line of the input (or the input) is not an item: it is never sent. */
export type NotAnItem = { readonly kind: 'too-long' } | { readonly kind: 'invalid-json'; readonly column: number; readonly reason: string } | { readonly kind: 'clinical-input' };

/**
 * The line of input that is not a link request: `line` is its line in an
 * NDJSON input (undefined: the one document of `name`).
 *
 * @example
 * notAnItemLine({ kind: 'too-long' }, 'a.ndjson', 3, 'text') //=> 'a.ndjson:3 invalid, not sent: the line is longer than 64 MiB\n'
 */
export function notAnItemLine(what: NotAnItem, name: string, line: number | undefined, format: 'text' | 'json'): string {
  const [code, message, text] =
    what.kind === 'too-long'
      ? ['too-long', 'the line is longer than 64 MiB', 'the line is longer than 64 MiB']
      : what.kind === 'invalid-json'
        ? ['invalid-json', `not JSON: column ${what.column}: ${what.reason}`, `not JSON (column ${what.column}: ${what.reason})`]
        : ['clinical-input', CLINICAL_INPUT, CLINICAL_INPUT];
  if (format === 'json') return `${JSON.stringify({ ...(line === undefined ? { index: 0 } : { line }), outcome: 'invalid', issues: [{ path: '', code, message }] })}\n`;
  return `${line === undefined ? name : `${name}:${line}`} invalid, not sent: ${text}\n`;
}

const issueJson = (i: Issue): { path: string; code: string; message: string } => ({ path: i.path, code: i.code, message: i.message });
const issueCodes = (issues: readonly Issue[]): string => issues.map((i) => `${i.path || '/'} ${i.code}`).join(', ');

/** The JSON object of one item's result (one line of `--format json`). */
function itemJson(r: ItemResult, line: number | undefined, showServiceMessages: boolean): Record<string, unknown> {
  const o: Record<string, unknown> = line === undefined ? { index: r.index } : { line };
  o.outcome = r.outcome;
  if ('key' in r) o.key = r.key;
  switch (r.outcome) {
    case 'acknowledged':
      Object.assign(o, { status: r.status, requestId: r.requestId, attempts: r.attempts });
      if (r.warnings !== undefined) o.warnings = r.warnings.map(issueJson);
      if (r.mismatches !== undefined) o.mismatches = r.mismatches.map(issueJson);
      break;
    case 'already-linked':
      Object.assign(o, { status: r.status ?? null, requestId: r.requestId });
      break;
    case 'skipped':
      o.reason = r.reason;
      break;
    case 'failed':
      Object.assign(o, { error: r.error.name, reason: r.error.reason, status: r.error.status ?? null, requestId: r.error.requestId, message: r.error.message });
      if (showServiceMessages && r.error.serviceMessage !== undefined) o.serviceMessage = r.error.serviceMessage;
      break;
    case 'unknown':
      Object.assign(o, { earlier: r.earlier });
      if (r.error !== undefined) Object.assign(o, { error: r.error.name, reason: r.error.reason, status: r.error.status ?? null, requestId: r.error.requestId, message: r.error.message });
      if (showServiceMessages && r.error?.serviceMessage !== undefined) o.serviceMessage = r.error.serviceMessage;
      break;
    case 'invalid':
      o.issues = r.issues.map(issueJson);
      break;
    case 'would-send':
      o.hiTypes = r.hiTypes;
      break;
  }
  return o;
}

/** Why an item was skipped, as its text line says it. */
const SKIPPED: Readonly<Record<SkipReason, string>> = {
  'acknowledged-earlier': 'acknowledged in an earlier run',
  'already-linked-earlier': 'answered already linked in an earlier run (done)',
  'duplicate-in-input': 'a copy of an item earlier in this input; not sent twice',
};

/** The text line(s) of one item's result. */
function itemText(r: ItemResult, place: ItemPlace, showServiceMessages: boolean): string {
  const { at } = place;
  /** The service's message, only with --show-service-messages: it may echo health data. */
  const said = (e: TransportError): string => (showServiceMessages && e.serviceMessage !== undefined ? `; the service said: ${JSON.stringify(e.serviceMessage)}` : '');
  switch (r.outcome) {
    case 'acknowledged': {
      const offSpec = r.warnings === undefined ? '' : `; warning: the service said success: true, but its answer does not have the spec's shape (${issueCodes(r.warnings)})`;
      const mismatch =
        r.mismatches === undefined ? '' : `; warning: the service said success: true, but its care contexts contradict the request (${issueCodes(r.mismatches)}): check this item with the service`;
      return `${at} acknowledged ${r.key} (HTTP ${r.status}, request ${r.requestId})${offSpec}${mismatch}\n`;
    }
    case 'already-linked':
      return `${at} already linked ${r.key}: the service answered that these care contexts were linked before; done, nothing linked again (HTTP ${r.status ?? '-'}, request ${r.requestId})\n`;
    case 'skipped':
      return `${at} skipped ${r.key}: ${SKIPPED[r.reason]}\n`;
    case 'failed':
      return `${at} failed ${r.key}: ${r.error.name}: ${r.error.message}${said(r.error)}\n`;
    case 'unknown':
      return r.error === undefined
        ? `${at} outcome unknown ${r.key}: unknown since an earlier run (in flight when it stopped, or no clear answer); not sent again\n`
        : `${at} outcome unknown ${r.key}: ${r.error.message}${said(r.error)}\n`;
    case 'invalid': {
      const { line, locate } = place;
      const lineNo = (path: string): string => (line !== undefined || locate === undefined ? at : `${at}:${locate(path)}`);
      return r.issues.map((i) => `${lineNo(i.path)} invalid, not sent: ${i.path || '/'} ${i.message} (${i.code})\n`).join('');
    }
    case 'would-send':
      return `${at} would send ${r.key}: ${plural(r.hiTypes.length, 'care context')} (${r.hiTypes.join(', ')})\n`;
  }
}

/**
 * What `abha-link submit` prints for one item's result: a JSON line, or one
 * text line (a line per issue for an invalid item).
 *
 * @example
 * itemLines({ index: 0, outcome: 'skipped', key: 'k2:…', reason: 'acknowledged-earlier' }, { at: 'a.ndjson:1', line: 1 }, { format: 'text', showServiceMessages: false })
 * //=> 'a.ndjson:1 skipped k2:…: acknowledged in an earlier run\n'
 */
export function itemLines(r: ItemResult, place: ItemPlace, how: ItemFormat): string {
  return how.format === 'json' ? `${JSON.stringify(itemJson(r, place.line, how.showServiceMessages))}\n` : itemText(r, place, how.showServiceMessages);
}

/** The kind of a failed or unknown item for the summary's `reasons:` (`RejectedError HTTP 400`); undefined for the other outcomes. */
export function failureKind(r: ItemResult): string | undefined {
  const error = r.outcome === 'failed' || r.outcome === 'unknown' ? r.error : undefined;
  return error === undefined ? undefined : `${error.name}${error.status === undefined ? '' : ` HTTP ${error.status}`}`;
}

/** Items done so far (`done`: items with a result), from the batch's counts (undefined: none yet) and the lines that were not items. */
export function progressCounts(counts: SubmitSummary | undefined, notItems: number): { readonly done: number; readonly text: string } {
  const soFar = counts ?? { acknowledged: 0, alreadyLinked: 0, alreadyAcknowledged: 0, duplicates: 0, failed: 0, unknown: 0, unknownEarlier: 0, invalid: 0, wouldSend: 0 };
  const done = soFar.acknowledged + soFar.alreadyLinked + soFar.alreadyAcknowledged + soFar.duplicates + soFar.failed + soFar.unknown + soFar.unknownEarlier + soFar.invalid + soFar.wouldSend;
  const skipped = soFar.alreadyAcknowledged + soFar.duplicates;
  const unknown = soFar.unknown + soFar.unknownEarlier;
  const linked = soFar.alreadyLinked > 0 ? `, ${soFar.alreadyLinked} already linked` : '';
  return { done, text: `${done + notItems} done: ${soFar.acknowledged} acknowledged${linked}, ${skipped} skipped, ${soFar.failed} failed, ${unknown} unknown, ${soFar.invalid + notItems} invalid` };
}

/** What the summary says beyond the batch's counts. */
export interface SummaryContext {
  readonly dryRun: boolean;
  /** The run had a journal (--journal). */
  readonly journaled: boolean;
  /** Lines of the input that were not items (not JSON, too long, a clinical input): counted as invalid. */
  readonly notItems: number;
  /** Failed and unknown items by kind (see failureKind), in order of first appearance. */
  readonly failureKinds: ReadonlyMap<string, number>;
  /** With --resend-confirmed: how many items the file listed, and how many of them were met and sent. */
  readonly confirmed?: { readonly listed: number; readonly met: number } | undefined;
}

/** The first line: the counts. */
function countsLine(summary: SubmitSummary, total: number, invalid: number, dryRun: boolean): string {
  if (dryRun) {
    return `submit (dry run): ${plural(total, 'item')}: ${summary.wouldSend} would be sent, ${summary.alreadyAcknowledged} already acknowledged, ${summary.unknownEarlier} with an unknown outcome (not sent without --retry-unknown), ${invalid} invalid; nothing was sent`;
  }
  const unknown = summary.unknown + summary.unknownEarlier;
  const linked = summary.alreadyLinked > 0 ? `, ${summary.alreadyLinked} already linked (done)` : '';
  return `submit: ${plural(total, 'item')}: ${summary.acknowledged} acknowledged${linked}, ${summary.alreadyAcknowledged} already acknowledged (skipped), ${summary.failed} failed, ${unknown} outcome unknown, ${invalid} invalid${summary.duplicates > 0 ? `, ${summary.duplicates} duplicates skipped` : ''}`;
}

/** The advice lines of a run that sent: warnings, reasons, what to do about failed and unknown items, why it stopped. */
function adviceLines(summary: SubmitSummary, ctx: SummaryContext, invalid: number): string[] {
  const lines: string[] = [];
  const { journaled } = ctx;
  const unknown = summary.unknown + summary.unknownEarlier;
  if (summary.warnings > 0) lines.push(`  ${plural(summary.warnings, 'item')} acknowledged with an answer that does not have the spec's shape (see the warnings above)`);
  if (summary.mismatches > 0)
    lines.push(`  ${plural(summary.mismatches, 'item')} acknowledged with an answer whose care contexts contradict the request (see the warnings above): check them with the service`);
  if (ctx.failureKinds.size > 0) lines.push(`  reasons: ${[...ctx.failureKinds].map(([k, n]) => `${n} × ${k}`).join(', ')}`);
  if (summary.failed > 0) {
    lines.push(
      `  failed items were not processed by the service: fix the cause and rerun${journaled ? ' with the same --journal (it sends only what was not acknowledged)' : ' only the failed items (no journal recorded this run: the whole input would send the acknowledged items again)'}`,
    );
  }
  if (unknown > 0) {
    lines.push(
      `  outcome unknown: ${plural(unknown, 'item')} may or may not have been linked, so ${unknown === 1 ? 'it was' : 'they were'} not sent again; ${
        journaled
          ? 'list them with --list-unknown (same --journal and input), check each with the service, and resend only those that were not linked with --resend-confirmed FILE (--retry-unknown resends them all, linking twice any that were linked)'
          : 'no journal recorded them: check with the service which were linked before sending any again'
      }`,
    );
  }
  const rerun = journaled
    ? 'rerun with the same --journal'
    : 'no journal recorded this run, so a rerun of the same input sends every item again, those acknowledged above included: remove the acknowledged lines from the input first, or start again with --journal FILE';
  if (summary.stopReason === 'authentication')
    lines.push(`  stopped: the service refused the API key or the bearer token (AuthenticationError); fix the key, then ${journaled ? rerun : `rerun (${rerun})`}`);
  else if (summary.stopReason === 'service-unavailable')
    lines.push(`  stopped: too many items in a row failed because the service looked unavailable; ${journaled ? `${rerun} when it is back` : `when it is back, rerun (${rerun})`}`);
  if (summary.stopped) lines.push(`  stopped before the end of the input: ${journaled ? `${rerun} to continue` : rerun}`);
  if (invalid > 0) lines.push('  invalid items were not sent: see the lines above (abha-link validate --ndjson gives the same report)');
  return lines;
}

/**
 * The summary `abha-link submit` prints on stderr at the end of a run, one
 * string a line.
 *
 * @example
 * summaryLines({ ...counts, total: 2, acknowledged: 2 }, { dryRun: false, journaled: true, notItems: 0, failureKinds: new Map() })
 * //=> ['submit: 2 items: 2 acknowledged, 0 already acknowledged (skipped), 0 failed, 0 outcome unknown, 0 invalid']
 */
export function summaryLines(summary: SubmitSummary, ctx: SummaryContext): string[] {
  const invalid = summary.invalid + ctx.notItems;
  const lines = [countsLine(summary, summary.total + ctx.notItems, invalid, ctx.dryRun)];
  if (!ctx.dryRun) lines.push(...adviceLines(summary, ctx, invalid));
  const { confirmed } = ctx;
  if (confirmed !== undefined) {
    lines.push(
      `  --resend-confirmed: ${plural(confirmed.met, 'confirmed item')} of ${confirmed.listed} listed ${confirmed.met === 1 ? 'was' : 'were'} among this input's items with an unknown outcome, and sent`,
    );
  }
  return lines;
}
