// @ts-check
// The stepper, tabs and controls around one run, or around several runs (or chosen frames) on one stepper:
// a snapshot with `pair` (the runs' own snapshots), `ticks` (the event of each run at each tick), `labels` and
// `notes` (a line per tick). `autoplay` ({ms, hold}) makes a flipbook: it plays in a loop by itself, holding the
// last frame `hold` times longer and pausing while the pointer is over the pictures.
// Stepping, play, the clock, hover, details, search and zoom run here; only fault injection and a new view
// of a big plan ask the kernel (model.send), which answers with a new snapshot.
import { h, markup } from './dom.js';
import { pageSnapshot } from './pagedata.js';
import { RunView } from './runview.js';
import { VirtualLog, VirtualList } from './eventlog.js';
import { LaneChart } from './lanes.js';
import { faultPanel } from './faults.js';

export const PLAY_MS = 900;

/**
 * One run's part of the tabs.
 * @typedef {object} Part
 * @property {RunView} view
 * @property {number} j
 * @property {VirtualLog} log
 * @property {VirtualList} factList
 * @property {VirtualList} readyList
 * @property {LaneChart | null} lanes
 * @property {SVGSVGElement | null} gantt
 * @property {Element | null} cursor
 */

export class App {
  /**
   * @param {HTMLElement} root
   * @param {import('./types.js').Model} model
   */
  constructor(root, model) {
    this.root = root; this.model = model;
    this.snap = /** @type {import('./types.js').Snapshot} */ (pageSnapshot(model));
    this.pair = !!this.snap.pair;
    this.runs = this.snap.pair ? this.snap.pair.map((s) => new RunView(s, this)) : [new RunView(this.snap, this)];
    this.many = this.runs.length > 1;
    this.ticks = this.snap.ticks || [];
    this.n = this.pair ? this.ticks.length : this.runs[0].n;
    /** @type {ReturnType<typeof setInterval> | null} */
    this.timer = null;
    this.index = -1; this.following = true; this.hovered = false; this.tab = 'log';
    /** @type {HTMLElement | null} */
    this.faultStatus = null;
    /** @type {HTMLInputElement | null} */
    this.hops = null;
    /** @type {Part[]} */
    this.parts = [];
    const button = () => h('button');
    this.first = button(); this.back = button(); this.playButton = button(); this.forward = button(); this.last = button();
    this.slider = h('input'); this.find = h('input'); this.found = h('span');
    /** @type {HTMLElement | null} */
    this.note = null;
    /** @type {HTMLElement | null} */
    this.diffBox = null;
    this.build();
  }

  /**
   * A button of the controls.
   * @param {string} cls
   * @param {string} label
   * @param {string} text
   * @param {() => void} onclick
   * @param {string} [key] its keyboard shortcut, said in its title
   * @returns {HTMLButtonElement}
   */
  control(cls, label, text, onclick, key) {
    return h('button', {type: 'button', cls, 'aria-label': label, title: label + (key ? ' (' + key + ')' : ''), text, onclick});
  }

  build() {
    const first = this.runs[0].s, m = this.model;
    const head = h('header', {cls: 'pv-head'});
    const labels = this.snap.labels || [];
    const title = this.many ? labels.join(' vs ') : first.goal;
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
    if (this.snap.pair && this.snap.diff) {  // what diff_runs found, and a jump to where the runs first part
      const first = this.snap.pair.length && (this.snap.notes || []).findIndex((x) => x.startsWith('first divergence'));
      const diverge = this.control('planviz-diverge', 'go to the first divergence', 'first divergence', () => this.go(first), '');
      tools.append(diverge);
      if (first < 0) { diverge.disabled = true; }
      this.diffBox = h('details', {cls: 'pv-diff'}, [h('summary', {text: 'What differs'}), h('pre', {text: this.snap.diff})]);
    }
    const runs = this.columns('pv-runs');
    this.runs.forEach((r, j) => {
      if (this.many) { r.el.prepend(h('h3', {cls: 'pv-label', text: labels[j]})); }
      runs.appendChild(r.el);
    });
    if (this.snap.autoplay) {  // a flipbook pauses while the pointer is over its pictures
      runs.addEventListener('pointerenter', () => { this.hovered = true; });
      runs.addEventListener('pointerleave', () => { this.hovered = false; });
    }
    this.root.replaceChildren(head, nav, tools, ...(this.note ? [this.note] : []), ...(this.diffBox ? [this.diffBox] : []), runs, this.panels());
    this.root.addEventListener('keydown', (ev) => this.key(ev));
  }

