"""The picture's caption lines in Chromium: the page keeps them (``c``) only for the events whose lines its
script cannot compose from the event's log row; every frame's SVG caption lines must still be the picture's own
(:func:`planviz.pictures.captions.event_lines`), for captions of every awkward kind."""

from __future__ import annotations

import dataclasses

import pytest

from planviz import Fault, examples, report_html, simulate
from planviz.pictures.captions import event_caption, event_lines

from ..frontends.pagedata import page_data
from .test_report_browser import _goto, _open

pytestmark = pytest.mark.browser

EVENT_LINES_JS = """() => [...document.querySelectorAll(
  '#planviz-app .planviz-diagram .pv-version:not([hidden]) svg text.event-line')].map(t => t.textContent)"""

# what the messages say, event by event: long ones cut in two at a space, clipped, one long word, non-ASCII in the
# BMP and beyond it (a browser's length differs), control characters, runs of spaces, empty, plain and short
MESSAGES = [
    "short and plain",
    "a plain message long enough that the caption takes two lines of the picture",
    "word " * 40,
    "x" * 150,
    "caf\u00e9 cr\u00e8me: na\u00efve r\u00e9sum\u00e9 " * 4,
    "emoji \U0001f600 beyond the BMP " + "y " * 30,
    "a tab\there, a NUL\x00 and a bidi \u202e override",
    "two  spaces  running",
    "",
    " a space at the start",
    "a space at the end ",
    "e\u0301 combining",
    "pipes | and || more",
    "mid \u00b7 dots \u00b7 " * 6,
]


# messages fitted to their event's caption (``head``: its length without a message): lines cut exactly at the
# width, at the width + 1, at 80 and 160 characters in all, a second line of exactly the width and one over it
FITTED = [
    lambda head: "a" * (80 - head),
    lambda head: "a" * (81 - head),
    lambda head: "a" * (79 - head) + " b",
    lambda head: "a" * (80 - head) + " " + "b" * 79,
    lambda head: "a" * (80 - head) + " " + "b" * 80,
    lambda head: "a" * (79 - head) + " " + "b" * 80,
    lambda head: "a" * (81 - head) + " " + "b" * 20,
    lambda head: "a" * (40 - head) + " " + "b" * 39 + " " + "c" * 79,
]


def _awkward_run():
    """A run of two plan versions whose events say every kind of message, the last with its outcome."""
    base = simulate(examples.load("cache_isolation"), faults=[Fault("S4", "side_effect")])
    events = []
    for i, e in enumerate(base.events[:-1]):
        if i % 2:  # (a time of -0: the log row writes its sign, the picture's caption not)
            message = MESSAGES[i // 2 % len(MESSAGES)]
            events.append(dataclasses.replace(e, message=message, time=-0.0 if i == 1 else e.time))
            continue
        head = len(event_caption(dataclasses.replace(e, message=""), i, base, base.plan_at(i)))
        events.append(dataclasses.replace(e, message=FITTED[i // 2 % len(FITTED)](head)))
    return dataclasses.replace(base, events=(*events, base.events[-1]))


def test_every_frames_caption_lines_are_the_pictures_own(page, ui, tmp_path):
    run = _awkward_run()
    assert len(run.plans) == 2 and run.outcome
    path = report_html(run, tmp_path / "captions.html")
    data = page_data(path.read_text(encoding="utf-8"))
    kept = [i for i, e in enumerate(data["events"]) if "c" in e]
    n = len(run.events)
    assert (
        0 < len(kept) < n and n - 1 in kept
    )  # most composed by the script, some kept, the last always
    pg = _open(page, path)
    for i in [
        *range(n),
        *range(n - 2, -1, -3),
        n - 1,
        0,
    ]:  # every frame forward, back in jumps, to each end
        _goto(pg, i)
        shown = pg.evaluate(EVENT_LINES_JS)
        assert shown == list(event_lines(run.events[i], i, run, run.plan_at(i))), (i, shown)
    _goto(pg, 2)
    ui.screenshot(pg.locator("#planviz-app .planviz-diagram"), "composed-captions")
    assert page.errors == [] and pg.evaluate("window.__planvizCsp || []") == []


def test_a_two_run_page_composes_each_runs_captions(page, tmp_path):
    runs = [_awkward_run(), simulate(examples.load("cache_isolation"))]
    pg = page.page
    pg.goto(report_html(runs, tmp_path / "pair.html").as_uri())
    boxes = "#planviz-app .pv-run"
    pg.locator(boxes).first.wait_for(state="attached")
    lines_js = """() => [...document.querySelectorAll('#planviz-app .pv-run')].map(run =>
      [...run.querySelectorAll('.pv-version:not([hidden]) svg text.event-line')].map(t => t.textContent))"""
    data = page_data((tmp_path / "pair.html").read_text(encoding="utf-8"))
    ticks = data["ticks"]
    for tick in range(len(ticks)):
        _goto(pg, tick)
        shown = pg.evaluate(lines_js)
        for k, (run, i) in enumerate(zip(runs, ticks[tick])):
            assert shown[k] == list(event_lines(run.events[i], i, run, run.plan_at(i))), (tick, k)
    assert page.errors == []
