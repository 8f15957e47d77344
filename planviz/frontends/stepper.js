// The stepper every planviz page shares: first / prev / play / next / last buttons, the slider and the
// keys (arrows, Home, End, P). It owns the current event index; the page draws a frame with render(i).
function planvizStepper(n, render) {
  'use strict';
  var $ = function (id) { return document.getElementById(id); };
  var slider = $('pv-slider'), index = 0, timer = null;
  function show(i) {
    index = Math.max(0, Math.min(n - 1, i));
    slider.value = String(index);
    render(index);
    $('pv-first').disabled = $('pv-prev').disabled = index === 0;
    $('pv-last').disabled = $('pv-next').disabled = index === n - 1;
  }
  function stop() { if (timer) { clearInterval(timer); timer = null; $('pv-play').textContent = '\u25B6 play'; } }
  function play() {
    if (timer) { stop(); return; }
    if (index === n - 1) { show(0); }
    $('pv-play').textContent = '\u23F8 pause';
    timer = setInterval(function () { if (index >= n - 1) { stop(); } else { show(index + 1); } }, 900);
  }
  function go(i) { stop(); show(i); }
  $('pv-first').addEventListener('click', function () { go(0); });
  $('pv-prev').addEventListener('click', function () { go(index - 1); });
  $('pv-next').addEventListener('click', function () { go(index + 1); });
  $('pv-last').addEventListener('click', function () { go(n - 1); });
  $('pv-play').addEventListener('click', play);
  slider.addEventListener('input', function () { go(parseInt(slider.value, 10)); });
  document.addEventListener('keydown', function (ev) {
    if (ev.target === slider || ev.altKey || ev.ctrlKey || ev.metaKey) { return; }
    var k = ev.key;
    if (k === 'ArrowRight') { go(index + 1); }
    else if (k === 'ArrowLeft') { go(index - 1); }
    else if (k === 'Home') { go(0); }
    else if (k === 'End') { go(n - 1); }
    else if (k === 'p' || k === 'P') { play(); }
    else { return; }
    ev.preventDefault();
  });
  return {go: go};
}
