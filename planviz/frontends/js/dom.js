// @ts-check
// Building the page: elements from properties, markup planviz made, untrusted text shown trimmed.
// Every text from the run is set with textContent, never parsed as HTML; only render's SVG (sanitised in
// Python) and the timeline's SVG are inserted as markup (`markup`).

/**
 * An element with properties (`text`: its textContent, `cls`: its class, `on...`: a listener, else an
 * attribute) and children (strings become text nodes; falsy ones are skipped).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, any>} [props]
 * @param {(Node | string | null | undefined | false)[]} [children]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props, children) {
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

/**
 * Markup planviz made (render's SVG, the timeline), as nodes.
 * @param {string} html
 * @returns {DocumentFragment}
 */
export function markup(html) {
  const t = document.createElement('template');
  t.innerHTML = html;
  return t.content;
}

/**
 * A list's items, one per text; `empty` (default "(none)") when there is none.
 * @param {HTMLElement} list
 * @param {string[]} items
 * @param {string} [empty]
 */
export function fill(list, items, empty) {
  list.textContent = '';
  if (!items.length) { list.appendChild(h('li', {cls: 'pv-empty', text: empty || '(none)'})); }
  for (const t of items) { list.appendChild(h('li', {text: t})); }
}

export const SHORT = 300;  // characters of a long text shown before "show all"

/**
 * Untrusted text, trimmed to SHORT characters with a button that shows it whole.
 * @param {string} text
 * @param {string} [cls]
 * @returns {HTMLElement}
 */
export function long(text, cls) {
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

/**
 * A chat thread's turns, who said what, in order (the latest reply last, scrolled to).
 * @param {import('./types.js').Turn[]} turns
 * @returns {HTMLElement}
 */
export function turnsBox(turns) {
  const list = h('ol', {cls: 'pv-turn-list'}, turns.map(({role, text}) => h('li', {cls: 'pv-turn pv-role-' + String(role).replace(/[^a-z]/g, '')},
    [h('span', {cls: 'pv-role', text: role}), long(text)])));
  return h('section', {cls: 'pv-turns', 'aria-label': 'conversation'}, [h('p', {cls: 'pv-legend-title', text: 'Conversation (' + turns.length + ' turn' + (turns.length === 1 ? '' : 's') + ')'}), list]);
}
