/**
 * The playground page (GET /): one self-contained HTML page, no external
 * requests. Paste or upload a clinical input or a link request; it shows the
 * issues at their fields, the built request, the printed preview and the FHIR
 * bundle. The token is typed into the page and kept in memory only.
 */
import { createHash } from 'node:crypto';

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1b1b1b;background:#f6f7f9}
header{background:#0b5cab;color:#fff;padding:10px 16px;display:flex;gap:16px;align-items:center;flex-wrap:wrap}
header h1{font-size:18px;margin:0}
header label{font-size:13px}
main{display:grid;grid-template-columns:minmax(320px,1fr) minmax(320px,1fr);gap:12px;padding:12px}
section{background:#fff;border:1px solid #d8dde3;border-radius:6px;padding:10px;min-width:0}
h2{font-size:15px;margin:0 0 8px}
textarea{width:100%;box-sizing:border-box;height:220px;font:12px/1.35 ui-monospace,monospace}
pre{font:12px/1.35 ui-monospace,monospace;white-space:pre-wrap;word-break:break-word;margin:0;max-height:420px;overflow:auto;background:#fafbfc;padding:6px}
.line{display:block}
.bad{background:#fde7e9}
.warn{background:#fff4d6}
.note{display:block;font-family:system-ui,sans-serif;padding:1px 6px;margin:1px 0 3px 16px;border-left:3px solid #c62828;color:#8e1b1b}
.note.w{border-color:#b7791f;color:#7a4e00}
#status{font-weight:600;background:#fff;border-radius:4px;padding:2px 8px}
#status:empty{display:none}
.ok{color:#1d6b2f}.err{color:#b3261e}
iframe{width:100%;height:640px;border:1px solid #d8dde3;background:#fff}
button{padding:5px 14px}
`;

const SCRIPT = `
'use strict';
const $ = (id) => document.getElementById(id);
const show = (id, text) => { $(id).textContent = text; };

function kindOf(v) {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return 'other';
  if ('patient' in v || 'visit' in v || 'doctor' in v) return 'clinical-input';
  if ('careContexts' in v && 'abhaAddress' in v) return 'link-request';
  return 'clinical-input';
}

// Pretty-prints a value as JSON and notes the line of every JSON Pointer (unknown keys also as #N).
function layout(value) {
  const lines = [];
  const lineOf = new Map();
  const esc = (s) => s.replace(/~/g, '~0').replace(/\\//g, '~1');
  function walk(v, path, indent, prefix, comma) {
    lineOf.set(path, lines.length);
    const pad = '  '.repeat(indent);
    if (v !== null && typeof v === 'object') {
      const isArray = Array.isArray(v);
      const keys = isArray ? v.map((_, i) => String(i)) : Object.keys(v);
      if (keys.length === 0) { lines.push(pad + prefix + (isArray ? '[]' : '{}') + comma); return; }
      lines.push(pad + prefix + (isArray ? '[' : '{'));
      keys.forEach((k, i) => {
        const child = path + '/' + esc(k);
        if (!isArray) lineOf.set(path + '/#' + i, lines.length);
        walk(v[k], child, indent + 1, isArray ? '' : JSON.stringify(k) + ': ', i < keys.length - 1 ? ',' : '');
      });
      lines.push(pad + (isArray ? ']' : '}') + comma);
      return;
    }
    lines.push(pad + prefix + JSON.stringify(v) + comma);
  }
  walk(value, '', 0, '', '');
  return { lines, lineOf };
}

function lineFor(lineOf, path) {
  let p = path;
  while (true) {
    if (lineOf.has(p)) return lineOf.get(p);
    if (p === '') return 0;
    p = p.slice(0, p.lastIndexOf('/'));
  }
}

// The input, with each issue's message under the line of its field.
function showInline(value, issues) {
  const { lines, lineOf } = layout(value);
  const notes = new Map();
  for (const i of issues) {
    const n = lineFor(lineOf, i.path);
    if (!notes.has(n)) notes.set(n, []);
    notes.get(n).push(i);
  }
  const out = $('inline');
  out.replaceChildren();
  lines.forEach((text, n) => {
    const mine = notes.get(n) || [];
    const line = document.createElement('span');
    line.className = 'line' + (mine.some((i) => i.severity === 'error') ? ' bad' : mine.length > 0 ? ' warn' : '');
    line.textContent = text;
    out.append(line);
    for (const i of mine) {
      const note = document.createElement('span');
      note.className = 'note' + (i.severity === 'warning' ? ' w' : '');
      note.dataset.path = i.path;
      note.textContent = (i.severity === 'warning' ? 'warning ' : '') + (i.path || '/') + ': ' + i.message + ' (' + i.code + ')';
      out.append(note);
    }
  });
}

async function call(path, body, accept) {
  const headers = { 'content-type': 'application/json', authorization: 'Bearer ' + $('token').value.trim() };
  if (accept) headers.accept = accept;
  const res = await fetch(path, { method: 'POST', headers, body: JSON.stringify(body) });
  const type = res.headers.get('content-type') || '';
  const data = type.includes('json') ? await res.json() : await res.text();
  return { status: res.status, data };
}

function setStatus(text, ok) {
  const s = $('status');
  s.textContent = text;
  s.className = ok ? 'ok' : 'err';
}

async function run() {
  show('built', ''); show('fhir', ''); $('preview').srcdoc = '';
  let value;
  try { value = JSON.parse($('input').value); } catch (e) { setStatus('The input is not JSON: ' + e.message, false); $('inline').replaceChildren(); return; }
  const kind = kindOf(value);
  let request = value;
  let issues = [];
  if (kind === 'clinical-input') {
    const r = await call('/v1/build', value);
    if (r.status === 401) { setStatus('The token was refused: type the server token above.', false); return; }
    if (r.status !== 200) { issues = (r.data && r.data.issues) || []; request = undefined; }
    else request = r.data;
  } else {
    const r = await call('/v1/validate?lint=true', value);
    if (r.status === 401) { setStatus('The token was refused: type the server token above.', false); return; }
    issues = [...(r.data.errors || []), ...(r.data.warnings || [])];
    if (!r.data.valid) request = undefined;
  }
  showInline(value, issues);
  const errors = issues.filter((i) => i.severity === 'error').length;
  if (request === undefined) { setStatus(kind + ': ' + errors + ' error(s): see them at their fields', false); return; }
  setStatus(kind + ': valid' + (issues.length > 0 ? ', ' + issues.length + ' warning(s)' : ''), true);
  show('built', JSON.stringify(request, null, 2));
  const several = Array.isArray(request.careContexts) && request.careContexts.length > 1 ? '&index=0' : '';
  const [html, fhir] = await Promise.all([call('/v1/render?template=prescription' + several, value, 'text/html'), call('/v1/fhir?' + several.slice(1), value)]);
  if (html.status === 200) $('preview').srcdoc = html.data;
  else setStatus('The preview could not be made: ' + ((html.data && html.data.issues) || []).map((i) => i.message).join('; '), false);
  show('fhir', fhir.status === 200 ? JSON.stringify(fhir.data, null, 2) : 'No FHIR bundle: ' + ((fhir.data && fhir.data.issues) || []).filter((i) => i.severity === 'error').map((i) => (i.path || '/') + ': ' + i.message).join(String.fromCharCode(10)));
}

$('run').addEventListener('click', () => { run().catch((e) => setStatus('Failed: ' + e.message, false)); });
$('file').addEventListener('change', async () => {
  const f = $('file').files[0];
  if (f) { $('input').value = await f.text(); run().catch((e) => setStatus('Failed: ' + e.message, false)); }
});
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

/** The playground page. */
export function playgroundHtml(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>abha-link playground</title><style>${STYLE}</style></head>
<body>
<header><h1>abha-link playground</h1>
<label>Server token <input id="token" type="password" autocomplete="off" size="28" placeholder="ABHA_LINK_SERVE_TOKEN"></label>
<span id="status" role="status"></span></header>
<main>
<section><h2>Clinical input or link request (JSON)</h2>
<textarea id="input" spellcheck="false" placeholder='{"patient": {...}, "visit": {...}, ...}'></textarea>
<p><input id="file" type="file" accept=".json,application/json"> <button id="run" type="button">Check and build</button></p>
<h2>Issues at their fields</h2><pre id="inline"></pre></section>
<section><h2>Prescription preview</h2><iframe id="preview" sandbox title="printed preview"></iframe></section>
<section><h2>Built link request</h2><pre id="built"></pre></section>
<section><h2>FHIR bundle</h2><pre id="fhir"></pre></section>
</main>
<script>${SCRIPT}</script>
</body></html>
`;
}
