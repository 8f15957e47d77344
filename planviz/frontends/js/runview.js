// @ts-check
// One run: its pictures, facts and ready set at any event, and the panels around them. Each plan version's
// picture is laid out once by Graphviz in Python and restyled here from the per-event delta table
// (deltatable.py): event i lists [node, look before, look after] triples (d), the facts gained (g) and lost (l),
// the steps that became (ri) and stopped being (ro) ready, what it voided (vo) and kept (ke) and the picture's
// caption lines (c), kept only for the events whose lines eventLines cannot compose from the log row.
import { h, markup, turnsBox } from './dom.js';
import { noStep, stepDetails } from './details.js';

const XLINK = 'http://www.w3.org/1999/xlink';
export const FLAGS = ['voided', 'kept', 'conflict', 'not_run'];

/**
 * A node of a picture, found once.
 * @typedef {object} PictureNode
 * @property {Element} g
 * @property {NodeListOf<Element>} shapes
 * @property {Element | undefined} text
 * @property {NodeListOf<Element>} links
 * @property {string} tip
 */

/**
 * A plan version's picture in the page.
 * @typedef {object} Picture
 * @property {HTMLElement} box
 * @property {SVGSVGElement | null} svg
 * @property {(PictureNode | null)[]} nodes
 * @property {number[]} looks
 * @property {number} width
 * @property {NodeListOf<Element>} lines
 * @property {Map<string, number>} [index]
 */

/** @typedef {{following: boolean}} Host what a run view asks of the app around it */

/**
 * The picture's caption lines of event i of a run whose last event is `end`, composed from its log row where the
 * page data keeps none (c): the text the captions of pictures say (captions.py event_caption, the time as the log
 * writes it), on the first line when it fits `rule.width`, else cut at its last space within the first
 * width + 1 characters; blank lines to `rule.lines`. Python keeps the lines of every event this rule would get
 * wrong (captions.py event_lines_stored), so this is the rule, exactly, and nothing more.
 * @param {number} i
 * @param {number} end
 * @param {import('./types.js').LogRow} row
 * @param {string | undefined} unit
 * @param {import('./types.js').EventLinesRule} rule
 * @returns {string[]}
 */
export function eventLines(i, end, row, unit, rule) {
  const text = 'event ' + i + ' of ' + end + ' \u00b7 t = ' + row.time + (unit ? ' ' + unit : '') + ' \u00b7 ' +
    row.kind + (row.step ? ' ' + row.step : '') + ': ' + row.message;
  /** @type {string[]} */
  let lines = [text];
  if (text.length > rule.width) {
    const cut = text.lastIndexOf(' ', rule.width);
    lines = [text.slice(0, cut), text.slice(cut + 1)];
  }
  while (lines.length < rule.lines) { lines.push(' '); }
  return lines;
}

