/**
 * The playground page's one script (src/serve/playground.ts allows it by its
 * hash). Two views: *Check a document* (the issues listed first, each a link
 * to its field in the echo of the input; the built request; the printed
 * preview scaled to its frame; the FHIR bundle) and *Submissions queue*
 * (list, filter, load more with the cursor, open, retry). The token is read
 * from its field for every call and sent in the Authorization header only:
 * never stored, never in a URL.
 */

/** Checking a document: the echo of the input, the list of issues, the preview. */
const CHECK = `
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

// Severities told apart by a word and a shape, not by colour only.
const SEVERITY = {
  error: { rank: 0, mark: '\\u2716', word: 'Error' },
  warning: { rank: 1, mark: '\\u25B2', word: 'Warning' },
  information: { rank: 2, mark: '\\u2139', word: 'Information' },
};
const sevOf = (i) => SEVERITY[i.severity] || SEVERITY.information;
const sevKey = (i) => (SEVERITY[i.severity] ? i.severity : 'information');

// The issues with the echo line of their field, errors first, then in the order of the input.
function placeIssues(value, issues) {
  const { lines, lineOf } = layout(value);
  const placed = issues.map((issue, n) => ({ issue, n, line: lineFor(lineOf, issue.path) }));
  placed.sort((a, b) => sevOf(a.issue).rank - sevOf(b.issue).rank || a.line - b.line || a.n - b.n);
  return { lines, placed };
}

// The input, each line with an id (L<n>), each issue's message under the line of its field.
function showEcho(lines, placed) {
  const notes = new Map();
  for (const p of placed) {
    if (!notes.has(p.line)) notes.set(p.line, []);
    notes.get(p.line).push(p);
  }
  const out = $('inline');
  out.replaceChildren();
  lines.forEach((text, n) => {
    const mine = notes.get(n) || [];
    const line = document.createElement('span');
    const worst = mine.length === 0 ? '' : mine.some((p) => sevKey(p.issue) === 'error') ? ' bad' : ' warn';
    line.className = 'line' + worst;
    line.id = 'L' + n;
    line.tabIndex = -1;
    line.textContent = text;
    out.append(line);
    for (const p of mine) {
      const note = document.createElement('span');
      note.className = 'note sev-' + sevKey(p.issue);
      note.dataset.path = p.issue.path;
      note.dataset.line = String(n);
      note.textContent = sevOf(p.issue).mark + ' ' + sevOf(p.issue).word + ' ' + (p.issue.path || '/') + ': ' + p.issue.message + ' (' + p.issue.code + ')';
      out.append(note);
    }
  });
}

// The count and the list of issues, each a link to its line in the echo.
function showIssueList(placed) {
  const list = $('issues');
  list.replaceChildren();
  const counts = { error: 0, warning: 0, information: 0 };
  for (const p of placed) {
    counts[sevKey(p.issue)]++;
    const item = document.createElement('li');
    const link = document.createElement('a');
    link.href = '#L' + p.line;
    link.className = 'issue sev-' + sevKey(p.issue);
    link.dataset.line = String(p.line);
    const sev = document.createElement('span');
    sev.className = 'sev';
    sev.textContent = sevOf(p.issue).mark + ' ' + sevOf(p.issue).word;
    const path = document.createElement('code');
    path.textContent = p.issue.path || '/';
    link.append(sev, ' ', path, ' ' + p.issue.message + ' (' + p.issue.code + ')');
    item.append(link);
    list.append(item);
  }
  const plural = (n, word) => n + ' ' + word + (n === 1 ? '' : 's');
  $('count').textContent = placed.length === 0 ? 'none' : [plural(counts.error, 'error'), plural(counts.warning, 'warning'), plural(counts.information, 'note')].join(', ');
  return counts;
}

// Scrolls the echo (only the echo, not the page) so that line n is near its top.
function scrollEchoTo(n) {
  const line = $('L' + n);
  if (line) $('inline').scrollTop = Math.max(0, line.offsetTop - 24);
}

// Marks the field of an issue in the echo and brings it into view.
function goToLine(n) {
  for (const e of document.querySelectorAll('#inline .current')) e.classList.remove('current');
  for (const e of document.querySelectorAll('#issues [aria-current]')) e.removeAttribute('aria-current');
  const line = $('L' + n);
  if (!line) return;
  line.classList.add('current');
  for (const e of document.querySelectorAll('#inline .note[data-line="' + n + '"]')) e.classList.add('current');
  line.scrollIntoView({ block: 'center' });
  line.focus({ preventScroll: true });
}

function showIssues(value, issues) {
  const { lines, placed } = placeIssues(value, issues);
  showEcho(lines, placed);
  const counts = showIssueList(placed);
  if (placed.length > 0) scrollEchoTo(placed[0].line);
  return counts;
}

// The sheet of each page size on screen (mm): width, and height with its margins; the frame shows one page.
const SHEET = { A4: [210, 309], A5: [148, 222] };
const px = (mm) => Math.ceil((mm * 96) / 25.4);

// The preview frame shown with a document, or a note saying why there is none.
function showPreview(html, note) {
  $('frame-box').hidden = html === '';
  $('preview-note').textContent = note;
  fitPreview();
  $('preview').srcdoc = html;
}

// The preview frame at the natural width of its sheet, scaled down to the width of its box.
function fitPreview() {
  const box = $('frame-box');
  const frame = $('preview');
  const [w, h] = SHEET[$('size').value] || SHEET.A4;
  const width = px(w) + 40;
  const height = px(h);
  const scale = Math.min(1, box.clientWidth / width);
  frame.style.width = width + 'px';
  frame.style.height = height + 'px';
  frame.style.transform = 'scale(' + scale + ')';
  box.style.height = Math.ceil(height * scale) + 'px';
  box.dataset.scale = scale.toFixed(3);
}

async function call(path, body, accept) {
  const headers = { 'content-type': 'application/json', ...auth() };
  if (accept) headers.accept = accept;
  return send(path, { method: 'POST', headers, body: JSON.stringify(body) });
}

const refused = (r) => r.status === 401 && (setStatus('The token was refused: type the server token above.', false), true);

async function check(value) {
  const kind = kindOf(value);
  if (kind === 'clinical-input') {
    const r = await call('/v1/build', value);
    if (refused(r)) return undefined;
    return { kind, issues: r.status === 200 ? [] : (r.data && r.data.issues) || [], request: r.status === 200 ? r.data : undefined };
  }
  const r = await call('/v1/validate?lint=true', value);
  if (refused(r)) return undefined;
  return { kind, issues: [...(r.data.errors || []), ...(r.data.warnings || [])], request: r.data.valid ? value : undefined };
}

// Runs overlap (a click, then a change of page size): only the latest may show its answers, so that an
// earlier run finishing last never paints over the later one's input or size.
let latestRun = 0;

async function run() {
  const mine = ++latestRun;
  show('built', ''); show('fhir', ''); showPreview('', 'The printed prescription shows here once the input has no errors.');
  let value;
  try { value = JSON.parse($('input').value); } catch (e) { setStatus('The input is not JSON: ' + e.message, false); showIssueList([]); $('count').textContent = ''; $('inline').replaceChildren(); return; }
  const checked = await check(value);
  if (checked === undefined || mine !== latestRun) return;
  const { kind, issues, request } = checked;
  const counts = showIssues(value, issues);
  if (request === undefined) { setStatus(kind + ': ' + counts.error + ' error(s): see the list of issues', false); return; }
  setStatus(kind + ': valid' + (issues.length > 0 ? ', ' + counts.warning + ' warning(s)' : ''), true);
  show('built', JSON.stringify(request, null, 2));
  const several = Array.isArray(request.careContexts) && request.careContexts.length > 1 ? '&index=0' : '';
  const size = '&size=' + $('size').value;
  const [html, fhir] = await Promise.all([call('/v1/render?template=prescription' + size + several, value, 'text/html'), call('/v1/fhir?' + several.slice(1), value)]);
  if (mine !== latestRun) return;
  if (html.status === 200) showPreview(html.data, '');
  else setStatus('The preview could not be made: ' + ((html.data && html.data.issues) || []).map((i) => i.message).join('; '), false);
  show('fhir', fhir.status === 200 ? JSON.stringify(fhir.data, null, 2) : 'No FHIR bundle: ' + ((fhir.data && fhir.data.issues) || []).filter((i) => i.severity === 'error').map((i) => (i.path || '/') + ': ' + i.message).join(String.fromCharCode(10)));
}
`;

