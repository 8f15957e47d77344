// @ts-check
// planviz's one front end: the explorer widget (anywidget) and every offline page run this module. It draws a run
// from its snapshot (planviz/frontends/snapshot.py), sent as page data (pagedata.js decodes it).
// The host gives a model with get/set/on/save_changes/send: anywidget's, or a page's local stand-in (page.py).
// The modules beside this one are joined into the one module text both hosts load (planviz/frontends/jsmodules.py):
// this entry module comes last and its `export default` is the module's.
import { pageSnapshot } from './pagedata.js';
import { App } from './app.js';

/**
 * Draw the model's run in `el`, and follow the model; returns the clean-up.
 * @param {{model: import('./types.js').Model, el: HTMLElement}} host
 * @returns {() => void}
 */
function render({model, el}) {
  el.classList.add('planviz-explorer');
  if (model.get('fallback_key')) { el.setAttribute('data-planviz-key', model.get('fallback_key')); }  // its fallback hides
  if (!el.hasAttribute('tabindex')) { el.setAttribute('tabindex', '0'); }
  /** @type {App | null} */
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
  /** @param {{kind?: string}} msg */
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
