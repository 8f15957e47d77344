// planviz's one front end: the explorer widget (anywidget) and every offline page run this module.
// It draws a run from its snapshot (planviz/frontends/snapshot.py): one picture per plan version, laid out
// once by Graphviz in Python, restyled here from the per-event delta table (deltatable.py): event i lists
// [node, look before, look after] triples (d), the facts gained (g) and lost (l), the steps that became (ri)
// and stopped being (ro) ready, what it voided (vo) and kept (ke) and the picture's caption lines (c).
// Stepping, play, the clock, hover, details, search and zoom run here; only fault injection and a new view
// of a big plan ask the kernel (model.send), which answers with a new snapshot.
// The host gives a model with get/set/on/save_changes/send: anywidget's, or a page's local stand-in.
// Every text from the run is set with textContent, never parsed as HTML; only render's SVG (sanitised in
// Python) and the timeline's SVG are inserted as markup.

const XLINK = 'http://www.w3.org/1999/xlink';
const FLAGS = ['voided', 'kept', 'conflict', 'not_run'];
const PLAY_MS = 900;

function h(tag, props, children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (k === 'text') { el.textContent = v; }
    else if (k === 'cls') { el.className = v; }
    else if (k.startsWith('on')) { el.addEventListener(k.slice(2), v); }
    else { el.setAttribute(k, v); }
  }
  for (const c of children || []) { if (c) { el.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); } }
  return el;
}

function markup(html) {  // markup planviz made (render's SVG, the timeline), as nodes
  const t = document.createElement('template');
  t.innerHTML = html;
  return t.content;
}

function fill(list, items, empty) {
  list.textContent = '';
  if (!items.length) { list.appendChild(h('li', {cls: 'pv-empty', text: empty || '(none)'})); }
  for (const t of items) { list.appendChild(h('li', {text: t})); }
}

const SHORT = 300;  // characters of a long text shown before "show all"

function long(text, cls) {  // untrusted text, trimmed to SHORT characters with a button that shows it whole
  const pre = h('pre', {cls: 'pv-text' + (cls ? ' ' + cls : ''), text: text.length > SHORT ? text.slice(0, SHORT) + '\u2026' : text});
  if (text.length <= SHORT) { return pre; }
  const more = h('button', {type: 'button', cls: 'pv-more', text: 'show all ' + text.length + ' characters',
                            'aria-label': 'show the whole text'});
  more.addEventListener('click', () => {
    const whole = more.getAttribute('data-whole') === '1';
    pre.textContent = whole ? text.slice(0, SHORT) + '\u2026' : text;
    more.textContent = whole ? 'show all ' + text.length + ' characters' : 'show less';
    more.setAttribute('data-whole', whole ? '0' : '1');
  });
  return h('div', {cls: 'pv-long'}, [pre, more]);
}

function turnsBox(turns) {  // a chat thread's turns, who said what, in order (the latest reply last, scrolled to)
  const list = h('ol', {cls: 'pv-turn-list'}, turns.map(([role, text]) => h('li', {cls: 'pv-turn pv-role-' + String(role).replace(/[^a-z]/g, '')},
    [h('span', {cls: 'pv-role', text: role}), long(text)])));
  return h('section', {cls: 'pv-turns', 'aria-label': 'conversation'}, [h('p', {cls: 'pv-legend-title', text: 'Conversation (' + turns.length + ' turn' + (turns.length === 1 ? '' : 's') + ')'}), list]);
}

// ---- page data: the one decoder of planviz's page format (planviz/frontends/pagedata.schema.json, written by
// pagedata.py). It gives back the snapshot the rest of this module reads; a snapshot not in the format passes.
function decodeColumn(c, strings) {  // one value per row where the key is present (absent: skipped rows)
  const out = [], str = (k) => (k === null ? null : strings[k]);
  if (c.str) { return c.str.map(str); }
  if (c.int) { let at = 0; return c.int.map((d) => (at += d)); }
  if (c.num) { let at = 0; return c.num.map((d) => (d === null ? null : (at += d) / c.scale)); }
  if (c.json) { return c.json; }
  const flat = c.strs || c.ints;
  let k = 0;
  for (const n of c.n) {
    const row = flat.slice(k, k + n); k += n;
    if (c.strs) { out.push(row.map(str)); } else { let at = 0; out.push(row.map((d) => (at += d))); }
  }
  return out;
}

function decodeRecords(t, strings) {  // rows of objects, each key a column; absent keys stay absent
  const rows = Array.from({length: t.rows}, () => ({}));
  for (const [key, c] of Object.entries(t.cols)) {
    const values = decodeColumn(c, strings), skip = new Set();
    let at = 0;
    for (const d of c.absent || []) { skip.add(at += d); }
    let k = 0;
    rows.forEach((row, i) => { if (!skip.has(i)) { row[key] = values[k++]; } });
  }
  return rows;
}

function decodeTable(t, strings) {
  if (!t || typeof t !== 'object' || Array.isArray(t) || !t['@table']) { return t; }
  if (t['@table'] === 'values') { return decodeColumn(t.col, strings); }
  if (t['@table'] === 'tuples') {
    const cols = t.cols.map((c) => decodeColumn(c, strings));
    return Array.from({length: t.rows}, (_, i) => cols.map((col) => col[i]));
  }
  const rows = decodeRecords(t, strings);
  if (t['@table'] === 'records') { return rows; }
  const keys = decodeColumn(t.keys, strings), out = {};  // mapping
  keys.forEach((key, i) => { out[key] = rows[i]; });
  return out;
}

function decodePage(data) {  // page data -> the snapshot (its runs' tables back to lists and objects)
  if (!data || data.format !== 'planviz-page') { return data; }
  if (data.version !== 1) { throw new Error('planviz page data version ' + data.version + ' is newer than this page reader'); }
  const run = (r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, decodeTable(v, data.strings)]));
  const page = run(data.page);
  if (Array.isArray(data.page.pair)) { page.pair = data.page.pair.map(run); }
  return page;
}

const DECODED = new WeakMap();
function pageSnapshot(model) {  // the model's snapshot, decoded once per value the model holds
  const raw = model.get('snapshot');
  if (!raw || typeof raw !== 'object') { return raw; }
  if (!DECODED.has(raw)) { DECODED.set(raw, decodePage(raw)); }
  return DECODED.get(raw);
}
// ---- end of the page data decoder

