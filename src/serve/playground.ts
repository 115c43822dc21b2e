/**
 * The playground page (GET /): one self-contained HTML page, no external
 * requests. Paste or upload a clinical input or a link request; it lists the
 * issues first (each a link to its field in the echo of the input), then the
 * built request, the printed preview scaled to its frame and the FHIR bundle.
 * A second view lists the submissions queue (filter, load more, open, retry).
 * The token is typed into the page and kept in memory only. Its script is
 * src/serve/playground-script.ts; one column on a phone.
 */
import { createHash } from 'node:crypto';
import { PLAYGROUND_SCRIPT as SCRIPT } from './playground-script.js';
import { SUBMISSION_STATUSES } from './queue-contract.js';

const STYLE = `
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1b1b1b;background:#f6f7f9}
header{background:#0b5cab;color:#fff;padding:8px 16px;display:flex;gap:8px 16px;align-items:center;flex-wrap:wrap}
header h1{font-size:18px;margin:0}
header label{font-size:13px;display:flex;gap:8px;align-items:center;flex:1 1 260px;max-width:440px}
#token{flex:1 1 auto;min-width:0}
nav{display:flex;gap:6px;flex-wrap:wrap}
nav button{background:transparent;color:#fff;border:1px solid #fff;border-radius:4px}
nav button[aria-pressed=true]{background:#fff;color:#0b5cab;font-weight:600}
#status{font-weight:600;background:#fff;border-radius:4px;padding:2px 8px;overflow-wrap:anywhere}
#status:empty{display:none}
.ok{color:#1d6b2f}.err{color:#b3261e}
main{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:12px;padding:12px;align-items:start}
main[hidden]{display:none}
#preview-section{grid-column:2;grid-row:1 / span 2}
#queue{grid-template-columns:minmax(0,3fr) minmax(0,2fr)}
@media (max-width:860px){main,#queue{grid-template-columns:minmax(0,1fr);padding:8px}#preview-section{grid-column:auto;grid-row:auto}}
section{background:#fff;border:1px solid #d8dde3;border-radius:6px;padding:10px;min-width:0}
h2{font-size:16px;margin:0 0 8px}
h3{font-size:14px;margin:12px 0 6px}
button,select,input{font:inherit;min-height:44px;min-width:44px}
button{padding:0 16px;cursor:pointer}
input[type=file]{max-width:100%}
textarea{width:100%;height:220px;font:12px/1.35 ui-monospace,monospace}
.controls{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:8px 0 0}
.controls label{display:flex;gap:6px;align-items:center}
pre{font:12px/1.35 ui-monospace,monospace;white-space:pre-wrap;overflow-wrap:anywhere;margin:0;max-height:60vh;overflow:auto;background:#fafbfc;padding:6px;position:relative}
#issues{list-style:none;margin:0;padding:0;display:grid;gap:6px}
.issue{display:flex;flex-wrap:wrap;gap:2px 8px;align-items:center;min-height:44px;padding:6px 10px;border:1px solid;border-left-width:6px;border-radius:4px;color:inherit;text-decoration:none;overflow-wrap:anywhere}
.issue:hover,.issue:focus{text-decoration:underline}
.issue code{font:12px ui-monospace,monospace;overflow-wrap:anywhere}
.issue[aria-current]{outline:3px solid #0b5cab;outline-offset:1px}
.sev{font-weight:700;white-space:nowrap}
.sev-error{border-color:#c62828;background:#fdecee}
.sev-error .sev{color:#8e1b1b}
.sev-warning{border-color:#b7791f;border-style:dashed;background:#fff8e6}
.sev-warning .sev{color:#7a4e00}
.sev-information{border-color:#5f6b7a;border-style:dotted;background:#f3f5f8}
#count{font-weight:400;font-size:14px}
.line{display:block;border-left:4px solid transparent;padding-left:4px}
.line.bad{background:#fde7e9;border-left-color:#c62828}
.line.warn{background:#fff4d6;border-left:4px dashed #b7791f}
.line.current{outline:3px solid #0b5cab;outline-offset:-2px}
.note{display:block;font-family:system-ui,sans-serif;padding:1px 6px;margin:1px 0 3px 16px;border-width:0 0 0 3px;background:none}
.note.sev-error{color:#8e1b1b}.note.sev-warning{color:#7a4e00}
.note.current{font-weight:700}
/* Hidden but never display:none: an iframe shown again and given a new document at once kept one Chromium never laid out (a blank preview). */
#frame-box[hidden]{display:block;visibility:hidden;height:0!important;border:0}
#preview-note:empty{display:none}
#frame-box{position:relative;overflow:hidden;width:100%;background:#dcdcdc;border:1px solid #d8dde3}
#preview{position:absolute;top:0;left:0;border:0;transform-origin:0 0;background:#dcdcdc}
#filters{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,170px),1fr));gap:8px;align-items:end}
#filters label{display:flex;flex-direction:column;font-size:13px;gap:2px;min-width:0}
#filters input,#filters select{width:100%;min-width:0}
#subs{list-style:none;padding:0;margin:10px 0;display:grid;gap:8px}
.sub{border:1px solid #d8dde3;border-radius:6px;padding:8px 10px}
.sub-head,#detail p{display:flex;gap:8px;align-items:center;flex-wrap:wrap;overflow-wrap:anywhere;margin:0}
.sub-head code,#detail code{font:12px ui-monospace,monospace;overflow-wrap:anywhere;min-width:0}
dl{display:grid;gap:2px 12px;margin:6px 0;font-size:13px}
dl div{display:grid;grid-template-columns:8em minmax(0,1fr);gap:8px}
.sub dl{grid-template-columns:repeat(auto-fill,minmax(150px,1fr))}
.sub dl div{grid-template-columns:minmax(0,1fr);gap:0}
dt{color:#555}dd{margin:0;overflow-wrap:anywhere}
.badge{display:inline-block;padding:2px 8px;border-radius:10px;font-size:12px;font-weight:700;border:1px solid;white-space:nowrap}
.st-queued,.st-sending{color:#28527a;background:#eaf2fb}
.st-acknowledged,.st-already-linked{color:#1d6b2f;background:#e8f5ec}
.st-failed{color:#8e1b1b;background:#fdecee;border-width:2px}
.st-unknown{color:#7a4e00;background:#fff8e6;border-style:dashed}
.actions{display:flex;gap:8px;flex-wrap:wrap}
#more[hidden]{display:none}
`;

