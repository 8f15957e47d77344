// @ts-check
// The event log, virtual (issue 43): a spacer as tall as every row, and only the rows on screen in the DOM.
import { h } from './dom.js';

export const LOG_ROW_H = 20, LOG_VIEW_H = 240, LOG_OVERSCAN = 6;  // px a row (fixed, see explorer.css), px of the box

/**
 * The rows [lo, hi) that exist in the DOM when the box of `height` px is scrolled to `top` px over `n` rows:
 * those on screen and LOG_OVERSCAN more on each side, within 0..n.
 * @param {number} top
 * @param {number} height
 * @param {number} n
 * @returns {[number, number]}
 */
export function rowWindow(top, height, n) {
  const first = Math.floor(top / LOG_ROW_H);
  return [Math.max(0, first - LOG_OVERSCAN), Math.min(n, first + Math.ceil(height / LOG_ROW_H) + LOG_OVERSCAN)];
}

/**
 * Where to scroll so that row i is on screen: `shown` unchanged when it already is, else row i as the fourth row
 * (within the scroll range of `n` rows in a box of `height` px).
 * @param {number} i
 * @param {number} shown
 * @param {number} height
 * @param {number} n
 * @returns {number}
 */
export function scrollFor(i, shown, height, n) {
  if (i * LOG_ROW_H >= shown && (i + 1) * LOG_ROW_H <= shown + height) { return shown; }
  return Math.max(0, Math.min((i - 3) * LOG_ROW_H, n * LOG_ROW_H - height));
}

export class VirtualLog {
  /**
   * @param {{n: number, s: {log: import('./types.js').LogRow[]}}} view the run view whose log this is
   * @param {(i: number) => void} pick what a click on row i does
   */
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
    this.body.addEventListener('click', (ev) => {
      const target = /** @type {Element} */ (ev.target), tr = target.closest('tr[data-i]');
      if (tr) { pick(Number(tr.getAttribute('data-i'))); }
    });
  }

  /** @returns {number} the box's height in px */
  height() { return this.scroller.clientHeight || LOG_VIEW_H; }

  /**
   * Event i is the current one: marked, and scrolled to (the fourth row) when it is not on screen.
   * @param {number} i
   */
  follow(i) {
    this.current = i;
    const shown = this.scroller.clientHeight ? this.scroller.scrollTop : this.top;
    const top = scrollFor(i, shown, this.height(), this.n);
    if (top !== shown) { this.top = top; this.scroller.scrollTop = top; }
    this.draw();
  }

  /** The rows from the scroll position: the row elements are reused, only their text changes. */
  draw() {
    const top = this.scroller.clientHeight ? this.scroller.scrollTop : this.top;
    const [lo, hi] = rowWindow(top, this.height(), this.n);
    const rows = this.body.rows;
    while (rows.length > hi - lo) { rows[rows.length - 1].remove(); }
    while (rows.length < hi - lo) { this.body.appendChild(h('tr', {}, [h('td'), h('td'), h('td'), h('td'), h('td')])); }
    for (let j = lo; j < hi; j++) {
      const tr = rows[j - lo], now = j === this.current;
      if (tr.getAttribute('data-i') !== String(j)) {
        const r = this.view.s.log[j], cells = tr.cells;
        tr.setAttribute('data-i', String(j));
        tr.className = 'pv-kind-' + r.kind.replace(/[^a-z_]/g, '');
        cells[1].textContent = r.time; cells[2].textContent = r.kind; cells[3].textContent = r.step; cells[4].textContent = r.message;
        cells[4].title = r.message; cells[0].textContent = String(j);
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

/**
 * A long list (the facts held, the ready steps), virtual like the log: a spacer as tall as every item and only
 * the items on screen in the DOM, in a list of the given class (a 100k-span run holds 50,000 facts: filling
 * them anew at each step took a second).
 */
export class VirtualList {
  /**
   * @param {string} cls the list's class
   * @param {string} label what the list holds, for its aria-label
   */
  constructor(cls, label) {
    /** @type {ArrayLike<number>} */
    this.items = [];
    /** @type {(k: number) => string} */
    this.name = String;
    this.top = 0; this.label = label;
    this.list = h('ul', {cls: cls + ' pv-vitems'});
    this.spacer = h('div', {cls: 'pv-listspace', 'aria-hidden': 'true'});
    this.scroller = h('div', {cls: 'pv-listscroll', tabindex: '0', 'aria-label': label}, [this.spacer, this.list]);
    this.el = this.scroller;
    let queued = false;
    this.scroller.addEventListener('scroll', () => {
      if (!queued) { queued = true; requestAnimationFrame(() => { queued = false; this.top = this.scroller.scrollTop; this.draw(); }); }
    });
  }

  /**
   * Show `items` (numbers, in order), each as `name(item)`.
   * @param {ArrayLike<number>} items
   * @param {(k: number) => string} name
   */
  show(items, name) {
    this.items = items; this.name = name;
    const n = Math.max(1, items.length);
    this.spacer.style.height = (n * LOG_ROW_H) + 'px';
    this.scroller.style.height = n * LOG_ROW_H < LOG_VIEW_H ? (n * LOG_ROW_H + 2) + 'px' : '';
    this.scroller.setAttribute('aria-label', this.label + ': ' + items.length);
    this.draw();
  }

  /** The items from the scroll position: the item elements are reused, only their text changes. */
  draw() {
    const height = this.scroller.clientHeight, top = height ? this.scroller.scrollTop : this.top;
    const n = this.items.length, [lo, hi] = n ? rowWindow(top, height || LOG_VIEW_H, n) : [0, 1];
    const lis = this.list.children;
    while (lis.length > hi - lo) { lis[lis.length - 1].remove(); }
    while (lis.length < hi - lo) { this.list.appendChild(h('li')); }
    for (let j = lo; j < hi; j++) {
      const li = lis[j - lo], text = n ? this.name(this.items[j]) : '(none)';
      if (li.textContent !== text) { li.textContent = text; }
      li.className = n ? '' : 'pv-empty';
    }
    this.list.style.transform = 'translateY(' + (lo * LOG_ROW_H) + 'px)';
  }
}