// One run: its pictures, facts and ready set at any event, and the panels around them.
class RunView {
  constructor(snap, host) {
    this.s = snap; this.host = host;
    this.n = snap.events.length;
    this.version = []; let v = 0;
    snap.events.forEach((e, i) => { if (e.v !== undefined) { v = e.v; } this.version[i] = v; });
    this.pictures = snap.versions.map(() => null);
    this.facts = new Set(snap.last_facts); this.ready = new Set(snap.last_ready);
    this.at = this.n - 1; this.index = -1;
    this.zoom = 0;  // 0: fit the width; else a scale of the natural size
    this.selected = null; this.query = '';
    this.el = h('div', {cls: 'pv-run'});
    this.caption = h('p', {cls: 'pv-caption', 'aria-live': 'polite'});
    this.diagram = h('div', {cls: 'planviz-diagram pv-fit', role: 'img', 'aria-label': 'plan diagram: click a step for its details', tabindex: '-1'});
    this.legend = h('div', {cls: 'planviz-legend', 'aria-label': 'legend'});
    this.details = h('aside', {cls: 'planviz-details', 'aria-label': 'step details', 'aria-live': 'polite'},
                     this.noStep());
    const turns = snap.turns || [];
    this.turns = turns.length ? turnsBox(turns) : null;
    this.el.append(this.caption, h('div', {cls: 'pv-picture'}, [this.diagram, h('div', {cls: 'pv-side' + (this.turns ? ' pv-chat' : '')}, [this.legend, this.details, this.turns])]));
    if (this.turns) { requestAnimationFrame(() => { const l = this.turns.querySelector('ol'); l.scrollTop = l.scrollHeight; }); }
    this.diagram.addEventListener('click', (ev) => this.clicked(ev));
    this.diagram.addEventListener('wheel', (ev) => {
      if (!ev.ctrlKey) { return; }
      ev.preventDefault(); this.setZoom(ev.deltaY < 0 ? 1.25 : 0.8);
    }, {passive: false});
    let drag = null;  // pan a zoomed picture by dragging it
    this.diagram.addEventListener('pointerdown', (ev) => {
      if (this.zoom && !ev.target.closest('g.node')) { drag = [ev.clientX, ev.clientY, this.diagram.scrollLeft, this.diagram.scrollTop]; }
    });
    this.diagram.addEventListener('pointermove', (ev) => {
      if (drag) { this.diagram.scrollLeft = drag[2] - (ev.clientX - drag[0]); this.diagram.scrollTop = drag[3] - (ev.clientY - drag[1]); }
    });
    window.addEventListener('pointerup', () => { drag = null; });
  }

  picture(k) {  // version k's picture, built once from its SVG; its nodes found once
    if (!this.pictures[k]) {
      const spec = this.s.versions[k];
      const box = h('div', {cls: 'pv-version', 'data-v': String(k)});
      box.style.minWidth = (spec.legible || 0) + 'px';
      box.appendChild(markup(spec.svg));
      box.hidden = true;
      this.diagram.appendChild(box);
      const byId = {};
      box.querySelectorAll('g.node').forEach((g) => { byId[g.getAttribute('id')] = g; });
      const nodes = spec.nodes.map((id, j) => {
        const g = byId[id];
        if (!g) { return null; }
        const links = g.querySelectorAll('a'), texts = g.querySelectorAll('text');
        const title = links.length ? (links[0].getAttributeNS(XLINK, 'title') || '') : '';
        g.setAttribute('data-step', spec.ids[j]);
        g.setAttribute('tabindex', '0');
        g.setAttribute('role', 'button');
        g.setAttribute('aria-label', 'step ' + spec.ids[j]);
        return {g, shapes: g.querySelectorAll('path, polygon, ellipse'), text: texts[texts.length - 1], links,
                tip: title.slice(0, title.length - spec.cuts[j])};
      });
      const svg = box.querySelector('svg');
      const vb = svg && svg.viewBox && svg.viewBox.baseVal;
      this.pictures[k] = {box, svg, nodes, looks: spec.looks.slice(), width: vb ? vb.width * 4 / 3 : 0,
                          lines: box.querySelectorAll('svg text.event-line')};
      this.applyZoom(this.pictures[k]);
    }
    return this.pictures[k];
  }

  paint(pic, j, look) {
    const node = pic.nodes[j];
    pic.looks[j] = look;
    if (!node) { return; }
    const L = this.s.looks[look], cls = node.g.classList;
    for (const c of Array.from(cls)) { if (c.startsWith('status-') || FLAGS.includes(c)) { cls.remove(c); } }
    cls.add(L[0]);
    FLAGS.forEach((flag, b) => { if (L[1] & (1 << b)) { cls.add(flag); } });
    const first = node.shapes[0], outer = node.shapes[1];
    if (first) {
      first.setAttribute('fill', L[2]); first.setAttribute('stroke', L[3]);
      first.setAttribute('stroke-width', L[4]); first.setAttribute('stroke-dasharray', L[5]);
    }
    if (outer) { outer.setAttribute('stroke', L[6]); outer.setAttribute('stroke-width', L[7]); outer.setAttribute('stroke-dasharray', L[8]); }
    if (node.text) { node.text.textContent = L[9]; }
    const title = node.tip + (L[10] ? '\n' + L[10] : '');
    for (const a of node.links) { a.setAttributeNS(XLINK, 'xlink:title', title); }
  }

  apply(i, forward) {  // event i's changes, forward (frame i-1 to i) or backward (i to i-1)
    const e = this.s.events[i], pic = this.picture(this.version[i]), d = e.d || [];
    for (let k = 0; k < d.length; k += 3) { this.paint(pic, d[k], d[k + (forward ? 2 : 1)]); }
    const swap = (items, set, add) => { for (const x of items || []) { if (add) { set.add(x); } else { set.delete(x); } } };
    swap(e.l, this.facts, !forward); swap(e.g, this.facts, forward);
    swap(e.ro, this.ready, !forward); swap(e.ri, this.ready, forward);
  }

  show(i) {  // frame i: picture, caption, legend, panels
    const s = this.s;
    i = Math.max(0, Math.min(this.n - 1, i));
    while (this.at < i) { this.at += 1; this.apply(this.at, true); }
    while (this.at > i) { this.apply(this.at, false); this.at -= 1; }
    this.index = i;
    const k = this.version[i], pic = this.picture(k), e = s.events[i], row = s.log[i];
    // Only what differs from the frame before is touched: a step on a big plan costs a few nodes, not the picture.
    if (this.shown !== k) { this.pictures.forEach((p, j) => { if (p) { p.box.hidden = j !== k; } }); this.shown = k; }
    const said = e.c || [];
    pic.lines.forEach((line, j) => { const text = j < said.length ? said[j] : ' '; if (line.textContent !== text) { line.textContent = text; } });
    if (!this.captionHead) {
      this.captionHead = h('b'); this.captionRest = document.createTextNode('');
      this.captionScope = h('span', {cls: 'pv-scope'}); this.captionBreak = h('br');
      this.caption.append(this.captionHead, this.captionRest);
    }
    this.captionHead.textContent = 'Event ' + i + ' of ' + (this.n - 1) + ': ' + row[1] + (row[2] ? ' ' + row[2] : '');
    let rest = ' at t=' + row[0] + (s.unit ? ' ' + s.unit : '');
    if (row[3]) { rest += ' \u2014 ' + row[3]; }
    if (s.versions[k].version > 1) { rest += ' (plan v' + s.versions[k].version + ')'; }
    this.captionRest.data = rest;
    if ((e.vo || []).length || (e.ke || []).length) {
      const names = (xs) => (xs || []).map((x) => s.steps[x]).join(', ') || '(none)';
      this.captionScope.textContent = 'voided: ' + names(e.vo) + '; kept: ' + names(e.ke);
      if (!this.captionScope.isConnected) { this.caption.append(this.captionBreak, this.captionScope); }
    } else if (this.captionScope.isConnected) { this.captionBreak.remove(); this.captionScope.remove(); }
    this.showLegend(pic, k);
    this.followStep(pic, k, row[2]);
    if (this.turns) {  // the turns said after this event's time are dimmed (those of unknown time stay as they are)
      const now = e.t !== null && e.t !== undefined ? e.t : parseFloat(row[0]);  // the clock, unrounded
      this.turns.querySelectorAll('li.pv-turn').forEach((li, j) => {
        const t = (s.turns[j] || [])[2];
        li.classList.toggle('pv-later', t !== null && t !== undefined && t > now);
      });
    }
    if (this.query) { this.search(this.query); }
    if (this.selected !== null) { this.showDetails(this.selected); }
  }