/** The queue view: GET /v1/submissions with filters and a cursor, GET one, POST retry. */
const QUEUE = `
const queueState = { cursor: undefined, shown: 0 };
const RETRYABLE = ['failed', 'unknown'];
const dash = (v) => (v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0) ? '\\u2014' : Array.isArray(v) ? v.join(', ') : String(v));

function localTime(iso) {
  const d = new Date(iso);
  if (iso === undefined || Number.isNaN(d.getTime())) return dash(iso);
  const two = (n) => String(n).padStart(2, '0');
  return d.getFullYear() + '-' + two(d.getMonth() + 1) + '-' + two(d.getDate()) + ' ' + two(d.getHours()) + ':' + two(d.getMinutes()) + ':' + two(d.getSeconds());
}

// The filters as query parameters (a time typed in local time is sent as UTC).
function filterQuery() {
  const q = new URLSearchParams();
  const value = (id) => $(id).value.trim();
  if (value('f-status')) q.set('status', value('f-status'));
  for (const id of ['from', 'to']) if (value('f-' + id)) q.set(id, new Date(value('f-' + id)).toISOString());
  for (const id of ['visitId', 'hipId']) if (value('f-' + id)) q.set(id, value('f-' + id));
  q.set('limit', '50');
  return q;
}

function fact(list, name, value, cls) {
  const pair = document.createElement('div');
  const dt = document.createElement('dt');
  dt.textContent = name;
  const dd = document.createElement('dd');
  dd.textContent = value;
  if (cls) dd.className = cls;
  pair.append(dt, dd);
  list.append(pair);
}

// A submission's facts; absent fields (an older server) show as a dash.
function facts(s, full) {
  const dl = document.createElement('dl');
  fact(dl, 'Visit', dash(s.visitId));
  fact(dl, 'HIP', dash(s.hipId));
  fact(dl, 'Care contexts', dash(s.careContextReferences));
  fact(dl, 'HI types', dash(s.hiTypes));
  fact(dl, 'Created', localTime(s.createdAt));
  if (full) fact(dl, 'Updated', localTime(s.updatedAt));
  fact(dl, 'Attempts', dash(s.attempts));
  fact(dl, 'Error', s.error ? s.error.code + (full ? ': ' + s.error.message : '') : dash(undefined), s.error ? 'err' : '');
  return dl;
}

function badge(status) {
  const b = document.createElement('span');
  b.className = 'badge st-' + status;
  b.textContent = status;
  return b;
}

function button(text, action, id) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = text;
  b.dataset.action = action;
  b.dataset.id = id;
  return b;
}

function card(s) {
  const li = document.createElement('li');
  li.className = 'sub';
  li.dataset.id = s.id;
  const head = document.createElement('div');
  head.className = 'sub-head';
  const id = document.createElement('code');
  id.textContent = s.id;
  head.append(badge(s.status), ' ', id);
  const actions = document.createElement('div');
  actions.className = 'actions';
  actions.append(button('Open', 'open', s.id));
  if (RETRYABLE.includes(s.status)) actions.append(button('Retry', 'retry', s.id));
  li.append(head, facts(s, false), actions);
  return li;
}

function failure(r, what) {
  if (refused(r)) return true;
  if (r.status === 200) return false;
  const issues = (r.data && r.data.issues) || [];
  setStatus(what + ': ' + (issues.map((i) => i.message).join('; ') || 'HTTP ' + r.status), false);
  return true;
}

async function loadSubmissions(more) {
  const q = filterQuery();
  if (more && queueState.cursor) q.set('cursor', queueState.cursor);
  const r = await request('GET', '/v1/submissions?' + q.toString());
  if (failure(r, 'The submissions could not be listed')) return;
  const list = $('subs');
  if (!more) { list.replaceChildren(); queueState.shown = 0; }
  for (const s of r.data.submissions || []) list.append(card(s));
  queueState.shown += (r.data.submissions || []).length;
  queueState.cursor = typeof r.data.nextCursor === 'string' && r.data.nextCursor !== '' ? r.data.nextCursor : undefined;
  $('more').hidden = queueState.cursor === undefined;
  $('queue-count').textContent = queueState.shown + ' submission' + (queueState.shown === 1 ? '' : 's') + ' shown' + (queueState.cursor ? ', more to load' : '');
  setStatus('Submissions listed', true);
}

function showDetail(s) {
  const box = $('detail');
  const head = document.createElement('p');
  const id = document.createElement('code');
  id.textContent = s.id;
  head.append(badge(s.status), ' ', id);
  box.replaceChildren(head, facts(s, true));
  if (RETRYABLE.includes(s.status)) box.append(button('Retry', 'retry', s.id));
}

// A fresh view of one submission replaces its card in the list.
function update(s) {
  const old = [...document.querySelectorAll('#subs .sub')].find((e) => e.dataset.id === s.id);
  if (old) old.replaceWith(card(s));
  showDetail(s);
}

async function openOne(id) {
  const r = await request('GET', '/v1/submissions/' + encodeURIComponent(id));
  if (failure(r, 'The submission could not be read')) return;
  update(r.data);
  $('detail-section').scrollIntoView({ block: 'nearest' });
  setStatus('Submission opened', true);
}

async function retryOne(id) {
  const r = await request('POST', '/v1/submissions/' + encodeURIComponent(id) + '/retry');
  if (failure(r, 'The submission was not sent again')) return;
  update(r.data);
  setStatus('Submission queued again', true);
}

function onQueueClick(event) {
  const b = event.target.closest('button[data-action]');
  if (!b) return;
  const go = b.dataset.action === 'retry' ? retryOne : openOne;
  go(b.dataset.id).catch(failed);
}
`;