export class RunView {
  /**
   * @param {import('./types.js').RunSnapshot} snap
   * @param {Host} host
   */
  constructor(snap, host) {
    this.s = snap; this.host = host;
    this.n = snap.events.length;
    /** @type {number[]} */
    this.version = []; let v = 0;
    snap.events.forEach((e, i) => { if (e.v !== undefined) { v = e.v; } this.version[i] = v; });
    /** @type {(Picture | null)[]} */
    this.pictures = snap.versions.map(() => null);
    // the facts held and the steps ready, one flag per fact and per step (a list in order is one pass, no sort)
    this.facts = new Uint8Array(snap.facts.length); this.ready = new Uint8Array(snap.steps.length);
    for (const x of snap.last_facts) { this.facts[x] = 1; }
    for (const x of snap.last_ready) { this.ready[x] = 1; }
    this.at = this.n - 1; this.index = -1;
    this.zoom = 0;  // 0: fit the width; else a scale of the natural size
    /** @type {string | null} */
    this.selected = null; this.query = '';
    /** @type {number | undefined} */
    this.shown = undefined;
    /** @type {string | undefined} */
    this.legendKeys = undefined;
    /** @type {Element | null} */
    this.nowNode = null;
    /** @type {Element[]} the nodes marked as the current step's: its own, or the groups that sum it up */
    this.nowMarked = [];
    /** @type {{head: HTMLElement, rest: Text, scope: HTMLElement, br: HTMLElement} | null} */
    this.captionParts = null;
    this.el = h('div', {cls: 'pv-run'});
    this.caption = h('p', {cls: 'pv-caption', 'aria-live': 'polite'});
    this.diagram = h('div', {cls: 'planviz-diagram pv-fit', role: 'img', 'aria-label': 'plan diagram: click a step for its details', tabindex: '-1'});
    this.legend = h('div', {cls: 'planviz-legend', 'aria-label': 'legend'});
    this.details = h('aside', {cls: 'planviz-details', 'aria-label': 'step details', 'aria-live': 'polite'}, noStep(snap));
    const turns = snap.turns || [];
    this.turns = turns.length ? turnsBox(turns) : null;
    this.el.append(this.caption, h('div', {cls: 'pv-picture'}, [this.diagram, h('div', {cls: 'pv-side' + (this.turns ? ' pv-chat' : '')}, [this.legend, this.details, this.turns])]));
    const list = this.turns && this.turns.querySelector('ol');
    if (list) { requestAnimationFrame(() => { list.scrollTop = list.scrollHeight; }); }
    this.diagram.addEventListener('click', (ev) => this.clicked(ev));
    this.diagram.addEventListener('wheel', (ev) => {
      if (!ev.ctrlKey) { return; }
      ev.preventDefault(); this.setZoom(ev.deltaY < 0 ? 1.25 : 0.8);
    }, {passive: false});
    /** @type {number[] | null} */
    let drag = null;  // pan a zoomed picture by dragging it
    this.diagram.addEventListener('pointerdown', (ev) => {
      const target = /** @type {Element} */ (ev.target);
      if (this.zoom && !target.closest('g.node')) { drag = [ev.clientX, ev.clientY, this.diagram.scrollLeft, this.diagram.scrollTop]; }
    });
    this.diagram.addEventListener('pointermove', (ev) => {
      if (drag) { this.diagram.scrollLeft = drag[2] - (ev.clientX - drag[0]); this.diagram.scrollTop = drag[3] - (ev.clientY - drag[1]); }
    });
    window.addEventListener('pointerup', () => { drag = null; });
  }

  /**
   * Version k's picture, built once from its SVG; its nodes found once.
   * @param {number} k
   * @returns {Picture}
   */
  picture(k) {
    const built = this.pictures[k];
    if (built) { return built; }
    const spec = this.s.versions[k];
    const box = h('div', {cls: 'pv-version', 'data-v': String(k)});
    box.style.minWidth = (spec.legible || 0) + 'px';
    box.appendChild(markup(spec.svg));
    box.hidden = true;
    this.diagram.appendChild(box);
    /** @type {Record<string, Element>} */
    const byId = {};
    box.querySelectorAll('g.node').forEach((g) => { byId[g.getAttribute('id') || ''] = g; });
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
    const pic = {box, svg, nodes, looks: spec.looks.slice(), width: vb ? vb.width * 4 / 3 : 0,
                 lines: box.querySelectorAll('svg text.event-line')};
    this.pictures[k] = pic;
    this.applyZoom(pic);
    return pic;
  }