  showLegend(pic, k) {  // rebuilt only when the looks on screen change
    const on = new Set(this.s.versions[k].legend);
    pic.looks.forEach((look, j) => { if (pic.nodes[j]) { on.add(this.s.look_legend[look]); } });
    const keys = this.s.legend.filter(([key]) => on.has(key)).map(([key]) => key).join(' ');
    if (keys === this.legendKeys) { return; }
    this.legendKeys = keys;
    const ul = h('ul', {cls: 'pv-legend'});
    for (const [key, text, fillColour, stroke, width, style] of this.s.legend) {
      if (!on.has(key)) { continue; }
      const swatch = h('span', {cls: 'pv-swatch', 'aria-hidden': 'true'});
      swatch.style.background = fillColour; swatch.style.border = width + 'px ' + style + ' ' + stroke;
      ul.appendChild(h('li', {cls: 'pv-legend-' + key}, [swatch, text]));
    }
    this.legend.replaceChildren(h('p', {cls: 'pv-legend-title', text: 'Legend'}), ul);
  }

  factNames() { return Array.from(this.facts).sort((a, b) => a - b).map((x) => this.s.facts[x]); }
  readyNames() { return Array.from(this.ready).sort((a, b) => a - b).map((x) => this.s.steps[x]); }

  clicked(ev) {
    const g = ev.target.closest && ev.target.closest('g.node[data-step]');
    if (g) { ev.preventDefault(); this.showDetails(g.getAttribute('data-step')); }
  }

  noStep() {  // the details with no step chosen: the hint, then the findings the picture's one line counts
    const found = this.s.findings || [];
    if (!found.length) { return [h('p', {cls: 'pv-empty', text: 'Click a step for its details.'})]; }
    const items = found.map(([sev, code, msg, steps]) => h('li', {cls: 'pv-finding pv-finding-' + sev},
      [h('b', {text: sev + ' ' + code}), document.createTextNode(': ' + msg + (steps ? ' (' + steps + ')' : ''))]));
    return [h('p', {cls: 'pv-empty', text: 'Click a step for its details.'}),
            h('h4', {text: 'Findings (' + found.length + ')'}), h('ul', {cls: 'pv-findings'}, items)];
  }

  showDetails(sid) {  // what a click on a step shows: the step, its facts, its attempts so far
    this.selected = sid;
    const d = this.s.details[sid], box = this.details;
    box.textContent = '';
    box.appendChild(h('h3', {text: sid}));
    const close = h('button', {type: 'button', cls: 'pv-close', 'aria-label': 'close the details', text: '\u00D7',
                               onclick: () => { this.selected = null; box.replaceChildren(...this.noStep()); }});
    box.appendChild(close);
    if (!d) { box.appendChild(h('p', {cls: 'pv-empty', text: 'a group of steps: hover it for its members'})); return; }
    const at = d.ended !== null && d.ended !== undefined ? ' (event ' + d.ended + (d.ended > this.index ? ', later in the run' : '') + ')' : '';
    if (d.error) { box.append(h('h4', {cls: 'pv-error', text: 'Failed' + at + ': its error'}), long(d.error, 'pv-error-text')); }
    if (d.result !== null && d.result !== undefined) { box.append(h('h4', {text: (d.error ? 'It returned' : 'Returned') + at}), long(d.result, 'pv-result')); }
    const dl = h('dl');
    const item = (name, value) => { if (value !== '' && value !== undefined && !(Array.isArray(value) && !value.length)) { dl.append(h('dt', {text: name}), h('dd', {text: Array.isArray(value) ? value.join(', ') : String(value)})); } };
    item('action', d.action); item('kind', d.kind); item('tool', d.tool);
    dl.append(...(d.arguments.length ? [h('dt', {text: 'arguments'}), h('dd', {}, [h('table', {cls: 'pv-args'}, d.arguments.map(([k, v]) => h('tr', {}, [h('th', {text: k}), h('td', {text: v})])))])] : []));
    item('depends on', d.depends_on); item('facts in (requires)', d.requires); item('facts out (produces)', d.produces);
    item('expected evidence', d.evidence);
    box.appendChild(dl);
    const rows = [], attempts = {};
    for (let i = 0; i <= this.index; i++) {
      const r = this.s.log[i];
      if (r[2] !== sid) { continue; }
      if (r[1] === 'start') { attempts[r[4]] = 'running'; }
      else if (r[4] && ['complete', 'fail', 'invalidate'].includes(r[1])) { attempts[r[4]] = r[1] === 'complete' ? 'done' : r[1] === 'fail' ? 'failed' : 'voided'; }
      const text = '#' + i + ' ' + r[1] + (r[4] ? ' (attempt ' + r[4] + ')' : '') + ': ' + r[3]
        + (r[5].length ? ' \u2014 observed: ' + r[5].join(', ') : '') + (r[6] ? ' \u2014 model calls: ' + r[6] : '');
      rows.push(h('li', {cls: i === this.index ? 'pv-current' : '', text}));
    }
    const tried = Object.keys(attempts);
    box.append(h('p', {cls: 'pv-attempt-count', text: 'attempts so far: ' + tried.length + (tried.length ? ' (' + tried.map((a) => a + ': ' + attempts[a]).join(', ') + ')' : '')}));
    const calls = d.calls || [];  // the model calls that led to this step, as the trace recorded them
    if (calls.length) {
      const unit = this.s.unit ? ' ' + this.s.unit : '', num = (x) => String(Number(x.toPrecision(4)));
      const said = calls.map(([model, start, took, tin, tout, cost, ok, given, answered]) => h('li', {}, [model
        + (start !== null ? ' at t=' + num(start) + unit : '') + (took ? ', ' + num(took) + unit : '')
        + (tin !== null || tout !== null ? ' \u00B7 tokens ' + (tin === null ? '?' : tin) + ' in, ' + (tout === null ? '?' : tout) + ' out' : '')
        + (cost !== null ? ' \u00B7 cost ' + num(cost) + ' USD' : '') + (ok ? '' : ' \u00B7 failed'),
        ...(given !== null && given !== undefined ? [h('div', {cls: 'pv-said', text: 'given:'}), long(given, 'pv-model-input')] : []),
        ...(answered !== null && answered !== undefined ? [h('div', {cls: 'pv-said', text: 'answered:'}), long(answered, 'pv-model-output')] : [])]));
      box.append(h('h4', {text: 'Model calls for this step (' + calls.length + ')'}), h('ol', {cls: 'pv-calls'}, said));
    }
    box.append(h('h4', {text: 'Events of this step so far'}), rows.length ? h('ol', {cls: 'pv-attempts'}, rows) : h('p', {cls: 'pv-empty', text: '(none yet)'}));
  }