/** What both views share, and the wiring of the controls. */
const COMMON = `
'use strict';
const $ = (id) => document.getElementById(id);
const show = (id, text) => { $(id).textContent = text; };
const auth = () => ({ authorization: 'Bearer ' + $('token').value.trim() });

function setStatus(text, ok) {
  const s = $('status');
  s.textContent = text;
  s.className = ok ? 'ok' : 'err';
}
const failed = (e) => setStatus('Failed: ' + e.message, false);

async function answer(res) {
  const type = res.headers.get('content-type') || '';
  const data = type.includes('json') ? await res.json() : await res.text();
  return { status: res.status, data };
}

// Every call ends: one the server has not answered (body and all) in this time is given up, saying so.
const CALL_TIMEOUT_MS = 30000;
async function send(path, init) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), CALL_TIMEOUT_MS);
  try {
    return await answer(await fetch(path, { ...init, signal: controller.signal }));
  } catch (e) {
    if (controller.signal.aborted) throw new Error('the server did not answer ' + path.split('?')[0] + ' within ' + CALL_TIMEOUT_MS / 1000 + ' s; try again');
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

async function request(method, path) {
  return send(path, { method, headers: auth() });
}

function showView(name) {
  for (const v of ['check', 'queue']) {
    $(v).hidden = v !== name;
    $('tab-' + v).setAttribute('aria-pressed', String(v === name));
  }
  if (name === 'check') fitPreview();
}
`;