  /**
   * Node j of a picture in look `look` (its class, flags, outline slots, status word and tooltip end).
   * @param {Picture} pic
   * @param {number} j
   * @param {number} look
   */
  paint(pic, j, look) {
    const node = pic.nodes[j];
    pic.looks[j] = look;
    if (!node) { return; }
    const L = this.s.looks[look], cls = node.g.classList;
    for (const c of Array.from(cls)) { if (c.startsWith('status-') || FLAGS.includes(c)) { cls.remove(c); } }
    cls.add(L.status);
    FLAGS.forEach((flag, b) => { if (L.flags & (1 << b)) { cls.add(flag); } });
    const first = node.shapes[0], outer = node.shapes[1];
    if (first) {
      first.setAttribute('fill', L.fill); first.setAttribute('stroke', L.stroke);
      first.setAttribute('stroke-width', L.width); first.setAttribute('stroke-dasharray', L.dash);
    }
    if (outer) { outer.setAttribute('stroke', L.outer_stroke); outer.setAttribute('stroke-width', L.outer_width); outer.setAttribute('stroke-dasharray', L.outer_dash); }
    if (node.text) { node.text.textContent = L.word; }
    const title = node.tip + (L.tip ? '\n' + L.tip : '');
    for (const a of node.links) { a.setAttributeNS(XLINK, 'xlink:title', title); }
  }

  /**
   * Event i's changes, forward (frame i-1 to i) or backward (i to i-1); with `later`, the picture's looks change
   * as numbers only and the nodes changed join `later` (painted once at the end of a long walk: a jump across
   * 100k events touches each node once, not once per event).
   * @param {number} i
   * @param {boolean} forward
   * @param {Map<Picture, Set<number>>} [later]
   */
  apply(i, forward, later) {
    const e = this.s.events[i], pic = this.picture(this.version[i]), d = e.d || [];
    if (later) {
      let dirty = later.get(pic);
      if (!dirty) { dirty = new Set(); later.set(pic, dirty); }
      for (let k = 0; k < d.length; k += 3) { pic.looks[d[k]] = d[k + (forward ? 2 : 1)]; dirty.add(d[k]); }
    } else {
      for (let k = 0; k < d.length; k += 3) { this.paint(pic, d[k], d[k + (forward ? 2 : 1)]); }
    }
    /** @param {number[] | undefined} items @param {Uint8Array} flags @param {boolean} add */
    const swap = (items, flags, add) => { for (const x of items || []) { flags[x] = add ? 1 : 0; } };
    swap(e.l, this.facts, !forward); swap(e.g, this.facts, forward);
    swap(e.ro, this.ready, !forward); swap(e.ri, this.ready, forward);
  }

  /**
   * Frame i: picture, caption, legend, panels.
   * @param {number} i
   */
  show(i) {
    const s = this.s;
    i = Math.max(0, Math.min(this.n - 1, i));
    /** @type {Map<Picture, Set<number>> | undefined} */
    const later = Math.abs(i - this.at) > 1 ? new Map() : undefined;  // a jump: each node painted once, at the end
    while (this.at < i) { this.at += 1; this.apply(this.at, true, later); }
    while (this.at > i) { this.apply(this.at, false, later); this.at -= 1; }
    if (later) { later.forEach((dirty, pic) => dirty.forEach((j) => this.paint(pic, j, pic.looks[j]))); }
    this.index = i;
    const k = this.version[i], pic = this.picture(k), e = s.events[i], row = s.log[i];
    // Only what differs from the frame before is touched: a step on a big plan costs a few nodes, not the picture.
    if (this.shown !== k) { this.pictures.forEach((p, j) => { if (p) { p.box.hidden = j !== k; } }); this.shown = k; }
    const said = e.c || eventLines(i, this.n - 1, row, s.unit, s.event_lines);
    pic.lines.forEach((line, j) => { const text = j < said.length ? said[j] : ' '; if (line.textContent !== text) { line.textContent = text; } });
    if (!this.captionParts) {
      this.captionParts = {head: h('b'), rest: document.createTextNode(''), scope: h('span', {cls: 'pv-scope'}), br: h('br')};
      this.caption.append(this.captionParts.head, this.captionParts.rest);
    }
    const cap = this.captionParts;
    cap.head.textContent = 'Event ' + i + ' of ' + (this.n - 1) + ': ' + row.kind + (row.step ? ' ' + row.step : '');
    let rest = ' at t=' + row.time + (s.unit ? ' ' + s.unit : '');
    if (row.message) { rest += ' \u2014 ' + row.message; }
    if (s.versions[k].version > 1) { rest += ' (plan v' + s.versions[k].version + ')'; }
    cap.rest.data = rest;
    if ((e.vo || []).length || (e.ke || []).length) {
      /** @param {number[] | undefined} xs */
      const names = (xs) => (xs || []).map((x) => s.steps[x]).join(', ') || '(none)';
      cap.scope.textContent = 'voided: ' + names(e.vo) + '; kept: ' + names(e.ke);
      if (!cap.scope.isConnected) { this.caption.append(cap.br, cap.scope); }
    } else if (cap.scope.isConnected) { cap.br.remove(); cap.scope.remove(); }
    this.showLegend(pic, k);
    this.followStep(pic, k, row.step);
    if (this.turns) {  // the turns said after this event's time are dimmed (those of unknown time stay as they are)
      const now = e.t !== null && e.t !== undefined ? e.t : parseFloat(row.time);  // the clock, unrounded
      const turns = s.turns || [];
      this.turns.querySelectorAll('li.pv-turn').forEach((li, j) => {
        const t = turns[j] ? turns[j].time : null;
        li.classList.toggle('pv-later', t !== null && t !== undefined && t > now);
      });
    }
    if (this.query) { this.search(this.query); }
    if (this.selected !== null) { this.showDetails(this.selected); }
  }

