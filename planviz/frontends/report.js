(function () {
  'use strict';
  // The planviz report's stepper. The page shows the run's last frame as static HTML; this script
  // steps through every frame by restyling the nodes of each plan version's picture from the delta
  // table (planviz/frontends/deltatable.py): event i lists [node, look before, look after] triples,
  // the facts gained (g) and lost (l), the steps that became (ri) and stopped being (ro) ready.
  document.documentElement.className = 'js';
  var data = JSON.parse(document.getElementById('planviz-data').textContent);
  var XLINK = 'http://www.w3.org/1999/xlink';
  var FLAGS = ['voided', 'kept', 'conflict'];
  var events = data.events, looks = data.looks, n = events.length;
  var $ = function (id) { return document.getElementById(id); };
  var diagram = $('pv-diagram'), rows = $('pv-log').rows;
  var logBox = document.querySelector('.log'), logHead = logBox.querySelector('thead');
  var gantt = document.querySelector('svg.planviz-gantt');
  var cursorLine = gantt && gantt.querySelector('.planviz-now');
  var version = [], v = 0;
  events.forEach(function (e, i) { if (e.v !== undefined) { v = e.v; } version[i] = v; });
  var pictures = data.versions.map(function () { return null; });
  var facts = new Set(data.last_facts), ready = new Set(data.last_ready);
  var at = n - 1, index = n - 1;

  function prepare(g, cut) {  // the elements a look sets, found once (mirrors pictures/layout.py frame_template)
    var shapes = g.querySelectorAll('path, polygon, ellipse'), texts = g.querySelectorAll('text');
    var links = g.querySelectorAll('a');
    var title = links.length ? (links[0].getAttributeNS(XLINK, 'title') || '') : '';
    return {g: g, shapes: shapes, text: texts[texts.length - 1], links: links,
            tip: title.slice(0, title.length - cut)};
  }
  function picture(k) {  // version k's picture: the static one for the last version, else built once from its template
    if (!pictures[k]) {
      var box = diagram.querySelector('.pv-version[data-v="' + k + '"]');
      if (!box) {
        box = document.createElement('div');
        box.className = 'pv-version';
        box.setAttribute('data-v', String(k));
        box.style.minWidth = (data.versions[k].legible || 0) + 'px';  // fit width: text never below 9 px
        box.hidden = true;
        box.appendChild(document.importNode($('pv-version-' + k).content, true));
        diagram.appendChild(box);
      }
      var byId = {};
      box.querySelectorAll('g.node').forEach(function (g) { byId[g.getAttribute('id')] = g; });
      var spec = data.versions[k];
      pictures[k] = {box: box, nodes: spec.nodes.map(function (id, j) {
        return byId[id] ? prepare(byId[id], spec.cuts[j]) : null;
      }), lines: box.querySelectorAll('svg text.event-line')};
    }
    return pictures[k];
  }
  function paint(node, look) {
    if (!node) { return; }
    var L = looks[look], cls = node.g.classList;
    Array.prototype.slice.call(cls).forEach(function (c) {
      if (c.indexOf('status-') === 0 || FLAGS.indexOf(c) >= 0) { cls.remove(c); }
    });
    cls.add(L[0]);
    FLAGS.forEach(function (flag, b) { if (L[1] & (1 << b)) { cls.add(flag); } });
    var first = node.shapes[0], outer = node.shapes[1];
    if (first) {
      first.setAttribute('fill', L[2]); first.setAttribute('stroke', L[3]);
      first.setAttribute('stroke-width', L[4]); first.setAttribute('stroke-dasharray', L[5]);
    }
    if (outer) {
      outer.setAttribute('stroke', L[6]); outer.setAttribute('stroke-width', L[7]);
      outer.setAttribute('stroke-dasharray', L[8]);
    }
    if (node.text) { node.text.textContent = L[9]; }
    var title = node.tip + (L[10] ? '\n' + L[10] : '');
    for (var a = 0; a < node.links.length; a++) { node.links[a].setAttributeNS(XLINK, 'xlink:title', title); }
  }
  function apply(i, forward) {  // event i's changes, forward (frame i-1 to i) or backward (i to i-1)
    var e = events[i], pic = picture(version[i]), d = e.d || [];
    for (var k = 0; k < d.length; k += 3) { paint(pic.nodes[d[k]], d[k + (forward ? 2 : 1)]); }
    (e.l || []).forEach(function (f) { if (forward) { facts.delete(f); } else { facts.add(f); } });
    (e.g || []).forEach(function (f) { if (forward) { facts.add(f); } else { facts.delete(f); } });
    (e.ro || []).forEach(function (s) { if (forward) { ready.delete(s); } else { ready.add(s); } });
    (e.ri || []).forEach(function (s) { if (forward) { ready.add(s); } else { ready.delete(s); } });
  }
  function seek(i) {  // the pictures, facts and ready set of frame i
    while (at < i) { at += 1; apply(at, true); }
    while (at > i) { apply(at, false); at -= 1; }
  }
  function fill(list, items) {
    list.textContent = '';
    function add(text, cls) {
      var li = document.createElement('li');
      li.textContent = text;
      if (cls) { li.className = cls; }
      list.appendChild(li);
    }
    if (!items.length) { add('(none)', 'empty'); }
    items.forEach(function (t) { add(t); });
  }
  function names(set, table) { return Array.from(set).sort(function (a, b) { return a - b; })
    .map(function (k) { return table[k]; }); }
  function reveal(row) {  // scroll the log box only, never the page
    if (!row) { return; }
    var box = logBox.getBoundingClientRect(), r = row.getBoundingClientRect();
    var head = logHead.getBoundingClientRect().height;
    if (r.top < box.top + head) { logBox.scrollTop -= box.top + head - r.top; }
    else if (r.bottom > box.bottom) { logBox.scrollTop += r.bottom - box.bottom; }
  }
  function render(i) {
    var previous = index;
    index = i;
    seek(index);
    var k = version[index];
    var lines = picture(k).lines, said = events[index].c || [];
    for (var j = 0; j < lines.length; j++) { lines[j].textContent = j < said.length ? said[j] : ' '; }
    pictures.forEach(function (p, j) { if (p) { p.box.hidden = j !== k; } });
    var cells = rows[index].cells, e = events[index];
    var cap = $('pv-caption'); cap.textContent = '';
    var b = document.createElement('b');
    b.textContent = 'Event ' + index + ' of ' + (n - 1) + ': ' + cells[2].textContent
      + (cells[3].textContent ? ' ' + cells[3].textContent : '');
    cap.appendChild(b);
    var rest = ' at t=' + cells[1].textContent + (data.unit ? ' ' + data.unit : '');
    if (cells[4].textContent) { rest += ' \u2014 ' + cells[4].textContent; }
    if (data.versions[k].version > 1) { rest += ' (plan v' + data.versions[k].version + ')'; }
    cap.appendChild(document.createTextNode(rest));
    fill($('pv-facts'), names(facts, data.facts));
    fill($('pv-ready'), names(ready, data.steps));
    var voided = (e.vo || []).map(function (s) { return data.steps[s]; });
    var kept = (e.ke || []).map(function (s) { return data.steps[s]; });
    $('pv-scope').textContent = (voided.length || kept.length)
      ? 'voided: ' + (voided.join(', ') || '(none)') + '; kept: ' + (kept.join(', ') || '(none)')
      : '(nothing voided at this event)';
    if (rows[previous]) { rows[previous].classList.remove('current'); }
    rows[index].classList.add('current');
    reveal(rows[index]);
    if (cursorLine && e.t !== null) {
      var x = parseFloat(gantt.getAttribute('data-x0')) + e.t * parseFloat(gantt.getAttribute('data-scale'));
      cursorLine.setAttribute('x1', x); cursorLine.setAttribute('x2', x);
      cursorLine.setAttribute('visibility', 'visible');
    }
  }
  var stepper = planvizStepper(n, render);
  $('pv-fit').addEventListener('change', function () { diagram.classList.toggle('fit', this.checked); });
  $('pv-log').addEventListener('click', function (ev) {
    var tr = ev.target.closest('tr'); if (tr) { stepper.go(tr.sectionRowIndex); }
  });
  var start = parseInt((location.hash.match(/^#(\d+)$/) || [])[1], 10);
  stepper.go(isNaN(start) ? 0 : start);
}());