  // ---- the picture follows the current step (issue 43): its node marked, scrolled into view while following ----
  followStep(pic, k, sid) {
    if (!pic.index) { pic.index = new Map(this.s.versions[k].ids.map((id, j) => [id, j])); }
    const j = sid ? pic.index.get(sid) : undefined, node = j === undefined ? null : pic.nodes[j], g = node ? node.g : null;
    if (this.nowNode !== g) {
      if (this.nowNode) { this.nowNode.removeAttribute('data-now'); }  // an attribute: the node's classes stay render's
      if (g) { g.setAttribute('data-now', ''); }
      this.nowNode = g;
    }
    if (g && this.host.following) { this.scrollTo(g); }
  }

  scrollTo(g) {  // scroll the picture (only the picture, never the page) so that g is inside it, centred when it was not
    const box = this.diagram.getBoundingClientRect(), r = g.getBoundingClientRect();
    if (!box.height || !box.width) { return; }
    if (r.top < box.top || r.bottom > box.bottom) { this.diagram.scrollTop += (r.top + r.bottom) / 2 - (box.top + box.bottom) / 2; }
    if (r.left < box.left || r.right > box.right) { this.diagram.scrollLeft += (r.left + r.right) / 2 - (box.left + box.right) / 2; }
  }
  // ---- end of following ----

  search(q) {  // mark the steps whose id, tool, kind or action contains q; returns the matches
    this.query = q;
    const pic = this.pictures[this.version[this.index]];
    const needle = q.trim().toLowerCase(), found = [];
    if (!pic) { return found; }
    pic.nodes.forEach((node, j) => {
      if (!node) { return; }
      const sid = this.s.versions[this.version[this.index]].ids[j], d = this.s.details[sid] || {};
      const hit = needle !== '' && [sid, d.tool, d.kind, d.action].some((x) => (x || '').toLowerCase().includes(needle));
      node.g.classList.toggle('pv-match', hit);
      if (hit) { found.push(sid); }
    });
    return found;
  }

  reveal(sid) {
    const g = this.diagram.querySelector('.pv-version:not([hidden]) g.node[data-step="' + CSS.escape(sid) + '"]');
    if (g) { g.scrollIntoView({block: 'nearest', inline: 'nearest'}); g.focus({preventScroll: true}); }
    this.showDetails(sid);
    return !!g;
  }

  setZoom(factor) {  // factor 0: fit the width again
    if (!factor) { this.zoom = 0; }
    else { this.zoom = Math.max(0.1, Math.min(8, (this.zoom || this.fitScale()) * factor)); }
    this.pictures.forEach((p) => { if (p) { this.applyZoom(p); } });
  }

  fitScale() {
    const p = this.pictures[this.version[Math.max(0, this.index)]];
    return p && p.width ? Math.min(1, this.diagram.clientWidth / p.width) : 1;
  }

  applyZoom(p) {
    this.diagram.classList.toggle('pv-fit', !this.zoom);
    if (p.svg) { p.svg.style.width = this.zoom && p.width ? (p.width * this.zoom) + 'px' : ''; }
    p.box.style.minWidth = this.zoom ? '' : (this.s.versions[Number(p.box.getAttribute('data-v'))].legible || 0) + 'px';
  }
}

// The stepper, tabs and controls around one run, or around several runs (or chosen frames) on one stepper:
// a snapshot with `pair` (the runs' own snapshots), `ticks` (the event of each run at each tick), `labels` and
// `notes` (a line per tick). `autoplay` ({ms, hold}) makes a flipbook: it plays in a loop by itself, holding the
// last frame `hold` times longer and pausing while the pointer is over the pictures.
class App {
  constructor(root, model) {
    this.root = root; this.model = model;
    this.snap = pageSnapshot(model);
    this.pair = !!this.snap.pair;
    this.runs = this.pair ? this.snap.pair.map((s) => new RunView(s, this)) : [new RunView(this.snap, this)];
    this.many = this.runs.length > 1;
    this.n = this.pair ? this.snap.ticks.length : this.runs[0].n;
    this.index = -1; this.timer = null; this.following = true;
    this.build();
  }

  control(cls, label, text, onclick, key) {
    return h('button', {type: 'button', cls, 'aria-label': label, title: label + (key ? ' (' + key + ')' : ''), text, onclick});
  }

  build() {
    const first = this.runs[0].s, m = this.model;
    const head = h('header', {cls: 'pv-head'});
    const title = this.many ? this.snap.labels.join(' vs ') : first.goal;
    head.appendChild(h('p', {cls: 'pv-title', text: title}));
    const sub = h('p', {cls: 'pv-sub'});
    sub.append(h('span', {cls: 'pv-mode', text: m.get('mode') ? m.get('mode') + ' \u00B7 ' : ''}));
    if (!this.many) {
      sub.append('outcome ', h('span', {cls: 'pv-badge pv-' + first.badge, text: first.outcome}), ' \u00B7 events 0..' + (this.runs[0].n - 1));
      if (this.pair) { sub.append(' \u00B7 ' + this.n + ' frames'); }
      if (first.unfinished) { sub.append(' \u00B7 unfinished: the run has no stop event, so it ends where the agent stopped'); }
    } else { sub.append((this.runs.length === 2 ? 'two' : String(this.runs.length)) + ' runs on one stepper \u00B7 ticks 0..' + (this.n - 1)); }
    head.appendChild(sub);
    this.first = this.control('planviz-first', 'first event', '\u00AB', () => this.go(0), 'Home');
    this.back = this.control('planviz-back', 'step back', '\u25C0 back', () => this.go(this.index - 1), 'Left arrow');
    this.playButton = this.control('planviz-play', 'play', '\u25B6 play', () => this.play(), 'space');
    this.forward = this.control('planviz-forward', 'step forward', 'step \u25B6', () => this.go(this.index + 1), 'Right arrow');
    this.last = this.control('planviz-last', 'last event', '\u00BB', () => this.go(this.n - 1), 'End');
    this.slider = h('input', {type: 'range', cls: 'planviz-slider', min: '0', max: String(this.n - 1), value: '0', 'aria-label': 'event'});
    this.slider.addEventListener('input', () => this.go(parseInt(this.slider.value, 10)));
    const zoom = h('span', {cls: 'pv-zoom', role: 'group', 'aria-label': 'zoom'}, [
      this.control('planviz-zoom-out', 'zoom out', '\u2212', () => this.runs.forEach((r) => r.setZoom(0.8))),
      this.control('planviz-zoom-fit', 'fit the width', 'fit', () => this.runs.forEach((r) => r.setZoom(0))),
      this.control('planviz-zoom-in', 'zoom in', '+', () => this.runs.forEach((r) => r.setZoom(1.25)))]);
    this.find = h('input', {type: 'search', cls: 'planviz-search', placeholder: 'find a step: id, tool or text', 'aria-label': 'find a step by id, tool or text'});
    this.found = h('span', {cls: 'pv-found', 'aria-live': 'polite'});
    this.find.addEventListener('input', () => this.search(false));
    this.find.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') { ev.preventDefault(); this.search(true); } });
    const nav = h('nav', {cls: 'pv-stepper', 'aria-label': 'step through the run'},
                  [this.first, this.back, this.playButton, this.forward, this.last, this.slider, zoom]);
    const tools = h('div', {cls: 'pv-tools'}, [this.find, this.found, this.followToggle()]);
    if (m.get('interactive')) {
      const hops = h('input', {type: 'number', min: '0', max: '20', value: '2', cls: 'planviz-hops', 'aria-label': 'hops around the step found'});
      this.hops = hops;
      tools.append(h('label', {cls: 'pv-hops'}, ['hops ', hops]),
                   this.control('planviz-view-auto', 'the default view', 'auto view', () => m.send({kind: 'view', mode: 'auto'})),
                   this.control('planviz-view-whole', 'every step of the plan', 'whole plan', () => m.send({kind: 'view', mode: 'whole'})),
                   h('span', {cls: 'planviz-view-status', text: m.get('view_notice') || ''}));
    }
    this.note = this.pair ? h('p', {cls: 'pv-note', 'aria-live': 'polite'}) : null;
    if (this.pair && this.snap.diff) {  // what diff_runs found, and a jump to where the runs first part
      const first = this.snap.pair.length && this.snap.notes.findIndex((x) => x.startsWith('first divergence'));
      tools.append(this.control('planviz-diverge', 'go to the first divergence', 'first divergence', () => this.go(first), ''));
      if (first < 0) { tools.lastChild.disabled = true; }
      this.diffBox = h('details', {cls: 'pv-diff'}, [h('summary', {text: 'What differs'}), h('pre', {text: this.snap.diff})]);
    }
    const runs = this.columns('pv-runs');
    this.runs.forEach((r, j) => {
      if (this.many) { r.el.prepend(h('h3', {cls: 'pv-label', text: this.snap.labels[j]})); }
      runs.appendChild(r.el);
    });
    if (this.snap.autoplay) {  // a flipbook pauses while the pointer is over its pictures
      runs.addEventListener('pointerenter', () => { this.hovered = true; });
      runs.addEventListener('pointerleave', () => { this.hovered = false; });
    }
    this.root.replaceChildren(head, nav, tools, ...(this.note ? [this.note] : []), ...(this.diffBox ? [this.diffBox] : []), runs, this.panels());
    this.root.addEventListener('keydown', (ev) => this.key(ev));
  }

