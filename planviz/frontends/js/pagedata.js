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
  /** @type {any[]} */
  const out = [];
  /** @param {number | null} k */
  const str = (k) => (k === null ? null : strings[k]);
  if (c.str) { return c.str.map(str); }
  if (c.int) { let at = 0; return c.int.map((d) => (at += d)); }
  if (c.num) { let at = 0; const scale = c.scale || 1; return c.num.map((d) => (d === null ? null : (at += d) / scale)); }
  if (c.json) { return c.json; }
  const flat = c.strs || c.ints || [];
  let k = 0;
  for (const n of c.n || []) {
    const row = flat.slice(k, k + n); k += n;
    if (c.strs) { out.push(row.map(str)); } else { let at = 0; out.push(row.map((d) => (at += d))); }
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
  /** @type {Record<string, any>[]} */
  const rows = Array.from({length: t.rows}, () => ({}));
  for (const [key, c] of Object.entries(t.cols || {})) {
    const values = decodeColumn(c, strings), skip = new Set();
    let at = 0;
    for (const d of c.absent || []) { skip.add(at += d); }
    let k = 0;
    rows.forEach((row, i) => { if (!skip.has(i)) { row[key] = values[k++]; } });
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

/**
 * Page data -> the snapshot (its runs' tables back to lists and objects).
 * @param {any} data
 * @returns {any}
 */
export function decodePage(data) {
  if (!data || data.format !== 'planviz-page') { return data; }
  /** @type {import('./types.js').PageData} */
  const page = data;
  if (page.version !== 1) { throw new Error('planviz page data version ' + page.version + ' is newer than this page reader'); }
  /** @param {Record<string, any>} r */
  const run = (r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, decodeTable(v, page.strings)]));
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