const WIRING = `
$('run').addEventListener('click', () => { run().catch(failed); });
$('file').addEventListener('change', async () => {
  const f = $('file').files[0];
  if (f) { $('input').value = await f.text(); run().catch(failed); }
});
$('size').addEventListener('change', () => { fitPreview(); if ($('built').textContent !== '') run().catch(failed); });
$('issues').addEventListener('click', (event) => {
  const link = event.target.closest('a[data-line]');
  if (!link) return;
  event.preventDefault();
  goToLine(Number(link.dataset.line));
  link.setAttribute('aria-current', 'true');
});
new ResizeObserver(() => fitPreview()).observe($('frame-box'));
fitPreview();
$('tab-check').addEventListener('click', () => showView('check'));
$('tab-queue').addEventListener('click', () => { showView('queue'); loadSubmissions(false).catch(failed); });
$('filters').addEventListener('submit', (event) => { event.preventDefault(); loadSubmissions(false).catch(failed); });
$('more').addEventListener('click', () => { loadSubmissions(true).catch(failed); });
$('subs').addEventListener('click', onQueueClick);
$('detail').addEventListener('click', onQueueClick);
`;

/** The page's script, as sent (its SHA-256 is in the page's Content-Security-Policy). */
export const PLAYGROUND_SCRIPT = COMMON + CHECK + QUEUE + WIRING;