  followToggle() {  // on by default: the picture scrolls to the current step; off, it stays where the reader put it
    const box = h('input', {type: 'checkbox', cls: 'planviz-follow', 'aria-label': 'the picture follows the current step'});
    box.checked = this.following;
    box.addEventListener('change', () => {
      this.following = box.checked;
      if (this.following) { this.runs.forEach((r) => { if (r.nowNode) { r.scrollTo(r.nowNode); } }); }
    });
    return h('label', {cls: 'pv-follow', title: 'scroll the picture to the current step'}, [box, ' follow the step']);
  }

  columns(cls) {  // a box with one column per run (several runs: side by side, or stacked when `arrange` says so)
    const box = h('div', {cls: cls + (this.many ? ' pv-many' : '')});
    if (this.many) { box.style.gridTemplateColumns = this.snap.arrange === 'column' ? 'minmax(0, 1fr)' : 'repeat(' + this.runs.length + ', minmax(0, 1fr))'; }
    return box;
  }

  panels() {  // the tabs under the pictures; with several runs each tab shows every run's own panel, labelled
    const m = this.model, s = this.runs[0].s;
    const tabs = [['Event log', 'log'], ['Facts', 'facts'], ['Ready', 'ready'], ['Timeline', 'timeline'], ['Metrics', 'metrics']];
    const extra = s.tabs || [];  // markup planviz made in Python (the alignment of a declared plan)
    extra.forEach(([label], j) => tabs.push([label, 'extra' + j]));
    const bar = h('div', {cls: 'pv-tabs', role: 'tablist'}), boxes = {};
    this.tab = 'log';
    const select = (name) => {
      this.tab = name;
      for (const b of bar.children) { b.setAttribute('aria-selected', String(b.getAttribute('data-tab') === name)); }
      for (const [key, box] of Object.entries(boxes)) { box.hidden = key !== name; }
      this.refresh();
    };
    for (const [label, name] of tabs) {
      bar.appendChild(h('button', {type: 'button', role: 'tab', cls: 'pv-tab', 'data-tab': name, text: label, onclick: () => select(name)}));
      boxes[name] = h('div', {cls: 'pv-panel pv-panel-' + name, role: 'tabpanel', 'aria-label': label});
    }
    const cols = {};
    for (const name of Object.keys(boxes)) { cols[name] = this.columns('pv-cols'); boxes[name].appendChild(cols[name]); }
    this.parts = this.runs.map((view, j) => {
      const part = {view, j, logWindow: null};
      const cell = (name, ...children) => {  // run j's part of tab `name`, under its label when there are several
        const c = h('div', {cls: 'pv-col', 'data-run': String(j)}, this.many ? [h('h4', {cls: 'pv-label', text: this.snap.labels[j]})] : []);
        c.append(...children); cols[name].appendChild(c); return c;
      };
      part.log = new VirtualLog(view, (e) => this.go(this.tickOf(j, e)));
      cell('log', part.log.el);
      part.factList = h('ul', {cls: 'pv-list pv-facts'}); cell('facts', part.factList);
      part.readyList = h('ul', {cls: 'pv-list pv-ready'}); cell('ready', part.readyList);
      part.lanes = view.s.lanes && view.s.lanes.lanes.length ? new LaneChart(view, (e) => this.go(this.tickOf(j, e))) : null;
      const timeline = cell('timeline', ...(part.lanes ? [part.lanes.el] : []), markup(view.s.gantt));
      part.gantt = timeline.querySelector('svg.planviz-gantt');
      part.cursor = part.gantt && part.gantt.querySelector('.planviz-now');
      extra.forEach((_, jj) => { const mine = (view.s.tabs || [])[jj]; cell('extra' + jj, mine ? markup(mine[1]) : h('p', {cls: 'pv-empty', text: '(none)'})); });
      cell('metrics', h('table', {cls: 'pv-log pv-metrics'}, view.s.metrics.map(([k, v]) => h('tr', {}, [h('th', {text: k}), h('td', {text: v})]))));
      return part;
    });
    const lower = h('div', {cls: 'pv-lower'});
    if (m.get('interactive')) { lower.appendChild(this.faultPanel()); }
    lower.appendChild(h('div', {cls: 'pv-tabbox'}, [bar, ...Object.values(boxes)]));
    select('log');
    return lower;
  }

  tickOf(j, e) {  // the first tick at which run j shows event e (one run without ticks: e itself)
    if (!this.pair) { return e; }
    const k = this.snap.ticks.findIndex((t) => t[j] >= e);
    return k < 0 ? this.n - 1 : k;
  }

