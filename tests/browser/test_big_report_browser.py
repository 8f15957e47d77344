"""A big run in the browser (issue 43): the report of a 10,000-span ReAct trace (tests/runs/otlp.react_trace)
opened from disk with the network blocked, stepped: the picture follows the current step (unless told not to),
the event log keeps only the rows on screen in the DOM, and the timeline draws every call on a canvas.

How fast it opens and steps is measured in benchmarks/bench_browser.py, never asserted here."""

from __future__ import annotations

import json

import pytest

from planviz import load_trace, report_html

from ..runs.otlp import react_trace

pytestmark = pytest.mark.browser

SPANS = 10_000
APP = "#planviz-app"

# Where the current step's node is against the picture's scrolled box: [step, node box, picture box].
NOW_JS = """() => {
  const g = document.querySelector('#planviz-app .pv-version:not([hidden]) g[data-now]');
  const d = document.querySelector('#planviz-app .planviz-diagram');
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  return g ? [g.getAttribute('data-step'), box(g), box(d),
              document.querySelectorAll('#planviz-app g[data-now]').length] : null;
}"""


def _inside(inner, outer) -> bool:
    return (
        inner[0] >= outer[0] - 1
        and inner[1] >= outer[1] - 1
        and inner[2] <= outer[2] + 1
        and inner[3] <= outer[3] + 1
    )


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """The trace's raw spans, its run and its report (about a minute to build on a loaded machine)."""
    folder = tmp_path_factory.mktemp("big")
    raw = react_trace(SPANS)
    trace = folder / "react.json"
    trace.write_text(json.dumps(raw), encoding="utf-8")
    run = load_trace(trace)
    return raw, run, report_html(run, folder / "react.html")


@pytest.fixture
def opened(chromium, big):
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    asked = []

    def block(route):  # the network is off: only the file itself loads
        if route.request.url.startswith(("file:", "about:", "data:")):
            route.continue_()
        else:
            asked.append(route.request.url)
            route.abort()

    context.route("**/*", block)
    pg = context.new_page()
    pg.set_default_timeout(120_000)
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    pg.goto(big[2].as_uri())
    pg.locator(APP + " .pv-version:not([hidden]) svg g.node").first.wait_for(state="attached")
    yield pg, errors, asked
    context.close()


def _goto(pg, i: int) -> None:
    pg.locator(APP + " .planviz-slider").fill(str(i))
    pg.locator(APP + " .planviz-slider").dispatch_event("input")


def test_the_picture_follows_the_current_step_of_a_10k_span_report(opened, big, ui):
    raw, run, _ = big
    pg, errors, asked = opened
    assert len(raw["resourceSpans"][0]["scopeSpans"][0]["spans"]) == SPANS
    drawn = set(
        pg.evaluate(
            "() => [...document.querySelectorAll('#planviz-app .pv-version:not([hidden]) g.node[data-step]')]"
            ".map(g => g.getAttribute('data-step'))"
        )
    )
    starts = [e.index for e in run.events if e.kind == "start" and e.step in drawn]
    assert len(starts) > 150  # the picture draws a few hundred steps of the 5,000
    # far down the picture, then back up
    for i in (
        starts[0],
        starts[100],
        starts[150],
        starts[40],
    ):
        _goto(pg, i)
        assert (
            pg.locator(APP + " .pv-caption")
            .inner_text()
            .startswith(f"Event {i} of {len(run.events) - 1}: start")
        )
        step, node, picture, count = pg.evaluate(NOW_JS)
        assert step == run.events[i].step and count == 1
        assert _inside(node, picture), (i, node, picture)
    pg.locator(
        APP + " button.planviz-forward"
    ).click()  # a step forward too (a complete: the same step)
    step, node, picture, _ = pg.evaluate(NOW_JS)
    assert step == run.events[starts[40] + 1].step and _inside(node, picture)
    ui.screenshot(pg.locator("body"), "big-report-follow")
    assert errors == [] and asked == []


