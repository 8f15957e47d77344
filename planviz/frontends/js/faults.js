// @ts-check
// The fault panel: injecting a fault runs in Python (the simulator), so it asks the kernel, which sends the new run.
import { h } from './dom.js';

/**
 * The panel and its status line (the app shows the kernel's answer there).
 * @param {import('./types.js').Model} m
 * @returns {{el: HTMLElement, status: HTMLElement}}
 */
export function faultPanel(m) {
  /** @type {{steps: string[], kinds: string[], facts: string[]}} */
  const opts = m.get('fault_options') || {steps: [], kinds: [], facts: []};
  /** @param {string} name @param {string[]} items @param {string} [value] */
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
  const el = h('div', {cls: 'pv-faults', role: 'group', 'aria-label': 'inject a fault'}, [
    h('p', {}, [h('b', {text: 'Inject a fault'})]),
    h('label', {cls: 'planviz-fault-step'}, ['Step ', step]), h('label', {cls: 'planviz-fault-kind'}, ['Kind ', kind]),
    h('label', {cls: 'planviz-fault-fact'}, ['Fact ', fact]), h('label', {cls: 'planviz-fault-times'}, ['Times ', times]),
    h('div', {}, [inject, clear]), status]);
  return {el, status};
}