  faultPanel() {  // injecting a fault runs in Python (the simulator): ask the kernel, which sends the new run
    const m = this.model, opts = m.get('fault_options') || {steps: [], kinds: [], facts: []};
    const select = (name, items, value) => {
      const el = h('select', {'aria-label': 'fault ' + name}, items.map((x) => h('option', {value: x, text: x})));
      if (value !== undefined && items.includes(value)) { el.value = value; }
      return el;
    };
    const step = select('step', opts.steps), kind = select('kind', opts.kinds, 'side_effect');
    const fact = h('input', {type: 'text', placeholder: 'fact: needed for extra_fact', 'aria-label': 'fault fact'});
    const times = h('input', {type: 'number', min: '1', max: '99', value: '1', 'aria-label': 'fault times'});
    const status = h('div', {cls: 'planviz-fault-status', 'aria-live': 'polite', text: m.get('fault_status') || ''});
    const inject = h('button', {type: 'button', cls: 'planviz-fault-inject', text: 'Inject', 'aria-label': 'inject the fault and re-simulate',
                                onclick: () => { status.textContent = 're-simulating\u2026'; m.send({kind: 'inject', step: step.value, fault: kind.value, fact: fact.value, times: parseInt(times.value, 10) || 1}); }});
    const clear = h('button', {type: 'button', cls: 'planviz-fault-clear', text: 'Clear faults', 'aria-label': 'clear every fault',
                               onclick: () => { status.textContent = 're-simulating\u2026'; m.send({kind: 'clear'}); }});
    this.faultStatus = status;
    return h('div', {cls: 'pv-faults', role: 'group', 'aria-label': 'inject a fault'}, [
      h('p', {}, [h('b', {text: 'Inject a fault'})]),
      h('label', {cls: 'planviz-fault-step'}, ['Step ', step]), h('label', {cls: 'planviz-fault-kind'}, ['Kind ', kind]),
      h('label', {cls: 'planviz-fault-fact'}, ['Fact ', fact]), h('label', {cls: 'planviz-fault-times'}, ['Times ', times]),
      h('div', {}, [inject, clear]), status]);
  }

  search(go) {
    const q = this.find.value;
    const found = [];
    this.runs.forEach((r) => found.push(...r.search(q)));
    const unique = Array.from(new Set(found));
    this.found.textContent = q.trim() ? (unique.length ? unique.length + ' found: ' + unique.slice(0, 8).join(', ') + (unique.length > 8 ? ', \u2026' : '') : 'not in the picture') : '';
    if (!go || !q.trim()) { return; }
    if (unique.length) {  // shown in the first run that has it
      const view = this.runs.find((r) => r.search(q).includes(unique[0])) || this.runs[0];
      view.reveal(unique[0]); return;
    }
    const sid = q.trim();
    if (this.runs[0].s.details[sid] && this.model.get('interactive')) {  // a step of a big plan outside the view
      this.model.send({kind: 'view', mode: 'focus', step: sid, hops: parseInt(this.hops.value, 10) || 0});
    }
  }

  key(ev) {
    const t = ev.target && ev.target.closest ? ev.target : null, k = ev.key;
    if (ev.altKey || ev.ctrlKey || ev.metaKey || (t && t.closest('input, select, textarea'))) { return; }
    if ((k === ' ' || k === 'Enter') && t && t.closest('button')) { return; }  // the button's own click
    if (k === 'ArrowRight') { this.go(this.index + 1); }
    else if (k === 'ArrowLeft') { this.go(this.index - 1); }
    else if (k === 'Home') { this.go(0); }
    else if (k === 'End') { this.go(this.n - 1); }
    else if (k === ' ' || k === 'p' || k === 'P') { this.play(); }
    else if (k === 'Enter' && t && t.closest && t.closest('g.node[data-step]')) {  // the details in the run the step is drawn in
      const view = this.runs.find((r) => r.diagram.contains(t)) || this.runs[0];
      view.showDetails(t.closest('g.node').getAttribute('data-step'));
    }
    else { return; }
    ev.preventDefault();
  }

  stop() { if (this.timer) { clearInterval(this.timer); this.timer = null; this.playButton.textContent = '\u25B6 play'; this.playButton.setAttribute('aria-label', 'play'); } }

  play() {  // one frame every PLAY_MS (a flipbook: its own pace, in a loop) until paused or at the end
    if (this.timer) { this.stop(); return; }
    const auto = this.snap.autoplay;
    if (this.index >= this.n - 1) { this.show(0); }
    this.playButton.textContent = '\u23F8 pause'; this.playButton.setAttribute('aria-label', 'pause');
    let held = 0;
    this.timer = setInterval(() => {
      if (auto && this.hovered) { return; }
      if (this.index < this.n - 1) { this.show(this.index + 1); }
      else if (!auto) { this.stop(); }
      else if (++held >= (auto.hold || 1)) { held = 0; this.show(0); }
    }, auto ? auto.ms : PLAY_MS);
  }

  go(i) { this.stop(); this.show(i); }

  show(i, quiet) {  // draw frame i; tell the model (the kernel keeps ex.index) unless it told us
    i = Math.max(0, Math.min(this.n - 1, i));
    if (i === this.index) { return; }
    this.index = i;
    if (this.pair) {
      this.snap.ticks[i].forEach((at, j) => this.runs[j].show(at));
      this.note.textContent = this.snap.notes[i] || '';
    } else { this.runs[0].show(i); }
    this.slider.value = String(i);
    this.first.disabled = this.back.disabled = i === 0;
    this.last.disabled = this.forward.disabled = i === this.n - 1;
    this.refresh();
    if (!quiet && this.model.get('index') !== i) { this.model.set('index', i); this.model.save_changes(); }
  }

  refresh() {  // the panel on show, for every run (hidden ones wait until shown)
    for (const part of this.parts) { this.refreshPart(part); }
  }

  refreshPart(part) {
    const view = part.view, i = view.index;
    if (i < 0) { return; }
    if (this.tab === 'log') { part.log.follow(i); }  // only the rows on screen exist (VirtualLog)
    else if (this.tab === 'facts') { fill(part.factList, view.factNames()); }
    else if (this.tab === 'ready') { fill(part.readyList, view.readyNames()); }
    else if (this.tab === 'timeline' && part.lanes) { part.lanes.paint(i); }
    if (part.cursor) {
      const t = view.s.events[i].t;
      if (t !== null && t !== undefined) {
        const x = parseFloat(part.gantt.getAttribute('data-x0')) + t * parseFloat(part.gantt.getAttribute('data-scale'));
        part.cursor.setAttribute('x1', x); part.cursor.setAttribute('x2', x); part.cursor.setAttribute('visibility', 'visible');
      }
    }
  }

  destroy() { this.stop(); }
}

// ---- the event log, virtual (issue 43): a spacer as tall as every row, and only the rows on screen in the DOM ----
const LOG_ROW_H = 20, LOG_VIEW_H = 240, LOG_OVERSCAN = 6;  // px a row (fixed, see explorer.css), px of the box