  /**
   * The legend of the looks on screen, rebuilt only when they change.
   * @param {Picture} pic
   * @param {number} k
   */
  showLegend(pic, k) {
    const on = new Set(this.s.versions[k].legend);
    pic.looks.forEach((look, j) => { if (pic.nodes[j]) { on.add(this.s.look_legend[look]); } });
    const keys = this.s.legend.filter(({key}) => on.has(key)).map(({key}) => key).join(' ');
    if (keys === this.legendKeys) { return; }
    this.legendKeys = keys;
    const ul = h('ul', {cls: 'pv-legend'});
    for (const {key, text, fill: fillColour, stroke, width, style} of this.s.legend) {
      if (!on.has(key)) { continue; }
      const swatch = h('span', {cls: 'pv-swatch', 'aria-hidden': 'true'});
      swatch.style.background = fillColour; swatch.style.border = width + 'px ' + style + ' ' + stroke;
      ul.appendChild(h('li', {cls: 'pv-legend-' + key}, [swatch, text]));
    }
    this.legend.replaceChildren(h('p', {cls: 'pv-legend-title', text: 'Legend'}), ul);
  }

  /**
   * The numbers flagged (facts held, steps ready), in their order.
   * @param {Uint8Array} flags
   * @returns {number[]}
   */
  held(flags) {
    /** @type {number[]} */
    const out = [];
    for (let k = 0; k < flags.length; k++) { if (flags[k]) { out.push(k); } }
    return out;
  }

  /** @param {MouseEvent} ev */
  clicked(ev) {
    const g = ev.target instanceof Element ? ev.target.closest('g.node[data-step]') : null;
    if (g) { ev.preventDefault(); this.showDetails(g.getAttribute('data-step') || ''); }
  }

  /**
   * What a click on a step shows: the step, its facts, its attempts so far.
   * @param {string} sid
   */
  showDetails(sid) {
    this.selected = sid;
    stepDetails(this.details, this.s, sid, this.index, () => { this.selected = null; this.details.replaceChildren(...noStep(this.s)); });
  }