  /** @returns {HTMLElement} on by default: the picture scrolls to the current step; off, it stays where the reader put it */
  followToggle() {  // on by default: the picture scrolls to the current step; off, it stays where the reader put it
    const box = h('input', {type: 'checkbox', cls: 'planviz-follow', 'aria-label': 'the picture follows the current step'});
    box.checked = this.following;
    box.addEventListener('change', () => {
      this.following = box.checked;
      if (this.following) { this.runs.forEach((r) => { if (r.nowNode) { r.scrollTo(r.nowNode); } }); }
    });
    return h('label', {cls: 'pv-follow', title: 'scroll the picture to the current step'}, [box, ' follow the step']);
  }

  /**
   * A box with one column per run (several runs: side by side, or stacked when `arrange` says so).
   * @param {string} cls
   * @returns {HTMLElement}
   */
  columns(cls) {  // a box with one column per run (several runs: side by side, or stacked when `arrange` says so)
    const box = h('div', {cls: cls + (this.many ? ' pv-many' : '')});
    if (this.many) { box.style.gridTemplateColumns = this.snap.arrange === 'column' ? 'minmax(0, 1fr)' : 'repeat(' + this.runs.length + ', minmax(0, 1fr))'; }
    return box;
  }

  /** @returns {HTMLElement} the tabs under the pictures; with several runs each tab shows every run's own panel, labelled */
  panels() {
    const m = this.model, s = this.runs[0].s, labels = this.snap.labels || [];
    /** @type {[string, string][]} */
    const tabs = [['Event log', 'log'], ['Facts', 'facts'], ['Ready', 'ready'], ['Timeline', 'timeline'], ['Metrics', 'metrics']];
    const extra = s.tabs || [];  // markup planviz made in Python (the alignment of a declared plan)
    extra.forEach(([label], j) => tabs.push([label, 'extra' + j]));
    const bar = h('div', {cls: 'pv-tabs', role: 'tablist'});
    /** @type {Record<string, HTMLElement>} */
    const boxes = {};
    this.tab = 'log';
    /** @param {string} name */
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
    /** @type {Record<string, HTMLElement>} */
    const cols = {};
    for (const name of Object.keys(boxes)) { cols[name] = this.columns('pv-cols'); boxes[name].appendChild(cols[name]); }
    this.parts = this.runs.map((view, j) => {
      /** @param {string} name @param {...Node} children run j's part of tab `name`, under its label when there are several */
      const cell = (name, ...children) => {
        const c = h('div', {cls: 'pv-col', 'data-run': String(j)}, this.many ? [h('h4', {cls: 'pv-label', text: labels[j]})] : []);
        c.append(...children); cols[name].appendChild(c); return c;
      };
      const log = new VirtualLog(view, (e) => this.go(this.tickOf(j, e)));
      cell('log', log.el);
      const factList = new VirtualList('pv-list pv-facts', 'facts held'); cell('facts', factList.el);
      const readyList = new VirtualList('pv-list pv-ready', 'steps ready'); cell('ready', readyList.el);
      const lanes = view.s.lanes && view.s.lanes.lanes.length ? new LaneChart(view, (e) => this.go(this.tickOf(j, e))) : null;
      const timeline = cell('timeline', ...(lanes ? [lanes.el] : []), markup(view.s.gantt));
      /** @type {SVGSVGElement | null} */
      const gantt = timeline.querySelector('svg.planviz-gantt');
      const cursor = gantt && gantt.querySelector('.planviz-now');
      extra.forEach((_, jj) => { const mine = (view.s.tabs || [])[jj]; cell('extra' + jj, mine ? markup(mine[1]) : h('p', {cls: 'pv-empty', text: '(none)'})); });
      cell('metrics', h('table', {cls: 'pv-log pv-metrics'}, view.s.metrics.map(({name: k, value: v}) => h('tr', {}, [h('th', {text: k}), h('td', {text: v})]))));
      return {view, j, log, factList, readyList, lanes, gantt, cursor};
    });
    const lower = h('div', {cls: 'pv-lower'});
    if (m.get('interactive')) { const faults = faultPanel(m); this.faultStatus = faults.status; lower.appendChild(faults.el); }
    lower.appendChild(h('div', {cls: 'pv-tabbox'}, [bar, ...Object.values(boxes)]));
    select('log');
    return lower;
  }