class VirtualLog {
  constructor(view, pick) {
    this.view = view; this.n = view.n; this.current = -1; this.top = 0;
    this.body = h('tbody');
    const cols = () => h('colgroup', {}, [1, 2, 3, 4, 5].map((c) => h('col', {cls: 'pv-col' + c})));  // one width for both tables
    this.table = h('table', {cls: 'pv-log pv-events pv-vrows'}, [cols(), this.body]);
    this.spacer = h('div', {cls: 'pv-logspace', 'aria-hidden': 'true'});
    this.spacer.style.height = (this.n * LOG_ROW_H) + 'px';
    this.scroller = h('div', {cls: 'pv-logscroll', tabindex: '0', 'aria-label': 'event log: ' + this.n + ' events, click one to go to it'},
                      [this.spacer, this.table]);
    if (this.n * LOG_ROW_H < LOG_VIEW_H) { this.scroller.style.height = (this.n * LOG_ROW_H + 2) + 'px'; }  // a short run: no empty box
    const head = h('table', {cls: 'pv-log pv-events pv-loghead'}, [cols(), h('thead', {}, [h('tr', {}, ['#', 'time', 'kind', 'step', 'message'].map((t) => h('th', {text: t})))])]);
    this.el = h('div', {cls: 'pv-vlog'}, [head, this.scroller]);
    let queued = false;
    this.scroller.addEventListener('scroll', () => {
      if (!queued) { queued = true; requestAnimationFrame(() => { queued = false; this.top = this.scroller.scrollTop; this.draw(); }); }
    });
    this.body.addEventListener('click', (ev) => { const tr = ev.target.closest('tr[data-i]'); if (tr) { pick(Number(tr.getAttribute('data-i'))); } });
  }

  height() { return this.scroller.clientHeight || LOG_VIEW_H; }

  follow(i) {  // event i is the current one: marked, and scrolled to (the fourth row) when it is not on screen
    this.current = i;
    const shown = this.scroller.clientHeight ? this.scroller.scrollTop : this.top, tall = this.height();
    if (i * LOG_ROW_H < shown || (i + 1) * LOG_ROW_H > shown + tall) {
      this.top = Math.max(0, Math.min((i - 3) * LOG_ROW_H, this.n * LOG_ROW_H - tall));
      this.scroller.scrollTop = this.top;
    }
    this.draw();
  }

  draw() {  // the rows from the scroll position: the row elements are reused, only their text changes
    const top = this.scroller.clientHeight ? this.scroller.scrollTop : this.top;
    const first = Math.floor(top / LOG_ROW_H);
    const lo = Math.max(0, first - LOG_OVERSCAN), hi = Math.min(this.n, first + Math.ceil(this.height() / LOG_ROW_H) + LOG_OVERSCAN);
    const rows = this.body.rows;
    while (rows.length > hi - lo) { this.body.lastChild.remove(); }
    while (rows.length < hi - lo) { this.body.appendChild(h('tr', {}, [h('td'), h('td'), h('td'), h('td'), h('td')])); }
    for (let j = lo; j < hi; j++) {
      const tr = rows[j - lo], now = j === this.current;
      if (tr.getAttribute('data-i') !== String(j)) {
        const r = this.view.s.log[j], cells = tr.cells;
        tr.setAttribute('data-i', String(j));
        tr.className = 'pv-kind-' + r[1].replace(/[^a-z_]/g, '');
        cells[1].textContent = r[0]; cells[2].textContent = r[1]; cells[3].textContent = r[2]; cells[4].textContent = r[3];
        cells[4].title = r[3]; cells[0].textContent = String(j);
        tr.removeAttribute('data-now');
      }
      if (tr.hasAttribute('data-now') !== now) {
        tr.classList.toggle('pv-current', now);
        tr.cells[0].textContent = now ? '\u25B6' + j : String(j);
        if (now) { tr.setAttribute('data-now', ''); } else { tr.removeAttribute('data-now'); }
      }
    }
    this.table.style.transform = 'translateY(' + (lo * LOG_ROW_H) + 'px)';
  }
}
// ---- end of the event log ----

// ---- the timeline's lanes on a canvas (issue 43): every call of the run (pictures/gantt.py lane_columns), one lane
// per model and per tool, summarised per pixel column (its most telling look) when there are more calls than pixels ----
const LANE_H = 14, LANE_GAP = 4, LANE_LABEL_W = 160, LANE_TOP = 24, LANE_PAD = 10;

class LaneChart {
  constructor(view, pick) {
    const L = view.s.lanes;
    this.view = view; this.L = L; this.width = 0;
    let t0 = 0, t1 = 0;
    for (let k = 0; k < L.start.length; k++) { t0 = Math.min(t0, L.start[k]); t1 = Math.max(t1, L.end[k]); }
    view.s.events.forEach((e, i) => { const t = this.timeOf(i); if (t !== null) { t1 = Math.max(t1, t); } });
    this.t0 = t0; this.t1 = Math.max(t1, t0 + 1e-9);
    this.byStep = new Map();  // step name -> its calls, in start order
    L.step.forEach((s, k) => { if (s >= 0) { const name = L.steps[s]; if (!this.byStep.has(name)) { this.byStep.set(name, []); } this.byStep.get(name).push(k); } });
    this.canvas = h('canvas', {cls: 'planviz-lanes', role: 'img', tabindex: '0',
                               'aria-label': 'timeline: ' + L.start.length + ' calls in ' + L.lanes.length + ' lanes; click a time to go to it'});
    const unit = view.s.unit ? ' ' + view.s.unit : '';
    this.note = h('p', {cls: 'pv-lanes-note', text: 'Calls by lane: ' + L.start.length + ' calls, 0..' + Number(this.t1.toPrecision(4)) + unit
      + ' (a pixel column shows the most telling of the calls it covers: failed, running, voided, waiting, done, model call). Click to go to that time.'});
    this.el = h('div', {cls: 'pv-lanes'}, [this.note, this.canvas]);
    this.canvas.addEventListener('click', (ev) => {
      const r = this.canvas.getBoundingClientRect(), x = ev.clientX - r.left - LANE_LABEL_W;
      if (x >= 0 && this.scale) { pick(this.eventAt(this.t0 + x / this.scale)); }
    });
    this.canvas.addEventListener('pointermove', (ev) => {  // the lane and time under the pointer, as the tooltip
      const r = this.canvas.getBoundingClientRect(), x = ev.clientX - r.left - LANE_LABEL_W;
      const lane = Math.floor((ev.clientY - r.top - LANE_TOP) / (LANE_H + LANE_GAP));
      this.canvas.title = x >= 0 && this.scale && lane >= 0 && lane < L.lanes.length
        ? L.lanes[lane] + ' at t=' + Number((this.t0 + x / this.scale).toPrecision(5)) + unit + ' (click to go there)' : '';
    });
  }

  timeOf(i) {  // event i's clock, unrounded when known
    const e = this.view.s.events[i];
    if (e.t !== null && e.t !== undefined) { return e.t; }
    const t = parseFloat(this.view.s.log[i][0]);
    return Number.isFinite(t) ? t : null;
  }

  eventAt(t) {  // the first event at or after time t (events are in time order), else the last
    let lo = 0, hi = this.view.n - 1;
    while (lo < hi) { const mid = (lo + hi) >> 1, tm = this.timeOf(mid); if (tm !== null && tm < t) { lo = mid + 1; } else { hi = mid; } }
    return lo;
  }