const hash = (s: string): string => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;

/** The page's Content-Security-Policy: its own script only, no requests but to this server, no framing. */
export const PLAYGROUND_CSP = [
  "default-src 'none'",
  `script-src ${hash(SCRIPT)}`,
  // The printed preview (an iframe's srcdoc inherits this policy) carries its own inline styles and data: images.
  "style-src 'unsafe-inline'",
  'img-src data:',
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const STATUS_OPTIONS = ['<option value="">any</option>', ...SUBMISSION_STATUSES.map((s) => `<option>${s}</option>`)].join('');

/** The check view: the input, the issues listed first, the preview, the built request and the FHIR bundle. */
const CHECK_VIEW = `<main id="check">
<section id="input-section"><h2>Clinical input or link request (JSON)</h2>
<textarea id="input" spellcheck="false" aria-label="Clinical input or link request (JSON)" placeholder='{"patient": {...}, "visit": {...}, ...}'></textarea>
<div class="controls"><input id="file" type="file" accept=".json,application/json" aria-label="Open a JSON file">
<label>Page <select id="size"><option>A4</option><option>A5</option></select></label>
<button id="run" type="button">Check and build</button></div></section>
<section id="issues-section"><h2>Issues <span id="count"></span></h2>
<ol id="issues"></ol>
<h3>The input, issues at their fields</h3><pre id="inline" tabindex="0" aria-label="The input, issues at their fields"></pre></section>
<section id="preview-section"><h2>Prescription preview</h2><p id="preview-note">The printed prescription shows here once the input has no errors.</p><div id="frame-box" hidden><iframe id="preview" sandbox title="printed preview"></iframe></div></section>
<section><h2>Built link request</h2><pre id="built"></pre></section>
<section><h2>FHIR bundle</h2><pre id="fhir"></pre></section>
</main>`;

/** The queue view: filters, the list with "load more", one submission opened. */
const QUEUE_VIEW = `<main id="queue" hidden>
<section><h2>Submissions</h2>
<form id="filters">
<label>Status <select id="f-status">${STATUS_OPTIONS}</select></label>
<label>Created from <input id="f-from" type="datetime-local"></label>
<label>Created before <input id="f-to" type="datetime-local"></label>
<label>Visit id <input id="f-visitId" type="text" autocomplete="off" maxlength="200"></label>
<label>HIP id <input id="f-hipId" type="text" autocomplete="off" maxlength="200"></label>
<button id="list" type="submit">Show</button>
</form>
<p id="queue-count" role="status"></p>
<ul id="subs"></ul>
<button id="more" type="button" hidden>Load more</button></section>
<section id="detail-section"><h2>Submission</h2><div id="detail"><p>Open a submission to see it here.</p></div></section>
</main>`;

/** The playground page. */
export function playgroundHtml(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>abha-link playground</title><style>${STYLE}</style></head>
<body>
<header><h1>abha-link playground</h1>
<label>Server token <input id="token" type="password" autocomplete="off" placeholder="ABHA_LINK_SERVE_TOKEN"></label>
<nav aria-label="Views"><button id="tab-check" type="button" aria-pressed="true">Check a document</button><button id="tab-queue" type="button" aria-pressed="false">Submissions queue</button></nav>
<span id="status" role="status"></span></header>
${CHECK_VIEW}
${QUEUE_VIEW}
<script>${SCRIPT}</script>
</body></html>
`;
}
