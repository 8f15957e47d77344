(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('planviz-data').textContent);
  var $ = function (id) { return document.getElementById(id); };
  data.sides.forEach(function (side) {
    var current = [];
    side.built = side.frames.map(function (f) {
      if (Array.isArray(f)) { current = f.slice(); }
      else { current = current.slice(); for (var k = 0; k < f.d.length; k += 2) { current[f.d[k]] = f.d[k + 1]; } }
      return current;
    });
  });
  var n = data.n;
  function render(index) {
    var diverged = data.divergence !== null && index === data.divergence;
    $('pv-where').textContent = 'Event ' + index + ' of ' + (n - 1) + (diverged ? ' \u2014 the runs diverge here' : '');
    $('pv-where').className = 'caption' + (diverged ? ' diverged' : '');
    data.sides.forEach(function (side, k) {
      var j = Math.min(index, side.events.length - 1), e = side.events[j];
      $('pv-diagram-' + k).innerHTML = side.built[j].map(function (c) { return side.chunks[c]; }).join('');
      var text = 'Event ' + j + ': ' + e.kind + (e.step ? ' ' + e.step : '') + ' at t=' + e.time
        + (side.unit ? ' ' + side.unit : '') + (e.message ? ' \u2014 ' + e.message : '');
      if (j < index) { text += ' (this run ended at event ' + j + ')'; }
      $('pv-caption-' + k).textContent = text;
      var rows = $('pv-log-' + k).rows;
      for (var r = 0; r < rows.length; r++) { rows[r].classList.toggle('current', r === j); }
    });
  }
  var stepper = planvizStepper(n, render);
  $('pv-diverge').addEventListener('click', function () { if (data.divergence !== null) { stepper.go(data.divergence); } });
  stepper.go(data.divergence === null ? 0 : data.divergence);
}());