  layout() {  // the still part, drawn once per width into an offscreen canvas: O(calls + lanes x pixels)
    const W = Math.max(320, Math.floor(this.el.clientWidth || 900));
    if (W === this.width) { return; }
    const L = this.L, lanes = L.lanes.length, codes = L.looks.length, px = W - LANE_LABEL_W - LANE_PAD;
    const H = LANE_TOP + lanes * (LANE_H + LANE_GAP) + 4, dpr = window.devicePixelRatio || 1;
    this.width = W; this.height = H; this.px = px; this.scale = px / (this.t1 - this.t0); this.dpr = dpr;
    const cover = new Int32Array(lanes * codes * (px + 1));  // per lane and look, how many calls start/stop covering each column
    for (let k = 0; k < L.start.length; k++) {
      const x0 = Math.min(px - 1, Math.max(0, Math.floor((L.start[k] - this.t0) * this.scale)));
      const x1 = Math.min(px - 1, Math.max(x0, Math.floor((L.end[k] - this.t0) * this.scale)));
      const base = (L.lane[k] * codes + L.look[k]) * (px + 1);
      cover[base + x0] += 1; cover[base + x1 + 1] -= 1;
    }
    for (const c of [this.canvas, this.base || (this.base = document.createElement('canvas'))]) { c.width = W * dpr; c.height = H * dpr; }
    this.canvas.style.width = W + 'px'; this.canvas.style.height = H + 'px';
    const g = this.base.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.fillStyle = '#fff'; g.fillRect(0, 0, W, H);
    g.font = '11px sans-serif'; g.textBaseline = 'middle';
    this.axis(g, H);
    const top = new Int8Array(px);
    for (let lane = 0; lane < lanes; lane++) {
      const y = LANE_TOP + lane * (LANE_H + LANE_GAP);
      g.fillStyle = '#222'; g.textAlign = 'right';
      const name = L.lanes[lane];
      g.fillText(name.length > 24 ? name.slice(0, 23) + '\u2026' : name, LANE_LABEL_W - 6, y + LANE_H / 2);
      g.fillStyle = '#f4f4f4'; g.fillRect(LANE_LABEL_W, y, px, LANE_H);
      top.fill(-1);
      for (let code = 0; code < codes; code++) {  // later looks win a column: the order is the priority
        const base = (lane * codes + code) * (px + 1);
        let on = 0;
        for (let x = 0; x < px; x++) { on += cover[base + x]; if (on > 0) { top[x] = code; } }
      }
      for (let x = 0; x < px;) {  // runs of one look as one rectangle
        const code = top[x];
        let end = x + 1;
        while (end < px && top[end] === code) { end += 1; }
        if (code >= 0) {
          g.fillStyle = L.fills[code]; g.fillRect(LANE_LABEL_W + x, y, end - x, LANE_H);
          g.fillStyle = L.strokes[code]; g.fillRect(LANE_LABEL_W + x, y + LANE_H - 2, end - x, 2);
        }
        x = end;
      }
    }
  }

  axis(g, H) {
    const span = this.t1 - this.t0, raw = span / 10, base = Math.pow(10, Math.floor(Math.log10(raw)));
    const tick = [1, 2, 5, 10].map((m) => m * base).find((s) => s >= raw) || base * 10;
    g.strokeStyle = '#ddd'; g.fillStyle = '#555'; g.textAlign = 'center'; g.lineWidth = 1;
    for (let t = Math.ceil(this.t0 / tick) * tick; t <= this.t1 + 1e-9; t += tick) {
      const x = Math.round(LANE_LABEL_W + (t - this.t0) * this.scale) + 0.5;
      g.beginPath(); g.moveTo(x, LANE_TOP - 4); g.lineTo(x, H); g.stroke();
      g.fillText(String(Number(t.toPrecision(6))), Math.min(x, this.width - 16), LANE_TOP - 12);
    }
  }

  paint(i) {  // a step: the still part copied, then the clock line and the current step's call outlined
    this.layout();
    if (!this.base) { return; }
    const g = this.canvas.getContext('2d'), L = this.L;
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.drawImage(this.base, 0, 0);
    g.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    const t = this.timeOf(i);
    if (t === null) { return; }
    const x = LANE_LABEL_W + (t - this.t0) * this.scale;
    g.fillStyle = L.now; g.fillRect(Math.round(x) - 1, LANE_TOP - 6, 2, this.height - LANE_TOP + 6);
    const calls = this.byStep.get(this.view.s.log[i][2]) || [];
    let k = -1;  // the step's latest call begun by now (a tool call over a model call at the same start)
    for (const c of calls) { if (L.start[c] <= t + 1e-9 && (k < 0 || L.start[c] > L.start[k] || (L.start[c] === L.start[k] && L.look[c] > 0))) { k = c; } }
    this.currentCall = k;
    if (k < 0) { return; }
    const x0 = LANE_LABEL_W + (L.start[k] - this.t0) * this.scale, w = Math.max(3, (L.end[k] - L.start[k]) * this.scale);
    const y = LANE_TOP + L.lane[k] * (LANE_H + LANE_GAP);
    g.strokeStyle = '#000'; g.lineWidth = 2; g.strokeRect(x0 - 2, y - 2, w + 4, LANE_H + 4);
  }
}
// ---- end of the timeline's lanes ----

function render({model, el}) {
  el.classList.add('planviz-explorer');
  if (model.get('fallback_key')) { el.setAttribute('data-planviz-key', model.get('fallback_key')); }  // its fallback hides
  if (!el.hasAttribute('tabindex')) { el.setAttribute('tabindex', '0'); }
  let app = null;
  const build = () => {
    if (app) { app.destroy(); }
    const snap = pageSnapshot(model);
    if (!snap || !(snap.events || snap.pair)) { el.textContent = 'this run has no events'; app = null; return; }
    app = new App(el, model);
    app.show(model.get('index') || 0, true);
    const still = window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;
    if (snap.autoplay && !still) { app.play(); }  // a flipbook plays by itself, unless the reader asks for no motion
  };
  const moved = () => {  // the kernel (or a script) moved the index: follow it; our own steps (play) come back here too
    const i = model.get('index') || 0;
    if (app && i !== app.index) { app.stop(); app.show(i, true); }
  };
  const mode = () => { const s = el.querySelector('.pv-mode'); if (s) { s.textContent = model.get('mode') ? model.get('mode') + ' \u00B7 ' : ''; } };
  const status = () => { if (app && app.faultStatus) { app.faultStatus.textContent = model.get('fault_status') || ''; } };
  const notice = () => { const s = el.querySelector('.planviz-view-status'); if (s) { s.textContent = model.get('view_notice') || ''; } };
  const custom = (msg) => { if (app && msg && msg.kind === 'play') { app.play(); } };
  model.on('change:snapshot', build);
  model.on('change:index', moved);
  model.on('change:fault_status', status);
  model.on('change:mode', mode);
  model.on('change:view_notice', notice);
  model.on('msg:custom', custom);
  build();
  return () => {
    if (app) { app.destroy(); }
    model.off('change:snapshot', build); model.off('change:index', moved);
    model.off('change:fault_status', status); model.off('change:view_notice', notice); model.off('change:mode', mode);
    model.off('msg:custom', custom);
  };
}

export default { render };