def test_the_follow_toggle_stops_the_picture_scrolling(opened, big):
    _, run, _ = big
    pg, errors, _ = opened
    drawn = set(
        pg.evaluate(
            "() => [...document.querySelectorAll('#planviz-app .pv-version:not([hidden]) g.node[data-step]')]"
            ".map(g => g.getAttribute('data-step'))"
        )
    )
    starts = [e.index for e in run.events if e.kind == "start" and e.step in drawn]
    toggle = pg.locator(APP + " input.planviz-follow")
    assert toggle.is_checked()  # on by default
    _goto(pg, starts[2])
    top = pg.evaluate("() => document.querySelector('#planviz-app .planviz-diagram').scrollTop")
    toggle.uncheck()
    _goto(pg, starts[150])
    step, node, picture, _ = pg.evaluate(NOW_JS)
    assert step == run.events[starts[150]].step  # still marked, but not scrolled to
    assert not _inside(node, picture)
    assert (
        pg.evaluate("() => document.querySelector('#planviz-app .planviz-diagram').scrollTop")
        == top
    )
    toggle.check()  # on again: it scrolls to the step at once
    step, node, picture, _ = pg.evaluate(NOW_JS)
    assert _inside(node, picture)
    assert errors == []


GROUPS_JS = """() => [...document.querySelectorAll('#planviz-app .pv-version:not([hidden]) g.node[id^="group-"]')]
  .map(g => [g.getAttribute('data-step'), g.querySelector('title').textContent,
             g.querySelector('a').getAttributeNS('http://www.w3.org/1999/xlink', 'title')])"""
MARKED_JS = """() => [...document.querySelectorAll('#planviz-app g[data-now]')].map(g => g.getAttribute('data-step'))"""