  /**
   * The first tick at which run j shows event e (one run without ticks: e itself).
   * @param {number} j
   * @param {number} e
   * @returns {number}
   */
  tickOf(j, e) {
    if (!this.pair) { return e; }
    const k = this.ticks.findIndex((t) => t[j] >= e);
    return k < 0 ? this.n - 1 : k;
  }

  /** @param {boolean} go whether to go to the first match (Enter), or only mark them */
  search(go) {
    const q = this.find.value;
    /** @type {string[]} */
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
      this.model.send({kind: 'view', mode: 'focus', step: sid, hops: this.hops ? parseInt(this.hops.value, 10) || 0 : 0});
    }
  }

  /** @param {KeyboardEvent} ev */
  key(ev) {
    const t = ev.target instanceof Element ? ev.target : null, k = ev.key;
    if (ev.altKey || ev.ctrlKey || ev.metaKey || (t && t.closest('input, select, textarea'))) { return; }
    if ((k === ' ' || k === 'Enter') && t && t.closest('button')) { return; }  // the button's own click
    if (k === 'ArrowRight') { this.go(this.index + 1); }
    else if (k === 'ArrowLeft') { this.go(this.index - 1); }
    else if (k === 'Home') { this.go(0); }
    else if (k === 'End') { this.go(this.n - 1); }
    else if (k === ' ' || k === 'p' || k === 'P') { this.play(); }
    else if (k === 'Enter' && t && t.closest('g.node[data-step]')) {  // the details in the run the step is drawn in
      const view = this.runs.find((r) => r.diagram.contains(t)) || this.runs[0], node = t.closest('g.node');
      view.showDetails((node && node.getAttribute('data-step')) || '');
    }
    else { return; }
    ev.preventDefault();
  }

  stop() { if (this.timer) { clearInterval(this.timer); this.timer = null; this.playButton.textContent = '\u25B6 play'; this.playButton.setAttribute('aria-label', 'play'); } }

  /** One frame every PLAY_MS (a flipbook: its own pace, in a loop) until paused or at the end. */
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

  /** @param {number} i */
  go(i) { this.stop(); this.show(i); }

  /**
   * Draw frame i; tell the model (the kernel keeps ex.index) unless it told us.
   * @param {number} i
   * @param {boolean} [quiet]
   */
  show(i, quiet) {  // draw frame i; tell the model (the kernel keeps ex.index) unless it told us
    i = Math.max(0, Math.min(this.n - 1, i));
    if (i === this.index) { return; }
    this.index = i;
    if (this.pair) {
      this.ticks[i].forEach((at, j) => this.runs[j].show(at));
      if (this.note) { this.note.textContent = (this.snap.notes || [])[i] || ''; }
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

  /** @param {Part} part */
  refreshPart(part) {
    const view = part.view, i = view.index;
    if (i < 0) { return; }
    if (this.tab === 'log') { part.log.follow(i); }  // only the rows on screen exist (VirtualLog)
    else if (this.tab === 'facts') { part.factList.show(view.held(view.facts), (k) => view.s.facts[k]); }  // virtual lists
    else if (this.tab === 'ready') { part.readyList.show(view.held(view.ready), (k) => view.s.steps[k]); }
    else if (this.tab === 'timeline' && part.lanes) { part.lanes.paint(i); }
    if (part.cursor) {
      const t = view.s.events[i].t;
      if (t !== null && t !== undefined && part.gantt) {
        const x = String(parseFloat(part.gantt.getAttribute('data-x0') || '') + t * parseFloat(part.gantt.getAttribute('data-scale') || ''));
        part.cursor.setAttribute('x1', x); part.cursor.setAttribute('x2', x); part.cursor.setAttribute('visibility', 'visible');
      }
    }
  }

  destroy() { this.stop(); }
}
