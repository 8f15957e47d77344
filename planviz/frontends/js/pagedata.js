// @ts-check
// The one decoder of planviz's page format (planviz/frontends/pagedata.schema.json, written by pagedata.py).
// It gives back the snapshot the rest of the front end reads; a snapshot not in the format passes as it is.

/**
 * One value per row where the key is present (absent: skipped rows).
 * @param {import('./types.js').Column} c
 * @param {string[]} strings
 * @returns {any[]}
 */
export function decodeColumn(c, strings) {
  /** @param {number | null} k */
  const str = (k) => (k === null ? null : strings[k]);
  if (c.str) { return c.str.map(str); }
  if (c.int) { let at = 0; return c.int.map((d) => (at += d)); }
  if (c.num) { let at = 0; const scale = c.scale || 1; return c.num.map((d) => (d === null ? null : (at += d) / scale)); }
  if (c.json) { return c.json; }
  if (c.text) { return c.text; }
  if (c.table) {  // lists of records (a step's model calls): the table's records, n per row
    const records = decodeRecords(c.table, strings), counts = c.n || [];
    /** @type {any[]} */
    const lists = new Array(counts.length);
    let at = 0;
    for (let i = 0; i < counts.length; i++) { lists[i] = records.slice(at, at += counts[i]); }
    return lists;
  }
  /** @type {any[]} */
  const flat = c.strs || c.ints || c.texts || [];
  const counts = c.n || [], strs = !!c.strs, texts = !!c.texts;
  /** @type {any[]} */
  const out = new Array(counts.length);
  let k = 0;
  for (let i = 0; i < counts.length; i++) {  // one list per row, filled in place (100k rows: no slice, no map)
    const n = counts[i], row = new Array(n);
    if (strs) { for (let j = 0; j < n; j++) { row[j] = str(flat[k++]); } }
    else if (texts) { for (let j = 0; j < n; j++) { row[j] = flat[k++]; } }
    else { let at = 0; for (let j = 0; j < n; j++) { row[j] = (at += flat[k++]); } }
    out[i] = row;
  }
  return out;
}

/**
 * Rows of objects, each key a column; absent keys stay absent.
 * @param {import('./types.js').Table} t
 * @param {string[]} strings
 * @returns {Record<string, any>[]}
 */
export function decodeRecords(t, strings) {
  const cols = Object.entries(t.cols || {}).map(([key, c]) => {
    /** @type {Uint8Array | null} */
    let absent = null;  // 1 where the row lacks the key
    if (c.absent && c.absent.length) { absent = new Uint8Array(t.rows); let at = 0; for (const d of c.absent) { absent[at += d] = 1; } }
    return {key, values: decodeColumn(c, strings), absent, next: 0};
  });
  /** @type {Record<string, any>[]} */
  const rows = new Array(t.rows);
  for (let i = 0; i < t.rows; i++) {  // row by row, keys in the columns' order (rows of one shape share V8's map)
    /** @type {Record<string, any>} */
    const row = {};
    for (const col of cols) { if (!col.absent || !col.absent[i]) { row[col.key] = col.values[col.next++]; } }
    rows[i] = row;
  }
  return rows;
}

/**
 * A table back to its list or object; any other value as it is.
 * @param {any} t
 * @param {string[]} strings
 * @returns {any}
 */
export function decodeTable(t, strings) {
  if (!t || typeof t !== 'object' || Array.isArray(t) || !t['@table']) { return t; }
  /** @type {import('./types.js').Table} */
  const table = t;
  if (table['@table'] === 'values') { return decodeColumn(table.col || {}, strings); }
  if (table['@table'] === 'tuples') {
    const cols = (/** @type {import('./types.js').Column[]} */ (table.cols)).map((c) => decodeColumn(c, strings));
    return Array.from({length: table.rows}, (_, i) => cols.map((col) => col[i]));
  }
  const rows = decodeRecords(table, strings);
  if (table['@table'] === 'records') { return rows; }
  /** @type {Record<string, any>} */
  const out = {};  // mapping
  decodeColumn(table.keys || {}, strings).forEach((key, i) => { out[key] = rows[i]; });
  return out;
}

/** Tables decoded when first read, not when the page opens: a step's details wait for a click on it. */
export const LAZY = ['details'];

/**
 * Give `obj` the property `key`, worked out by `make` when first read (or set) and then kept as a plain value.
 * @param {Record<string, any>} obj
 * @param {string} key
 * @param {() => any} make
 */
function lazy(obj, key, make) {
  /** @param {any} value */
  const keep = (value) => { Object.defineProperty(obj, key, {value, writable: true, enumerable: true, configurable: true}); return value; };
  Object.defineProperty(obj, key, {get: () => keep(make()), set: keep, enumerable: true, configurable: true});
}

/**
 * Page data -> the snapshot (its runs' tables back to lists and objects).
 * @param {any} data
 * @returns {any}
 */
export function decodePage(data) {
  if (!data || data.format !== 'planviz-page') { return data; }
  /** @type {import('./types.js').PageData} */
  const page = data;
  // version 2 added column kinds (lists of records, inline text) to 1's: a page of either reads
  if (page.version !== 1 && page.version !== 2) { throw new Error('planviz page data version ' + page.version + ' is newer than this page reader'); }
  /** @param {Record<string, any>} r */
  const run = (r) => {
    /** @type {Record<string, any>} */
    const out = {};
    for (const [k, v] of Object.entries(r)) {
      if (LAZY.includes(k)) { lazy(out, k, () => decodeTable(v, page.strings)); } else { out[k] = decodeTable(v, page.strings); }
    }
    return out;
  };
  const out = run(page.page);
  if (Array.isArray(page.page.pair)) { out.pair = page.page.pair.map(run); }
  return out;
}

/** @type {WeakMap<object, any>} */
const DECODED = new WeakMap();

/**
 * The model's snapshot, decoded once per value the model holds.
 * @param {import('./types.js').Model} model
 * @returns {import('./types.js').Snapshot | null}
 */
export function pageSnapshot(model) {
  const raw = model.get('snapshot');
  if (!raw || typeof raw !== 'object') { return raw; }
  if (!DECODED.has(raw)) { DECODED.set(raw, decodePage(raw)); }
  return DECODED.get(raw);
}
