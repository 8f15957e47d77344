// @ts-check
// The timeline's lanes on a canvas (issue 43): every call of the run (pictures/gantt.py lane_columns), one lane
// per model and per tool, summarised per pixel column (its most telling look) when there are more calls than pixels.
import { h } from './dom.js';

export const LANE_H = 14, LANE_GAP = 4, LANE_LABEL_W = 160, LANE_TOP = 24, LANE_PAD = 10;

/**
 * The per-pixel summary of every lane: for lane l and pixel column x, the look code shown there (the highest
 * code among the calls covering that column: the order of `looks` is the priority), or -1 for none. A call
 * covers the columns from its start's to its end's (at least one), clamped to the chart.
 * @param {import('./types.js').Lanes} L
 * @param {number} t0 the time at column 0
 * @param {number} scale px per time unit
 * @param {number} px columns
 * @returns {Int8Array[]} one array of `px` codes per lane
 */
export function laneColumns(L, t0, scale, px) {
  const lanes = L.lanes.length, codes = L.looks.length;
  const cover = new Int32Array(lanes * codes * (px + 1));  // per lane and look, how many calls start/stop covering each column
  for (let k = 0; k < L.start.length; k++) {
    const x0 = Math.min(px - 1, Math.max(0, Math.floor((L.start[k] - t0) * scale)));
    const x1 = Math.min(px - 1, Math.max(x0, Math.floor((L.end[k] - t0) * scale)));
    const base = (L.lane[k] * codes + L.look[k]) * (px + 1);
    cover[base + x0] += 1; cover[base + x1 + 1] -= 1;
  }
  const out = [];
  for (let lane = 0; lane < lanes; lane++) {
    const top = new Int8Array(px).fill(-1);
    for (let code = 0; code < codes; code++) {  // later looks win a column
      const base = (lane * codes + code) * (px + 1);
      let on = 0;
      for (let x = 0; x < px; x++) { on += cover[base + x]; if (on > 0) { top[x] = code; } }
    }
    out.push(top);
  }
  return out;
}

/**
 * The axis's tick step for a span: 1, 2 or 5 times a power of ten, the first at least a tenth of the span.
 * @param {number} span
 * @returns {number}
 */
export function tickStep(span) {
  const raw = span / 10, base = Math.pow(10, Math.floor(Math.log10(raw)));
  return [1, 2, 5, 10].map((m) => m * base).find((s) => s >= raw) || base * 10;
}

