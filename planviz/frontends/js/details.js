// @ts-check
// What the details box shows: with no step chosen, the hint and the importers' findings; for a step, what was
// said and done there (its error first, its result, its fields, its attempts so far and its model calls).
import { h, long } from './dom.js';

/**
 * The details with no step chosen: the hint, then the findings the picture's one line counts.
 * @param {import('./types.js').RunSnapshot} s
 * @returns {HTMLElement[]}
 */
export function noStep(s) {
  const found = s.findings || [];
  if (!found.length) { return [h('p', {cls: 'pv-empty', text: 'Click a step for its details.'})]; }
  const items = found.map(({severity: sev, code, message: msg, steps}) => h('li', {cls: 'pv-finding pv-finding-' + sev},
    [h('b', {text: sev + ' ' + code}), document.createTextNode(': ' + msg + (steps ? ' (' + steps + ')' : ''))]));
  return [h('p', {cls: 'pv-empty', text: 'Click a step for its details.'}),
          h('h4', {text: 'Findings (' + found.length + ')'}), h('ul', {cls: 'pv-findings'}, items)];
}

/**
 * Each attempt of step `sid` up to event `index` and what became of it, from the log.
 * @param {import('./types.js').LogRow[]} log
 * @param {string} sid
 * @param {number} index
 * @returns {Record<string, string>} attempt number -> running, done, failed or voided
 */
export function attemptsOf(log, sid, index) {
  /** @type {Record<string, string>} */
  const attempts = {};
  for (let i = 0; i <= index; i++) {
    const r = log[i];
    if (r.step !== sid) { continue; }
    if (r.kind === 'start') { attempts[r.attempt] = 'running'; }
    else if (r.attempt && ['complete', 'fail', 'invalidate'].includes(r.kind)) { attempts[r.attempt] = r.kind === 'complete' ? 'done' : r.kind === 'fail' ? 'failed' : 'voided'; }
  }
  return attempts;
}

/**
 * Fill `box` with what a click on step `sid` shows at event `index`; `close` is the close button's action.
 * @param {HTMLElement} box
 * @param {import('./types.js').RunSnapshot} s
 * @param {string} sid
 * @param {number} index
 * @param {() => void} close
 */
export function stepDetails(box, s, sid, index, close) {
  const d = s.details[sid];
  box.textContent = '';
  box.appendChild(h('h3', {text: sid}));
  box.appendChild(h('button', {type: 'button', cls: 'pv-close', 'aria-label': 'close the details', text: '\u00D7', onclick: close}));
  if (!d) { box.appendChild(h('p', {cls: 'pv-empty', text: 'a group of steps: hover it for its members'})); return; }
  const at = d.ended !== null && d.ended !== undefined ? ' (event ' + d.ended + (d.ended > index ? ', later in the run' : '') + ')' : '';
  if (d.error) { box.append(h('h4', {cls: 'pv-error', text: 'Failed' + at + ': its error'}), long(d.error, 'pv-error-text')); }
  if (d.result !== null && d.result !== undefined) { box.append(h('h4', {text: (d.error ? 'It returned' : 'Returned') + at}), long(d.result, 'pv-result')); }
  const dl = h('dl');
  /** @param {string} name @param {string | string[] | undefined} value */
  const item = (name, value) => { if (value !== '' && value !== undefined && !(Array.isArray(value) && !value.length)) { dl.append(h('dt', {text: name}), h('dd', {text: Array.isArray(value) ? value.join(', ') : String(value)})); } };
  item('action', d.action); item('kind', d.kind); item('tool', d.tool);
  dl.append(...(d.arguments.length ? [h('dt', {text: 'arguments'}), h('dd', {}, [h('table', {cls: 'pv-args'}, d.arguments.map(({name: k, value: v}) => h('tr', {}, [h('th', {text: k}), h('td', {text: v})])))])] : []));
  item('depends on', d.depends_on); item('facts in (requires)', d.requires); item('facts out (produces)', d.produces);
  item('expected evidence', d.evidence);
  box.appendChild(dl);
  const rows = [];
  for (let i = 0; i <= index; i++) {
    const r = s.log[i];
    if (r.step !== sid) { continue; }
    const text = '#' + i + ' ' + r.kind + (r.attempt ? ' (attempt ' + r.attempt + ')' : '') + ': ' + r.message
      + (r.observed.length ? ' \u2014 observed: ' + r.observed.join(', ') : '') + (r.calls ? ' \u2014 model calls: ' + r.calls : '');
    rows.push(h('li', {cls: i === index ? 'pv-current' : '', text}));
  }
  const attempts = attemptsOf(s.log, sid, index), tried = Object.keys(attempts);
  box.append(h('p', {cls: 'pv-attempt-count', text: 'attempts so far: ' + tried.length + (tried.length ? ' (' + tried.map((a) => a + ': ' + attempts[a]).join(', ') + ')' : '')}));
  const calls = d.calls || [];  // the model calls that led to this step, as the trace recorded them
  if (calls.length) {
    /** @param {number} x */
    const num = (x) => String(Number(x.toPrecision(4)));
    const unit = s.unit ? ' ' + s.unit : '';
    const said = calls.map(({model, start, duration: took, input_tokens: tin, output_tokens: tout, cost, ok, input: given, output: answered}) => h('li', {}, [model
      + (start !== null ? ' at t=' + num(start) + unit : '') + (took ? ', ' + num(took) + unit : '')
      + (tin !== null || tout !== null ? ' \u00B7 tokens ' + (tin === null ? '?' : tin) + ' in, ' + (tout === null ? '?' : tout) + ' out' : '')
      + (cost !== null ? ' \u00B7 cost ' + num(cost) + ' USD' : '') + (ok ? '' : ' \u00B7 failed'),
      ...(given !== null && given !== undefined ? [h('div', {cls: 'pv-said', text: 'given:'}), long(given, 'pv-model-input')] : []),
      ...(answered !== null && answered !== undefined ? [h('div', {cls: 'pv-said', text: 'answered:'}), long(answered, 'pv-model-output')] : [])]));
    box.append(h('h4', {text: 'Model calls for this step (' + calls.length + ')'}), h('ol', {cls: 'pv-calls'}, said));
  }
  box.append(h('h4', {text: 'Events of this step so far'}), rows.length ? h('ol', {cls: 'pv-attempts'}, rows) : h('p', {cls: 'pv-empty', text: '(none yet)'}));
}