  // ---- the picture follows the current step (issue 43): its node marked, scrolled into view while following ----
  /**
   * Mark the current step's node (a step summed up in a group: the group nodes the event restyled, which
   * hold it) and, while following, scroll the picture to it.
   * @param {Picture} pic
   * @param {number} k
   * @param {string} sid
   */
  followStep(pic, k, sid) {
    if (!pic.index) { pic.index = new Map(this.s.versions[k].ids.map((id, j) => [id, j])); }
    const j = sid ? pic.index.get(sid) : undefined, node = j === undefined ? null : pic.nodes[j];
    /** @type {Element[]} */
    let marked = node ? [node.g] : [];
    if (sid && j === undefined) {  // a step summed up in a group: the group nodes this event restyled (its own among them)
      const spec = this.s.versions[k], d = this.s.events[this.index].d || [];
      for (let x = 0; x < d.length; x += 3) {
        const g = pic.nodes[d[x]];
        if (g && spec.nodes[d[x]].startsWith('group-') && !marked.includes(g.g)) { marked.push(g.g); }
      }
    }
    if (marked.length !== this.nowMarked.length || marked.some((g, x) => g !== this.nowMarked[x])) {
      this.nowMarked.forEach((g) => g.removeAttribute('data-now'));  // an attribute: the node's classes stay render's
      marked.forEach((g) => g.setAttribute('data-now', ''));
      this.nowMarked = marked;
    }
    this.nowNode = marked.length ? marked[0] : null;
    if (this.nowNode && this.host.following) { this.scrollTo(this.nowNode); }
  }

  /**
   * Scroll the picture (only the picture, never the page) so that g is inside it, centred when it was not.
   * @param {Element} g
   */
  scrollTo(g) {
    const box = this.diagram.getBoundingClientRect(), r = g.getBoundingClientRect();
    if (!box.height || !box.width) { return; }
    if (r.top < box.top || r.bottom > box.bottom) { this.diagram.scrollTop += (r.top + r.bottom) / 2 - (box.top + box.bottom) / 2; }
    if (r.left < box.left || r.right > box.right) { this.diagram.scrollLeft += (r.left + r.right) / 2 - (box.left + box.right) / 2; }
  }
  // ---- end of following ----

  /**
   * Mark the steps whose id, tool, kind or action contains q.
   * @param {string} q
   * @returns {string[]} the matches
   */
  search(q) {
    this.query = q;
    const pic = this.pictures[this.version[this.index]];
    const needle = q.trim().toLowerCase();
    /** @type {string[]} */
    const found = [];
    if (!pic) { return found; }
    pic.nodes.forEach((node, j) => {
      if (!node) { return; }
      const sid = this.s.versions[this.version[this.index]].ids[j], d = this.s.details[sid];
      const hit = needle !== '' && [sid, d && d.tool, d && d.kind, d && d.action].some((x) => (x || '').toLowerCase().includes(needle));
      node.g.classList.toggle('pv-match', hit);
      if (hit) { found.push(sid); }
    });
    return found;
  }

  /**
   * Scroll to and focus step sid in the picture shown, and show its details.
   * @param {string} sid
   * @returns {boolean} whether the picture shows it
   */
  reveal(sid) {
    const g = /** @type {SVGGElement | null} */ (this.diagram.querySelector('.pv-version:not([hidden]) g.node[data-step="' + CSS.escape(sid) + '"]'));
    if (g) { g.scrollIntoView({block: 'nearest', inline: 'nearest'}); g.focus({preventScroll: true}); }
    this.showDetails(sid);
    return !!g;
  }

  /** @param {number} factor 0: fit the width again */
  setZoom(factor) {
    if (!factor) { this.zoom = 0; }
    else { this.zoom = Math.max(0.1, Math.min(8, (this.zoom || this.fitScale()) * factor)); }
    this.pictures.forEach((p) => { if (p) { this.applyZoom(p); } });
  }

  /** @returns {number} the scale at which the picture shown fits the width */
  fitScale() {
    const p = this.pictures[this.version[Math.max(0, this.index)]];
    return p && p.width ? Math.min(1, this.diagram.clientWidth / p.width) : 1;
  }

  /** @param {Picture} p */
  applyZoom(p) {
    this.diagram.classList.toggle('pv-fit', !this.zoom);
    if (p.svg) { p.svg.style.width = this.zoom && p.width ? (p.width * this.zoom) + 'px' : ''; }
    p.box.style.minWidth = this.zoom ? '' : (this.s.versions[Number(p.box.getAttribute('data-v'))].legible || 0) + 'px';
  }
}