export class LaneChart {
  /**
   * @param {{n: number, s: import('./types.js').RunSnapshot}} view the run view whose calls these are
   * @param {(i: number) => void} pick what a click at the time of event i does
   */
  constructor(view, pick) {
    const L = /** @type {import('./types.js').Lanes} */ (view.s.lanes);
    this.view = view; this.L = L; this.width = 0; this.height = 0; this.px = 0; this.scale = 0; this.dpr = 1;
    /** @type {HTMLCanvasElement | null} */
    this.base = null;
    this.currentCall = -1;
    let t0 = 0, t1 = 0;
    for (let k = 0; k < L.start.length; k++) { t0 = Math.min(t0, L.start[k]); t1 = Math.max(t1, L.end[k]); }
    view.s.events.forEach((e, i) => { const t = this.timeOf(i); if (t !== null) { t1 = Math.max(t1, t); } });
    this.t0 = t0; this.t1 = Math.max(t1, t0 + 1e-9);
    /** @type {Map<string, number[]>} */
    this.byStep = new Map();  // step name -> its calls, in start order
    L.step.forEach((s, k) => {
      if (s < 0) { return; }
      const name = L.steps[s], calls = this.byStep.get(name);
      if (calls) { calls.push(k); } else { this.byStep.set(name, [k]); }
    });
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

  /**
   * Event i's clock, unrounded when known.
   * @param {number} i
   * @returns {number | null}
   */
  timeOf(i) {
    const e = this.view.s.events[i];
    if (e.t !== null && e.t !== undefined) { return e.t; }
    const t = parseFloat(this.view.s.log[i].time);
    return Number.isFinite(t) ? t : null;
  }

  /**
   * The first event at or after time t (events are in time order), else the last.
   * @param {number} t
   * @returns {number}
   */
  eventAt(t) {
    let lo = 0, hi = this.view.n - 1;
    while (lo < hi) { const mid = (lo + hi) >> 1, tm = this.timeOf(mid); if (tm !== null && tm < t) { lo = mid + 1; } else { hi = mid; } }
    return lo;
  }

  /** The still part, drawn once per width into an offscreen canvas: O(calls + lanes x pixels). */
  layout() {
    const W = Math.max(320, Math.floor(this.el.clientWidth || 900));
    if (W === this.width) { return; }
    const L = this.L, lanes = L.lanes.length, px = W - LANE_LABEL_W - LANE_PAD;
    const H = LANE_TOP + lanes * (LANE_H + LANE_GAP) + 4, dpr = window.devicePixelRatio || 1;
    this.width = W; this.height = H; this.px = px; this.scale = px / (this.t1 - this.t0); this.dpr = dpr;
    const columns = laneColumns(L, this.t0, this.scale, px);
    const base = this.base || (this.base = document.createElement('canvas'));
    for (const c of [this.canvas, base]) { c.width = W * dpr; c.height = H * dpr; }
    this.canvas.style.width = W + 'px'; this.canvas.style.height = H + 'px';
    const g = /** @type {CanvasRenderingContext2D} */ (base.getContext('2d'));
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.fillStyle = '#fff'; g.fillRect(0, 0, W, H);
    g.font = '11px sans-serif'; g.textBaseline = 'middle';
    this.axis(g, H);
    for (let lane = 0; lane < lanes; lane++) {
      const y = LANE_TOP + lane * (LANE_H + LANE_GAP), top = columns[lane];
      g.fillStyle = '#222'; g.textAlign = 'right';
      const name = L.lanes[lane];
      g.fillText(name.length > 24 ? name.slice(0, 23) + '\u2026' : name, LANE_LABEL_W - 6, y + LANE_H / 2);
      g.fillStyle = '#f4f4f4'; g.fillRect(LANE_LABEL_W, y, px, LANE_H);
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

  /**
   * The time axis: a tick line and its label every tickStep.
   * @param {CanvasRenderingContext2D} g
   * @param {number} H
   */
  axis(g, H) {
    const tick = tickStep(this.t1 - this.t0);
    g.strokeStyle = '#ddd'; g.fillStyle = '#555'; g.textAlign = 'center'; g.lineWidth = 1;
    for (let t = Math.ceil(this.t0 / tick) * tick; t <= this.t1 + 1e-9; t += tick) {
      const x = Math.round(LANE_LABEL_W + (t - this.t0) * this.scale) + 0.5;
      g.beginPath(); g.moveTo(x, LANE_TOP - 4); g.lineTo(x, H); g.stroke();
      g.fillText(String(Number(t.toPrecision(6))), Math.min(x, this.width - 16), LANE_TOP - 12);
    }
  }

  /**
   * A step: the still part copied, then the clock line and the current step's call outlined.
   * @param {number} i
   */
  paint(i) {
    this.layout();
    if (!this.base) { return; }
    const g = /** @type {CanvasRenderingContext2D} */ (this.canvas.getContext('2d')), L = this.L;
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.drawImage(this.base, 0, 0);
    g.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    const t = this.timeOf(i);
    if (t === null) { return; }
    const x = LANE_LABEL_W + (t - this.t0) * this.scale;
    g.fillStyle = L.now; g.fillRect(Math.round(x) - 1, LANE_TOP - 6, 2, this.height - LANE_TOP + 6);
    const calls = this.byStep.get(this.view.s.log[i].step) || [];
    let k = -1;  // the step's latest call begun by now (a tool call over a model call at the same start)
    for (const c of calls) { if (L.start[c] <= t + 1e-9 && (k < 0 || L.start[c] > L.start[k] || (L.start[c] === L.start[k] && L.look[c] > 0))) { k = c; } }
    this.currentCall = k;
    if (k < 0) { return; }
    const x0 = LANE_LABEL_W + (L.start[k] - this.t0) * this.scale, w = Math.max(3, (L.end[k] - L.start[k]) * this.scale);
    const y = LANE_TOP + L.lane[k] * (LANE_H + LANE_GAP);
    g.strokeStyle = '#000'; g.lineWidth = 2; g.strokeRect(x0 - 2, y - 2, w + 4, LANE_H + 4);
  }
}