def test_a_step_summed_up_in_a_group_is_followed_to_its_group_node(opened, big):
    """Most of the 5,000 steps are summed up in a few group nodes (the picture draws a few hundred): stepping to
    one of them marks and scrolls to the group node whose tooltip lists it (before, nothing was marked and the
    picture stayed where it was)."""
    _, run, _ = big
    pg, errors, _ = opened
    groups = pg.evaluate(GROUPS_JS)
    assert len(groups) > 3
    listed = {}  # step -> the group whose tooltip names it ("steps: a, b, ... (N more)")
    for name, _, tip in groups:
        for line in tip.split("\n"):
            if line.startswith("steps: "):
                for sid in line.removeprefix("steps: ").split(", "):
                    if not sid.startswith("\u2026"):
                        listed[sid] = name
    late = [e.index for e in run.events if e.kind == "start" and e.step in listed]
    assert len(late) > 10
    for i in (late[-1], late[len(late) // 2], late[3]):  # far down the picture, then back up
        _goto(pg, i)
        marked = pg.evaluate(MARKED_JS)
        assert listed[run.events[i].step] in marked and len(marked) <= 2, (i, marked)
        group = pg.locator(
            APP + f" .pv-version:not([hidden]) g.node[data-step='{listed[run.events[i].step]}']"
        )
        box, picture = group.bounding_box(), pg.locator(APP + " .planviz-diagram").bounding_box()
        assert (
            picture["y"] - 1 <= box["y"]
            and box["y"] + box["height"] <= picture["y"] + picture["height"] + 1
        ), (i, box, picture)
    own = pg.evaluate(
        "() => [...document.querySelectorAll('#planviz-app .pv-version:not([hidden]) g.node[id^=\"node-\"]')]"
        ".map(g => g.getAttribute('data-step'))"
    )
    drawn = [e.index for e in run.events if e.kind == "start" and e.step in own][-1]
    _goto(pg, drawn)  # a step drawn on its own: only its node
    assert pg.evaluate(MARKED_JS) == [run.events[drawn].step]
    assert errors == []


LOG_JS = """() => [...document.querySelectorAll('#planviz-app .pv-panel-log tr[data-i]')]
  .map(r => [Number(r.getAttribute('data-i')), r.cells[1].textContent, r.cells[2].textContent, r.cells[3].textContent,
             r.classList.contains('pv-current')])"""


def _log_matches(rows, run) -> None:
    # in order, none missing
    assert [r[0] for r in rows] == list(range(rows[0][0], rows[0][0] + len(rows)))
    for i, time, kind, step, _ in rows:
        e = run.events[i]
        assert [time, kind, step] == [f"{float(e.time):g}", e.kind, e.step or ""], i


def test_the_event_log_keeps_only_the_rows_on_screen(opened, big):
    _, run, _ = big
    pg, errors, _ = opened
    n = len(run.events)
    assert n > SPANS
    rows = pg.evaluate(LOG_JS)
    assert 0 < len(rows) < 200 and rows[0][0] == 0 and [r[0] for r in rows if r[4]] == [0]
    _log_matches(rows, run)
    _goto(pg, 5_000)  # a jump: the log scrolls to the current event
    rows = pg.evaluate(LOG_JS)
    assert len(rows) < 200 and [r[0] for r in rows if r[4]] == [5_000]
    _log_matches(rows, run)
    scroller = pg.locator(APP + " .pv-logscroll")
    scroller.evaluate("el => { el.scrollTop = el.scrollHeight; }")  # the reader scrolls to the end
    pg.wait_for_function(
        "() => [...document.querySelectorAll('#planviz-app .pv-panel-log tr[data-i]')]"
        f".some(r => r.getAttribute('data-i') === '{n - 1}')"
    )
    rows = pg.evaluate(LOG_JS)
    assert len(rows) < 200 and rows[-1][0] == n - 1 and rows[-1][2] == run.events[-1].kind
    _log_matches(rows, run)
    # the last row is on screen, and goes there
    last = pg.locator(APP + f" .pv-panel-log tr[data-i='{n - 1}']")
    box, frame = last.bounding_box(), scroller.bounding_box()
    assert frame["y"] <= box["y"] and box["y"] + box["height"] <= frame["y"] + frame["height"] + 1
    pg.locator(APP + f" .pv-panel-log tr[data-i='{n - 3}']").click()
    assert pg.locator(APP + " .pv-caption").inner_text().startswith(f"Event {n - 3} of {n - 1}")
    assert errors == []


def test_the_timeline_draws_every_call_in_model_and_tool_lanes(opened, big, ui):
    raw, run, _ = big
    pg, errors, _ = opened
    spans = raw["resourceSpans"][0]["scopeSpans"][0]["spans"]
    tools = {
        a["value"]["stringValue"]
        for s in spans
        for a in s["attributes"]
        if a["key"] == "gen_ai.tool.name"
    }
    pg.locator(APP + " .pv-tab[data-tab='timeline']").click()
    canvas = pg.locator(APP + " canvas.planviz-lanes")
    assert canvas.count() == 1
    label = canvas.get_attribute("aria-label")
    # every span but the agent's
    assert label.startswith(f"timeline: {SPANS - 1} calls in {len(tools) + 1} lanes")
    # no SVG row per step for 5,000 steps
    assert pg.locator(APP + " svg.planviz-gantt").count() == 0
    # the canvas is drawn: the model lane's row is coloured across the run
    inked = canvas.evaluate("""c => { const g = c.getContext('2d'), d = g.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let k = 0; k < d.length; k += 4) { if (d[k] < 200 || d[k + 1] < 200 || d[k + 2] < 200) { n++; } }
      return n; }""")
    assert inked > 10_000
    ui.screenshot(pg.locator(APP + " .pv-panel-timeline"), "big-report-lanes")
    canvas.click(position={"x": 160 + 300, "y": 30})  # a click on the chart goes to that time
    caption = pg.locator(APP + " .pv-caption").inner_text()
    assert not caption.startswith("Event 0 of"), caption
    assert errors == []


ITEMS_JS = """(name) => [...document.querySelectorAll('#planviz-app .pv-panel-' + name + ' li')]
  .map(li => li.textContent)"""


def test_the_facts_held_are_a_virtual_list_too(opened, big):
    """Half-way through the 10k-span run 2,500 facts are held: the Facts tab keeps only the items on screen in the
    DOM (it filled every one at each step: a second a step at 100k spans), in order, and scrolls to the last."""
    _, run, _ = big
    pg, errors, _ = opened
    i = len(run.events) // 2
    held = sorted(run.frame(i).facts)
    assert len(held) > 2_000
    _goto(pg, i)
    pg.locator(APP + " .pv-tab[data-tab='facts']").click()
    shown = pg.evaluate(ITEMS_JS, "facts")
    assert 0 < len(shown) <= 30 and shown == held[: len(shown)]
    box = pg.locator(APP + " .pv-panel-facts .pv-listscroll")
    assert box.get_attribute("aria-label") == f"facts held: {len(held)}"
    box.evaluate("el => { el.scrollTop = el.scrollHeight; }")
    pg.wait_for_function(
        "(last) => [...document.querySelectorAll('#planviz-app .pv-panel-facts li')]"
        ".some(li => li.textContent === last)",
        arg=held[-1],
    )
    shown = pg.evaluate(ITEMS_JS, "facts")
    assert len(shown) <= 30 and shown == held[-len(shown) :]
    pg.locator(APP + " button.planviz-forward").click()  # a step on: the list follows the frame
    after = sorted(run.frame(i + 1).facts)
    pg.wait_for_function(
        f"() => document.querySelector('#planviz-app .pv-panel-facts .pv-listscroll')"
        f".getAttribute('aria-label') === 'facts held: {len(after)}'"
    )
    assert pg.evaluate(ITEMS_JS, "facts") == after[-len(pg.evaluate(ITEMS_JS, "facts")) :]
    assert errors == []
